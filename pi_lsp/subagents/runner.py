"""One root session's ``task`` children (docs/subagents.md#the-task-tool).

``Subagents`` runs each child the ``task`` tool asks for: an in-process ``AgentSession`` made
by the runtime's ``ChildFactory`` (``runtime/children.py``: ``create_agent_session`` from a
derived ``RunConfig``). At most ``max_running`` children run at once per root; the others
wait (their ``subagent_update`` says ``queued``, their ``task`` call's progress too). The
root session's file records each child (a ``subagent`` entry at the start and at the end,
with its usage, which ``usage_totals`` adds to the root's totals); each child has its own
file whose header names the parent.

Listeners (``subscribe``) get every child event (``ChildEvent``: the child's session event
with its ids) so each front end can show the child live; the root's own listeners get a
``subagent_update`` per change. Aborting the root's run (its abort signal reaches the
``task`` calls) aborts every child; ``stop(child_id)`` stops one, and its ``task`` call
returns "cancelled" while the run goes on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from inspect import isawaitable
from typing import Any, Literal, Protocol

from ..agent.types import AgentToolResult, MaybeAwaitable, ToolUpdateCallback
from ..ai import AbortSignal, AssistantMessage, TextContent
from ..sessions.agent_session import AgentSession
from ..sessions.events import SessionEvent, SubagentUpdateEvent
from ..sessions.paths import uuid7
from ..sessions.usage import SUBAGENT_ENTRY_TYPE
from ..tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, truncate_head
from .definitions import AgentCatalog, AgentDefinition

log = logging.getLogger(__name__)

MAX_RUNNING = 4
ChildState = Literal["queued", "running", "completed", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
CANCELLED_TEXT = "cancelled by the user"


@dataclass(frozen=True, slots=True)
class ChildSpec:
    """What the factory builds a child from."""

    child_id: str
    parent_id: str
    tool_call_id: str
    agent: AgentDefinition
    description: str
    cwd: str | None = None
    """The child's own working directory (its worktree), ``None``: the parent's workspace."""


class ChildFactory(Protocol):
    def __call__(self, spec: ChildSpec) -> AgentSession: ...


class WorktreeHook(Protocol):
    """Worktree isolation (``worktrees.py``): prepare before the child, finish after."""

    async def start(self, spec: ChildSpec) -> str: ...

    async def finish(self, spec: ChildSpec, path: str, *, apply: bool = True) -> str: ...


@dataclass(slots=True)
class ChildEvent:
    """One event of a child session, for the front ends that show children live."""

    child_id: str
    parent_id: str
    tool_call_id: str
    agent_name: str
    event: SessionEvent


ChildListener = Callable[[ChildEvent], MaybeAwaitable[None]]


@dataclass
class Child:
    """A child while it is known to the runner (queued, running, or finished this process)."""

    spec: ChildSpec
    state: ChildState = "queued"
    session: AgentSession | None = None
    stop_requested: bool = False
    turns: int = 0
    last_activity: str = ""
    usage: dict[str, Any] = field(default_factory=dict)
    worktree: str | None = None
    max_turns_hit: bool = False

    @property
    def child_id(self) -> str:
        return self.spec.child_id


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    text: str
    is_error: bool
    details: dict[str, Any]


class Subagents:
    """The ``task`` children of one root session."""

    def __init__(
        self,
        root: AgentSession,
        factory: ChildFactory,
        catalog: Callable[[], AgentCatalog],
        *,
        max_running: int = MAX_RUNNING,
        worktrees: WorktreeHook | None = None,
    ) -> None:
        self.root = root
        self.factory = factory
        self.catalog = catalog
        self.worktrees = worktrees
        self.max_running = max_running
        self._slots = asyncio.Semaphore(max_running)
        self._children: dict[str, Child] = {}
        self._listeners: dict[object, ChildListener] = {}

    # ------------------------------------------------------------------ listeners / state

    def subscribe(self, listener: ChildListener) -> Callable[[], None]:
        token = object()
        self._listeners[token] = listener
        return lambda: self._listeners.pop(token, None) and None

    def children(self) -> list[Child]:
        return list(self._children.values())

    def get(self, child_id: str) -> Child | None:
        return self._children.get(child_id)

    def running(self) -> list[Child]:
        return [c for c in self._children.values() if c.state in ("queued", "running")]

    def stop(self, child_id: str) -> bool:
        """Stop one child: its ``task`` call returns "cancelled", the root's run goes on."""
        child = self._children.get(child_id)
        if child is None or child.state in TERMINAL:
            return False
        child.stop_requested = True
        if child.session is not None:
            child.session.abort()
        return True

    def abort_all(self) -> None:
        """Abort every child (the root is being aborted)."""
        for child in self.running():
            self.stop(child.child_id)

    async def wait_idle(self) -> None:
        """Until no child runs (after ``abort_all``)."""
        while True:
            sessions = [c.session for c in self.running() if c.session is not None]
            if not sessions and not self.running():
                return
            if sessions:
                await asyncio.gather(*(s.wait_for_idle() for s in sessions))
            await asyncio.sleep(0)

    # ------------------------------------------------------------------ one task call

    async def run_task(
        self,
        tool_call_id: str,
        agent_name: str,
        description: str,
        prompt: str,
        *,
        isolation: str | None = None,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> TaskOutcome:
        catalog = self.catalog()
        definition = catalog.get(agent_name)
        if definition is None:
            names = ", ".join(catalog.names())
            return TaskOutcome(f'Unknown agent "{agent_name}". Available: {names}', True, {})
        spec = ChildSpec(
            child_id=uuid7(),
            parent_id=self.root.session_id,
            tool_call_id=tool_call_id,
            agent=definition,
            description=description,
        )
        child = Child(spec)
        self._children[spec.child_id] = child
        remove = signal.add_callback(lambda: self.stop(spec.child_id)) if signal else None
        try:
            return await self._run(child, prompt, isolation, signal, on_update)
        finally:
            if remove is not None:
                remove()

    async def _run(
        self,
        child: Child,
        prompt: str,
        isolation: str | None,
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> TaskOutcome:
        spec = child.spec
        self.root.record_custom(SUBAGENT_ENTRY_TYPE, self._record(child))
        if self._slots.locked():
            await self._announce(child)  # queued: shown waiting
            await self._update(child, on_update, "queued: waiting for a free slot")
        async with self._slots:
            if child.stop_requested or (signal is not None and signal.aborted):
                return await self._end(child, "cancelled", CANCELLED_TEXT, on_update)
            wants_worktree = (isolation or spec.agent.isolation) == "worktree"
            if wants_worktree:
                if self.worktrees is None:
                    return await self._end(
                        child, "failed", "worktree isolation is not available here", on_update
                    )
                try:
                    child.worktree = await self.worktrees.start(spec)
                except Exception as exc:
                    return await self._end(child, "failed", f"worktree: {exc}", on_update)
                spec = ChildSpec(
                    spec.child_id,
                    spec.parent_id,
                    spec.tool_call_id,
                    spec.agent,
                    spec.description,
                    cwd=child.worktree,
                )
                child.spec = spec
            try:
                session = self.factory(spec)
            except Exception as exc:
                log.exception("could not start the %s child", spec.agent.name)
                return await self._end(child, "failed", f"could not start: {exc}", on_update)
            child.session = session
            child.state = "running"
            await self._announce(child)
            unsubscribe = session.subscribe(lambda event: self._on_child_event(child, event))
            try:
                await self._update(child, on_update, "started")
                if _stopped(child):
                    session.abort()
                else:
                    session.prompt(prompt, expand=False)
                    await session.wait_for_idle()
            finally:
                unsubscribe()
            return await self._finish(child, on_update)

    async def _finish(self, child: Child, on_update: ToolUpdateCallback | None) -> TaskOutcome:
        session = child.session
        assert session is not None
        last = _last_assistant(session)
        text = _text_of(last) if last is not None else ""
        child.usage = _usage(session, child.turns)
        close = getattr(session, "aclose", None)
        try:
            if close is not None:
                await close()
            kill = getattr(session, "kill_processes", None)
            if kill is not None:
                kill()
        finally:
            session.close()
        state: ChildState
        if child.max_turns_hit and not child.stop_requested:
            limit = child.spec.agent.max_turns
            state, body = (
                "completed",
                (_last_text(session) or "(no text)")
                + f"\n\n(stopped after {limit} turns: maxTurns)",
            )
        elif child.stop_requested or (last is not None and last.stop_reason == "aborted"):
            state = "cancelled"
            body = CANCELLED_TEXT + (f"\n\nPartial output:\n{text}" if text.strip() else "")
        elif last is None or last.stop_reason == "error":
            error = last.error_message if last is not None else "the child gave no answer"
            state, body = "failed", f"The {child.spec.agent.name} agent failed: {error}"
            if text.strip():
                body += f"\n\nPartial output:\n{text}"
        else:
            state, body = "completed", text or "(no text)"
        note = ""
        if child.worktree is not None and self.worktrees is not None:
            try:
                note = await self.worktrees.finish(
                    child.spec, child.worktree, apply=state == "completed"
                )
            except Exception as exc:
                log.exception("bringing back the worktree of %s failed", child.child_id)
                note = f"Its worktree is kept at {child.worktree}: {exc}"
        return await self._end(child, state, body, on_update, note=note)

    async def _end(
        self,
        child: Child,
        state: ChildState,
        text: str,
        on_update: ToolUpdateCallback | None,
        *,
        note: str = "",
    ) -> TaskOutcome:
        child.state = state
        if child.session is not None or state != "cancelled":
            await self._announce(child)  # the terminal state (a child never announced: too)
        self.root.record_custom(SUBAGENT_ENTRY_TYPE, self._record(child))
        cut = truncate_head(text, max_lines=DEFAULT_MAX_LINES, max_bytes=DEFAULT_MAX_BYTES)
        body = cut.content
        if cut.truncated:
            body += (
                f"\n\n[output cut at {cut.output_lines} of {cut.total_lines} lines; the whole "
                f"answer is in session {child.child_id}]"
            )
        if note:
            body += f"\n\n{note}"
        body += "\n\n" + summary_line(child)
        details = {
            "childSessionId": child.child_id,
            "agent": child.spec.agent.name,
            "state": state,
            "usage": child.usage or None,
            "worktree": child.worktree,
        }
        return TaskOutcome(body, state != "completed", details)

    # ------------------------------------------------------------------ events

    def _record(self, child: Child) -> dict[str, Any]:
        data: dict[str, Any] = {
            "childSessionId": child.child_id,
            "toolCallId": child.spec.tool_call_id,
            "agent": child.spec.agent.name,
            "description": child.spec.description,
            "state": child.state,
        }
        if child.state in TERMINAL and child.usage:
            data["usage"] = child.usage
        if child.worktree:
            data["worktree"] = child.worktree
        return data

    async def _announce(self, child: Child) -> None:
        await self.root.publish(
            SubagentUpdateEvent(
                child_session_id=child.child_id,
                tool_call_id=child.spec.tool_call_id,
                agent_name=child.spec.agent.name,
                description=child.spec.description,
                state=child.state,
                usage=child.usage or None,
                worktree=child.worktree,
            )
        )

    async def _update(self, child: Child, on_update: ToolUpdateCallback | None, text: str) -> None:
        child.last_activity = text
        if on_update is None:
            return
        result = on_update(
            AgentToolResult(
                content=[TextContent(text=f"[{child.spec.agent.name}] {text}")],
                details={"childSessionId": child.child_id, "state": child.state},
            )
        )
        if result is not None and isawaitable(result):
            await result

    async def _on_child_event(self, child: Child, event: SessionEvent) -> None:
        if event.type == "turn_end" and not child.max_turns_hit:
            child.turns += 1
            limit = child.spec.agent.max_turns
            if limit is not None and child.turns >= limit and child.session is not None:
                child.max_turns_hit = True
                child.session.abort()
        wrapped = ChildEvent(
            child.child_id,
            child.spec.parent_id,
            child.spec.tool_call_id,
            child.spec.agent.name,
            event,
        )
        for listener in tuple(self._listeners.values()):
            try:
                result = listener(wrapped)
                if result is not None and isawaitable(result):
                    await result
            except Exception:
                log.exception("subagent listener failed on %s", event.type)


def _last_assistant(session: AgentSession) -> AssistantMessage | None:
    return session.last_assistant()


def _stopped(child: Child) -> bool:
    return child.stop_requested


def _last_text(session: AgentSession) -> str:
    """The latest assistant text of the child (its answer so far)."""
    for message in reversed(session.messages):
        if isinstance(message, AssistantMessage) and _text_of(message):
            return _text_of(message)
    return ""


def _text_of(message: AssistantMessage) -> str:
    return "".join(b.text for b in message.content if isinstance(b, TextContent)).strip()


def _usage(session: AgentSession, turns: int) -> dict[str, Any]:
    totals = session.usage_totals()
    return {
        "turns": turns,
        "input": totals.input,
        "output": totals.output,
        "cacheRead": totals.cache_read,
        "cacheWrite": totals.cache_write,
        "reasoning": totals.reasoning,
        "cost": round(totals.cost, 6),
    }


def summary_line(child: Child) -> str:
    """``[task scout: 3 turns · 1200/340 tokens · $0.0042 · session 0193…]``."""
    u = child.usage or {}
    return (
        f"[task {child.spec.agent.name}: {u.get('turns', 0)} turns · "
        f"{u.get('input', 0)}/{u.get('output', 0)} tokens · ${u.get('cost', 0.0):.4f} · "
        f"session {child.child_id}]"
    )
