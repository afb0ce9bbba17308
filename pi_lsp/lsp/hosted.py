"""``HostedSession``: one ``AgentSession`` served to the editor.

Owns the session's event channel (``pi/event``), its bash permissions, its run task (kept
referenced until done), its work-done progress and its tool processes. Input while a run is
going becomes steering (or a follow-up) — there is never a second run in one session.
Provider errors reach the user as ``window/showMessage`` too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, Literal

from lsprotocol import types

from ..agent import Agent
from ..agent.messages import AgentMessage
from ..ai import AssistantMessage
from ..ai.events import RetryInfo
from ..sessions.agent_session import AgentSession
from ..sessions.compaction.tokens import estimate_messages_tokens
from .agent_setup import AgentSetup
from .channel import EventChannel
from .client import ClientBridge
from .editor_workspace import CURRENT_SIGNAL
from .events import event_wire, message_wire
from .permissions import BashPermissions
from .progress import RunProgress
from .protocol import EVENT, Delivered
from .settings import ClientFeatures

log = logging.getLogger(__name__)

ABORT_GRACE = 2.0


class HostedSession:
    def __init__(
        self,
        session: AgentSession,
        setup: AgentSetup,
        permissions: BashPermissions,
        *,
        bridge: ClientBridge,
        features: ClientFeatures,
    ) -> None:
        self.session = session
        self.setup = setup
        self.permissions = permissions
        self.bridge = bridge
        self.id = session.session_id
        self.channel = EventChannel(
            self.id,
            lambda params: bridge.notify_raw(EVENT, params),
            interval=features.update_interval,
        )
        self.run_task: asyncio.Task[None] | None = None
        self.forked_from: str | None = None
        """The session this one copies because another process held its file."""
        self.progress: RunProgress | None = None
        self._compaction: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._unsubscribe = session.subscribe(self._on_event)

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
        self.channel.publish(wire)
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

    def on_retry(self, info: RetryInfo) -> None:
        self._on_event(info)

    # --------------------------------------------------------------------------- runs

    def submit(
        self, message: AgentMessage, deliver_as: Literal["steer", "followUp"] | None
    ) -> Delivered:
        """Start a run with ``message``, or queue it when a run is going. During a manual
        compaction the run starts as soon as the compaction is over."""
        if self._compaction is not None and not self.agent.is_running:
            self._spawn(self._after_compaction(self._compaction, message, deliver_as))
            return "prompt"
        if self.running:
            if deliver_as == "followUp":
                self.agent.follow_up(message)
                return "followUp"
            self.agent.steer(message)
            return "steer"
        self.setup.configure(self.agent)
        token = CURRENT_SIGNAL.set(lambda: self.agent.signal)
        try:
            task = self.session.prompt(message)
        finally:
            CURRENT_SIGNAL.reset(token)
        self.run_task = task
        progress = RunProgress(self.bridge, on_cancel=self.abort)
        self.progress = progress
        progress.start()
        task.add_done_callback(lambda t: self._run_done(t, progress))
        return "prompt"

    def queue(self, message: AgentMessage, kind: Literal["steer", "followUp"]) -> Delivered:
        """``pi/steer`` / ``pi/followUp``: queued now, delivered by this or the next run."""
        if kind == "followUp":
            self.agent.follow_up(message)
        else:
            self.agent.steer(message)
        return kind

    def _run_done(self, task: asyncio.Task[None], progress: RunProgress) -> None:
        progress.end("aborted" if self._was_aborted() else "done")
        self.channel.flush()
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
        self.setup.registry.kill_all()
        return was_running

    async def stop(self) -> None:
        """Abort and wait (bounded) for the run to end; kill what is left; flush the file."""
        self.abort()
        task = self.run_task
        if task is not None and not task.done():
            await asyncio.wait({task}, timeout=ABORT_GRACE)
        self.setup.registry.kill_all()
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

    async def _after_compaction(
        self,
        done: asyncio.Event,
        message: AgentMessage,
        deliver_as: Literal["steer", "followUp"] | None,
    ) -> None:
        await done.wait()
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
        return {
            "sessionId": self.id,
            "isStreaming": self.running,
            "model": message_wire(model) if model is not None else None,
            "messageCount": len(agent.state.messages),
            "pendingSteering": len(agent.queued_steering),
            "pendingFollowUp": len(agent.queued_follow_ups),
            "saveError": self.session.persist_error,
            "forkedFrom": self.forked_from,
        }

    def messages(self) -> tuple[list[dict[str, Any]], list[str | None]]:
        """The transcript in wire form, with each message's session-file entry id."""
        ids: dict[int, str] = {}
        for entry in self.session.tree.get_branch():
            message = getattr(entry, "message", None)
            if message is not None:
                ids[id(message)] = entry.id
        msgs = self.agent.state.messages
        return [message_wire(m) for m in msgs], [ids.get(id(m)) for m in msgs]

    def close(self) -> None:
        self._unsubscribe()
        self.session.close()
