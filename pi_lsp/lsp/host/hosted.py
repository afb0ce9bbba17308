"""``HostedSession``: one ``AgentSession`` served to the editor.

Owns the session's event channel (``pi/event``), its bash permissions, its run task (kept
referenced until done), its work-done progress and its tool processes. Input while a run is
going becomes steering (or a follow-up) — there is never a second run in one session.
Provider errors reach the user as ``window/showMessage`` too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Literal

from lsprotocol import types

from ...agent import Agent
from ...agent.messages import AgentMessage, user_message
from ...agent.types import (
    AgentEndEvent,
    MessageEndEvent,
    ToolExecutionEndEvent,
    TurnEndEvent,
)
from ...ai import AssistantMessage, UserMessage
from ...ai.types import now_ms
from ...review import CheckpointStore
from ...runtime import ConfigError, ConfiguredSession
from ...sessions.compaction.tokens import estimate_messages_tokens
from ...wire import event_wire, message_wire, queue_wire
from ..bridge import ClientBridge
from ..editor.editor_workspace import CURRENT_SIGNAL
from ..editor.review_book import CURRENT_SESSION, ReviewBook
from ..protocol.models import (
    EVENT,
    DeliverAs,
    Delivered,
    PendingPermission,
    PendingQuestion,
    StateResult,
    TodoEntry,
    UsageTotals,
)
from ..settings import ClientFeatures, Settings
from .agent_setup import run_config, setup_error
from .channel import MAX_WINDOW, EventChannel
from .permissions import BashPermissions
from .plain_answers import PlainAnswers
from .progress import RunProgress
from .questions import Questions

log = logging.getLogger(__name__)

ABORT_GRACE = 2.0


class HostedSession:
    def __init__(
        self,
        session: ConfiguredSession,
        permissions: BashPermissions,
        questions: Questions,
        *,
        bridge: ClientBridge,
        features: ClientFeatures,
        settings: Callable[[], Settings],
    ) -> None:
        self.session = session
        self.settings = settings
        self.permissions = permissions
        self.bridge = bridge
        self.id = session.session_id
        self.channel = EventChannel(
            self.id,
            lambda params: bridge.notify_raw(EVENT, params),
            interval=features.update_interval,
            adaptive=not features.update_budget_declared,
        )
        self.run_task: asyncio.Task[None] | None = None
        self.forked_from: str | None = None
        """The session this one copies because another process held its file."""
        self.progress: RunProgress | None = None
        self._compaction: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._unsubscribe = session.subscribe(self._on_event)
        self.review: ReviewBook | None = None
        self.compact_events = features.compact_events
        self._sent_at: dict[int, int] = {}
        """``id(message)`` → the ``seq`` of the ``message_end`` that carried it (this run)."""
        self.plain = None if features.events else PlainAnswers(bridge, session)
        """Final answers as messages, for a client that shows no ``pi/event``."""
        self.questions = questions
        session.agent.get_call_notes = self._call_notes
        self.mcp_permissions: Any = None
        """This session's MCP permission questions (``McpPermissions``), for ``pi/state``."""

    @property
    def agent(self) -> Agent:
        return self.session.agent

    @property
    def running(self) -> bool:
        return self.session.is_running or self.agent.is_running

    # ------------------------------------------------------------------------ events

    def _on_event(self, event: Any) -> None:
        wire = event_wire(event)
        if wire is None:
            return
        if self.plain is not None:
            self.plain.on_event(event)
        if self.compact_events:
            wire = self._compacted(event, wire)
        self.channel.publish(wire)
        if isinstance(event, MessageEndEvent):
            self._sent_at[id(event.message)] = self.channel.seq
        elif isinstance(event, ToolExecutionEndEvent) and event.tool_name == "bash":
            self._record_bash(event.tool_call_id)
        elif isinstance(event, AgentEndEvent):
            self._sent_at.clear()
        if self.progress is not None:
            self.progress.on_event(wire)
        kind = wire["type"]
        if kind == "message_end":
            message = getattr(event, "message", None)
            if isinstance(message, AssistantMessage) and message.stop_reason == "error":
                self.bridge.show_message(
                    types.MessageType.Error, f"pi: {message.error_message or 'model error'}"
                )
        elif kind == "session_save" and not wire["ok"]:  # once per failure spell
            self.bridge.show_message(
                types.MessageType.Warning,
                f"pi: this session cannot be saved ({wire.get('errorMessage')}). The "
                "conversation goes on and pi keeps trying to save it; check the disk space "
                "and permissions of the data directory.",
            )
        elif kind == "compaction_end" and wire.get("errorMessage"):
            self.bridge.show_message(
                types.MessageType.Warning, f"pi: compaction failed: {wire['errorMessage']}"
            )

    def _compacted(self, event: Any, wire: dict[str, Any]) -> dict[str, Any]:
        """``turn_end`` / ``agent_end`` with references to messages already sent whole (the
        ``seq`` of their ``message_end``); the full form when any of them was not sent."""
        sent = self._sent_at
        if isinstance(event, MessageEndEvent) and wire["message"].get("role") == "assistant":
            message = dict(wire["message"])
            message["content"] = [_streamed(block) for block in message.get("content", [])]
            return {**wire, "message": message}
        if isinstance(event, TurnEndEvent):
            refs = [sent.get(id(m)) for m in (event.message, *event.tool_results)]
            if None in refs:
                return wire
            return {"type": "turn_end", "messageRef": refs[0], "toolResultRefs": refs[1:]}
        if isinstance(event, AgentEndEvent):
            refs = [sent.get(id(m)) for m in event.messages]
            if None in refs:
                return wire
            return {"type": "agent_end", "messageRefs": refs}
        return wire

    # --------------------------------------------------------------------------- runs

    def submit(self, message: AgentMessage, deliver_as: DeliverAs | None) -> Delivered:
        """Start a run with ``message``, or queue it when a run is going. During a manual
        compaction the run starts as soon as the compaction is over. ``interrupt`` aborts
        the run (the queue stays queued) and starts a new one with ``message``."""
        if deliver_as == "interrupt":
            if not self.running and self._compaction is None:
                return self.submit(message, None)
            self.abort()
            self._spawn(self._submit_after(self.session.wait_for_idle(), message, None))
            return "interrupt"
        if self._compaction is not None and not self.agent.is_running:
            self._spawn(self._submit_after(self._compaction.wait(), message, deliver_as))
            return "prompt"
        if self.running:
            if deliver_as == "followUp":
                self.agent.follow_up(message)
                return "followUp"
            self.agent.steer(message)
            return "steer"
        self.configure()
        token = CURRENT_SIGNAL.set(lambda: self.agent.signal)
        session_token = CURRENT_SESSION.set(self.id)
        try:
            task = self.session.prompt(message)
        finally:
            CURRENT_SESSION.reset(session_token)
            CURRENT_SIGNAL.reset(token)
        self.run_task = task
        progress = RunProgress(self.bridge, on_cancel=self.abort)
        self.progress = progress
        progress.start()
        task.add_done_callback(lambda t: self._run_done(t, progress))
        return "prompt"

    async def _call_notes(self) -> list[AgentMessage]:
        """Before each model call, whichever run makes it: the review note owed to the model
        (docs/protocol.md#review-hunks-keep-or-undo-each-change-91), exactly once."""
        if self.review is None:
            return []
        try:
            return list(await self.review.take_notes(self.id))
        except Exception:  # the hook must not fail the run
            log.exception("session %s: review notes not delivered", self.id)
            return []

    def queue(self, message: AgentMessage, kind: Literal["steer", "followUp"]) -> Delivered:
        """``pi/steer`` / ``pi/followUp``: queued now, delivered by this or the next run."""
        if kind == "followUp":
            self.agent.follow_up(message)
        else:
            self.agent.steer(message)
        return kind

    def queue_op(self, op: str, queue_id: str | None, text: str | None) -> dict[str, Any]:
        """``pi/queue``: one edit of the visible queue (``KeyError(id)`` for an id that is
        not queued); returns both queues after it. Every op sends one ``queue_update``."""
        agent = self.agent
        if op == "clear":
            agent.clear_all_queues()
        elif queue_id is None:
            raise ValueError(f"`id` is required for op {op!r}")
        elif op == "remove":
            agent.remove_queued(queue_id)
        elif op == "promote":
            agent.promote_queued(queue_id)
        elif op == "edit":
            if text is None:
                raise ValueError("`text` is required for op 'edit'")
            steering, follow_ups = agent.queue_items()
            item = next((i for i in (*steering, *follow_ups) if i.id == queue_id), None)
            if item is None:
                raise KeyError(queue_id)
            content = getattr(item.message, "content", None)
            blocks = content if isinstance(content, list) else []
            images = [b for b in blocks if getattr(b, "type", None) == "image"]
            agent.edit_queued(queue_id, user_message(text, images))
        return self.queue_view()

    def queue_view(self) -> dict[str, Any]:
        event = self.session.queue_event()
        wire = queue_wire(event.steering, event.follow_up)
        return {"steering": wire["steering"], "followUp": wire["followUp"]}

    def publish_queue(self) -> None:
        """Send the queues as they are (``pi/resumeSession``: restored from the file)."""
        self._on_event(self.session.queue_event())

    def attach_client(self, features: ClientFeatures) -> None:
        """A new client connected (TCP): its update budget and whether it renders events."""
        self.channel.interval = min(features.update_interval, MAX_WINDOW)
        self.channel.window = self.channel.interval
        self.compact_events = features.compact_events
        if features.events:
            self.plain = None
        elif self.plain is None:
            self.plain = PlainAnswers(self.bridge, self.session)

    def configure(self) -> None:
        """The current settings, for the next run (``SetupError`` names a bad one)."""
        try:
            self.session.configure(run_config(self.settings()))
        except ConfigError as exc:
            raise setup_error(exc) from None

    def set_mode(self, mode: Literal["plan", "act"]) -> bool:
        """``pi/setMode``: from the next run on (the tool list of a run in progress stays);
        switching to ``act`` after a run in ``plan`` sends the carry-out message as a
        follow-up (a new run when idle). True when it was sent."""
        return self.session.set_mode(
            mode, deliver=lambda text: self.submit(user_message(text), "followUp")
        )

    def set_model(self, provider: str | None, model_id: str, thinking: str | None) -> None:
        """``pi/setModel``: this session only, from its next model call (``SetupError`` /
        ``ValueError`` when the model or level is not usable)."""
        try:
            self.session.select_model(
                provider, model_id, thinking, config=run_config(self.settings())
            )
        except ConfigError as exc:
            raise setup_error(exc, "pi/setModel") from None

    def _run_done(self, task: asyncio.Task[None], progress: RunProgress) -> None:
        progress.end("aborted" if self._was_aborted() else "done")
        self.channel.flush()
        if self.plain is not None:
            self.plain.run_done()
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("session %s: run failed: %s", self.id, exc, exc_info=exc)

    def _was_aborted(self) -> bool:
        messages = self.agent.state.messages
        return bool(messages) and getattr(messages[-1], "stop_reason", None) == "aborted"

    def abort(self) -> bool:
        """Abort the run (model stream, pending prompt, tool processes); True if one ran."""
        was_running = self.running
        self.session.abort()
        self.session.kill_processes()
        return was_running

    async def stop(self) -> None:
        """Abort and wait (bounded) for the run to end; kill what is left; flush the file."""
        self.abort()
        task = self.run_task
        if task is not None and not task.done():
            await asyncio.wait({task}, timeout=ABORT_GRACE)
        self.session.kill_processes()
        self.channel.flush()
        file = self.session.file
        if file is not None:
            try:
                file.flush()
            except OSError as exc:
                log.error("session %s: could not flush: %s", self.id, exc)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _submit_after(
        self, done: Awaitable[Any], message: AgentMessage, deliver_as: DeliverAs | None
    ) -> None:
        await done
        try:
            self.submit(message, deliver_as)
        except Exception as exc:  # a setting went bad meanwhile: tell the user
            self.bridge.show_message(types.MessageType.Error, f"pi: {exc}")

    async def compact(self) -> dict[str, Any]:
        """Manual compaction (``pi/compact``); raises ``CompactionError`` when it fails."""
        before = estimate_messages_tokens(self.agent.state.messages)
        done = self._compaction = asyncio.Event()
        try:
            result = await self.session.compact("manual")
        finally:
            self._compaction = None
            done.set()
        if result is None:
            return {"compacted": False, "tokens_before": before, "tokens_after": before}
        after = result.estimated_tokens_after
        return {
            "compacted": True,
            "tokens_before": result.tokens_before,
            "tokens_after": after if after is not None else before,
        }

    # ------------------------------------------------------------------------- views

    def state(self) -> dict[str, Any]:
        agent = self.agent
        model = agent.state.model
        usage = self.session.usage_totals()
        return StateResult(
            session_id=self.id,
            is_streaming=self.running,
            model=message_wire(model) if model is not None else None,
            thinking_level=agent.state.thinking_level,
            message_count=len(agent.state.messages),
            pending_steering=len(agent.queued_steering),
            pending_follow_up=len(agent.queued_follow_ups),
            pending_permissions=[
                PendingPermission.model_validate(p)
                for p in [
                    *self.permissions.pending_list(),
                    *(self.mcp_permissions.pending_list() if self.mcp_permissions else []),
                ]
            ],
            usage=UsageTotals(
                input=usage.input,
                output=usage.output,
                cache_read=usage.cache_read,
                cache_write=usage.cache_write,
                cost=usage.cost,
            ),
            context_tokens=self.session.context_tokens(),
            context_window=model.context_window if model is not None else None,
            save_error=self.session.persist_error,
            forked_from=self.forked_from,
            mode=self.session.mode,
            todo=[TodoEntry.model_validate(item.model_dump()) for item in self.session.todos],
            pending_questions=[
                PendingQuestion.model_validate(q) for q in self.questions.pending_list()
            ],
        ).to_state_wire()

    def messages(self) -> tuple[list[dict[str, Any]], list[str | None]]:
        """The transcript in wire form, with each message's session-file entry id."""
        ids: dict[int, str] = {}
        for entry in self.session.tree.get_branch():
            message = getattr(entry, "message", None)
            if message is not None:
                ids[id(message)] = entry.id
        msgs = self.agent.state.messages
        return [message_wire(m) for m in msgs], [ids.get(id(m)) for m in msgs]

    # ------------------------------------------------------------------- checkpoints

    @property
    def checkpoints(self) -> CheckpointStore | None:
        """What the agent changed, per tool call, beside the session file
        (docs/protocol.md#checkpoints-restore-revert-one-tool-call-95)."""
        file = self.session.file
        if file is None or not file.persist:
            return None
        return CheckpointStore.beside(file.path)

    def checkpoint_entries(self) -> list[tuple[str, UserMessage]]:
        """The user messages of the current branch, oldest first, with their entry ids."""
        out: list[tuple[str, UserMessage]] = []
        for entry in self.session.tree.get_branch():
            message = getattr(entry, "message", None)
            if isinstance(message, UserMessage):
                out.append((entry.id, message))
        return out

    def record_change(self, tool_call_id: str, uri: str, before: str, after: str) -> None:
        store, entries = self.checkpoints, self.checkpoint_entries()
        if store is None or not entries:
            return
        store.record(tool_call_id, entries[-1][0], uri, before, after, now_ms())

    def _record_bash(self, tool_call_id: str) -> None:
        store, entries = self.checkpoints, self.checkpoint_entries()
        if store is None or not entries:
            return
        try:
            store.record_bash(tool_call_id, entries[-1][0], now_ms())
        except OSError:
            log.warning("could not note the bash call %s for restores", tool_call_id)

    def close(self) -> None:
        self._unsubscribe()
        self.session.close()

    @property
    def idle(self) -> bool:
        """Nothing would be lost by unloading it: no run, compaction, queued message or open
        permission question (review hunks are checked by the manager, which owns the book)."""
        steering, follow_up = self.agent.queue_items()
        return (
            not self.running
            and self._compaction is None
            and not steering
            and not follow_up
            and not self.permissions.pending
            and not self.questions.pending
            and not self._tasks
        )

    async def aclose(self) -> None:
        """Unload: stop (abort, kill tools, flush the file), detach, release the file's lock
        and close the provider client."""
        await self.stop()
        self.close()
        await self.session.aclose()


def _streamed(block: Any) -> Any:
    """A text or thinking block the client already has from its deltas: its text is left
    out (``streamed: true``); other blocks are sent whole."""
    if not isinstance(block, dict):
        return block
    if block.get("type") == "text":
        return {"type": "text", "streamed": True}
    if block.get("type") == "thinking":
        return {"type": "thinking", "streamed": True}
    return block
