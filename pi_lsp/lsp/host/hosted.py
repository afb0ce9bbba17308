"""``HostedSession``: one agent session served to the editor — its runs.

A run starts from ``pi/prompt``; input while one is going becomes steering (or a follow-up),
so there is never a second run in one session; ``interrupt`` aborts and starts anew; a
manual compaction holds a new run back until it is over. The settings are re-read before
every run. Around it: the session's events go to the editor through ``EventRelay``
(``event_relay.py``), its changes are logged by ``CheckpointLog`` (``checkpoint_log.py``),
its read-outs are ``session_views.py``; its bash permissions are ``runtime/permissions.py``'s
rules asking through ``permissions.py``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Literal

from lsprotocol import types

from ...agent.messages import AgentMessage, user_message
from ...runtime import ConfigError, ConfiguredSession
from ...runtime.permissions import BashRules
from ...sessions.compaction.tokens import estimate_messages_tokens
from ..bridge import ClientBridge
from ..editor.review_book import ReviewBook
from ..editor.review_notes import NOTES_ENTRY_TYPE, Undone, notes_data
from ..protocol.contract import ProcessInfo
from ..protocol.models import (
    EVENT,
    CompactResult,
    DeliverAs,
    Delivered,
    PendingQuestion,
    QueueResult,
    StateResult,
    TodoEntry,
)
from ..settings import ClientFeatures, Settings
from .agent_setup import run_config, setup_error
from .channel import MAX_WINDOW, EventChannel
from .checkpoint_log import CheckpointLog
from .child_events import ChildRelay
from .event_relay import EventRelay
from .plain_answers import PlainAnswers
from .progress import RunProgress
from .questions import Questions
from .session_views import queue_op, state_result, transcript

log = logging.getLogger(__name__)

ABORT_GRACE = 2.0


class HostedSession:
    def __init__(
        self,
        session: ConfiguredSession,
        permissions: BashRules,
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
        self.changes = CheckpointLog(session)
        """What the agent changed, per tool call, beside the session file."""
        self.events = EventRelay(
            self.channel,
            bridge,
            compact=features.compact_events,
            plain=None if features.events else PlainAnswers(bridge, session),
            on_bash_done=self.changes.record_bash,
            message_count=lambda: len(session.messages),
        )
        self.run_task: asyncio.Task[None] | None = None
        self.forked_from: str | None = None
        """The session this one copies because another process held its file."""
        self._compaction: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._unsubscribe = session.subscribe(self.events)
        self.children = ChildRelay(
            bridge,
            interval=features.update_interval,
            adaptive=not features.update_budget_declared,
            enabled=features.subagents,
        )
        """The ``task`` children's events, for a client that shows them."""
        if session.subagents is not None:
            session.subagents.subscribe(self.children)
        self._unwatch_jobs = session.jobs.subscribe(self._job_changed)
        self.review: ReviewBook | None = None
        self.questions = questions
        session.set_call_notes(self._call_notes)
        self.mcp_permissions: Any = None
        """This session's MCP permission questions (``McpPermissions``), for ``pi/state``."""

    @property
    def running(self) -> bool:
        return self.session.is_running

    # --------------------------------------------------------------------------- runs

    def submit(
        self, message: AgentMessage, deliver_as: DeliverAs | None, *, expand: bool = True
    ) -> Delivered:
        """Start a run with ``message``, or queue it when a run is going. During a manual
        compaction the run starts as soon as the compaction is over. ``interrupt`` aborts
        the run (the queue stays queued) and starts a new one with ``message``. ``expand``
        false: the text was expanded already (``session.expand_text``, before attachments)."""
        if deliver_as == "interrupt":
            if not self.running and self._compaction is None:
                return self.submit(message, None, expand=expand)
            self.abort()
            idle = self.session.wait_for_idle()
            self._spawn(self._submit_after(idle, message, None, expand))
            return "interrupt"
        if self._compaction is not None and not self.session.in_agent_run:
            compacted = self._compaction.wait()
            self._spawn(self._submit_after(compacted, message, deliver_as, expand))
            return "prompt"
        if self.running:
            kind: Literal["steer", "followUp"] = "followUp" if deliver_as == "followUp" else "steer"
            return self.queue(message, kind, expand=expand)
        self.configure()
        task = self.session.prompt(message, expand=expand)
        self.run_task = task
        progress = RunProgress(self.bridge, on_cancel=self.abort)
        self.events.progress = progress
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

    def save_review_notes(self, notes: list[Undone]) -> None:
        """The review notes waiting for the next model call, into the session file at once
        (a restart delivers them, once: ``SessionManager`` restores the last such entry)."""
        tree = self.session.tree
        try:
            tree.append_custom(NOTES_ENTRY_TYPE, notes_data(notes))
            tree.flush()
        except Exception as exc:  # the notes are still delivered from memory
            log.error("session %s: could not save the review notes: %s", self.id, exc)

    def queue(
        self, message: AgentMessage, kind: Literal["steer", "followUp"], *, expand: bool = True
    ) -> Delivered:
        """``pi/steer`` / ``pi/followUp``: queued now, delivered by this or the next run."""
        if kind == "followUp":
            self.session.follow_up(message, expand=expand)
        else:
            self.session.steer(message, expand=expand)
        return kind

    def queue_op(self, op: str, queue_id: str | None, text: str | None) -> QueueResult:
        """``pi/queue`` (``session_views.queue_op``)."""
        return queue_op(self.session, op, queue_id, text)

    def publish_queue(self) -> None:
        """Send the queues as they are (``pi/resumeSession``: restored from the file)."""
        self.events(self.session.queue_event())

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
        messages = self.session.messages
        aborted = bool(messages) and getattr(messages[-1], "stop_reason", None) == "aborted"
        progress.end("aborted" if aborted else "done")
        self.channel.flush()
        if self.events.plain is not None:
            self.events.plain.run_done()
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("session %s: run failed: %s", self.id, exc, exc_info=exc)

    def stop_child(self, child_id: str) -> bool:
        """Stop one ``task`` child: its call returns "cancelled", the run goes on."""
        subagents = self.session.subagents
        return subagents is not None and subagents.stop(child_id)

    def has_child(self, child_id: str) -> bool:
        subagents = self.session.subagents
        return subagents is not None and subagents.get(child_id) is not None

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
        self,
        done: Awaitable[Any],
        message: AgentMessage,
        deliver_as: DeliverAs | None,
        expand: bool = True,
    ) -> None:
        await done
        try:
            self.submit(message, deliver_as, expand=expand)
        except Exception as exc:  # a setting went bad meanwhile: tell the user
            self.bridge.show_message(types.MessageType.Error, f"pi: {exc}")

    async def compact(self) -> CompactResult:
        """Manual compaction (``pi/compact``); raises ``CompactionError`` when it fails."""
        before = estimate_messages_tokens(self.session.messages)
        done = self._compaction = asyncio.Event()
        try:
            result = await self.session.compact("manual")
        finally:
            self._compaction = None
            done.set()
        if result is None:
            return CompactResult(compacted=False, tokens_before=before, tokens_after=before)
        after = result.estimated_tokens_after
        return CompactResult(
            compacted=True,
            tokens_before=result.tokens_before,
            tokens_after=after if after is not None else before,
        )

    # ------------------------------------------------------------------- the client

    def attach_client(self, features: ClientFeatures) -> None:
        """A new client connected (TCP): its update budget and whether it renders events."""
        self.channel.interval = min(features.update_interval, MAX_WINDOW)
        self.channel.window = self.channel.interval
        self.events.compact = features.compact_events
        if features.events:
            self.events.plain = None
        elif self.events.plain is None:
            self.events.plain = PlainAnswers(self.bridge, self.session)

    def state(self) -> StateResult:
        """``pi/state`` (``session_views.state_result``)."""
        return state_result(
            self.session,
            pending_permissions=[
                *self.permissions.pending_list(),
                *(self.mcp_permissions.pending_list() if self.mcp_permissions else []),
            ],
            forked_from=self.forked_from,
            mode=self.session.mode,
            todo=[TodoEntry.model_validate(item.model_dump()) for item in self.session.todos],
            pending_questions=[
                PendingQuestion.model_validate(q) for q in self.questions.pending_list()
            ],
        )

    def messages(self) -> tuple[list[dict[str, Any]], list[str | None]]:
        """The transcript in wire form, with each message's session-file entry id."""
        return transcript(self.session)

    # ------------------------------------------------------------------- lifecycle

    def _job_changed(self, job: Any, what: str) -> None:
        """A background process started or ended: ``processes_update`` (not on output)."""
        if what in ("started", "exited"):
            self.channel.publish({"type": "processes_update", "processes": self.processes()})

    def processes(self) -> list[dict[str, Any]]:
        """The session's background processes in wire form (``pi/processes``)."""
        return [
            ProcessInfo.model_validate(job.view(), from_attributes=True).to_wire()
            for job in self.session.jobs.all()
        ]

    def close(self) -> None:
        self._unwatch_jobs()
        self._unsubscribe()
        self.session.close()

    @property
    def idle(self) -> bool:
        """Nothing would be lost by unloading it: no run, compaction, queued message or open
        permission question (review hunks are checked by the manager, which owns the book)."""
        return (
            not self.running
            and self._compaction is None
            and not self.session.has_queued()
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
