"""What ``pi-lsp run`` prints: the streamed answer, tool calls and results, usage and cost
(``TerminalPrinter``), or the ``pi/event`` stream as JSON lines (``JsonPrinter``); and the
terminal y/N question before a ``bash`` command (``BashPermission``).

Part of the CLI layer (above ``lsp/``): uses ``pi_lsp.wire`` for the wire mapping, never ``lsp/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
from typing import TYPE_CHECKING, Any, TextIO

from ..agent.messages import CustomMessage
from ..agent.types import (
    BeforeToolCall,
    BeforeToolCallContext,
    BeforeToolCallResult,
    MessageEndEvent,
    MessageUpdateEvent,
    ToolExecutionStartEvent,
)
from ..ai import AbortSignal, AssistantMessage, TextContent, ToolResultMessage, Usage
from ..ai.abort import done_before_abort
from ..ai.events import RetryInfo, TextDeltaEvent, ThinkingDeltaEvent
from ..runtime.permissions import Answer, BashRules, Question
from ..sessions.events import (
    AutoRetryStartEvent,
    CompactionEndEvent,
    CompactionStartEvent,
    ProviderRetryEvent,
    SessionEvent,
    SessionSaveEvent,
    SubagentUpdateEvent,
    TodoUpdateEvent,
)
from ..tools.todo import render_todos
from ..wire import event_wire
from .terminal_status import TerminalStatus

if TYPE_CHECKING:
    from ..runtime import ChildEvent

DENIED = "The user denied running this command."
MAX_ARG_CHARS = 160
RESULT_PREVIEW_LINES = 6
DIFF_PREVIEW_LINES = 14


def _short(text: str, limit: int = MAX_ARG_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def describe_call(name: str, args: Any) -> str:
    """A one-line view of a tool call: ``bash $ cmd``, ``read a.py``, ``grep "x" src``."""
    if not isinstance(args, dict):
        return name
    if name == "bash":
        return f"bash $ {_short(str(args.get('command', '')))}"
    if name in ("read", "write", "edit", "ls") and "path" in args:
        extra = ""
        if name == "read" and (args.get("offset") or args.get("limit")):
            extra = f" (offset {args.get('offset') or 1}, limit {args.get('limit') or '-'})"
        return f"{name} {args['path']}{extra}"
    if name in ("grep", "find"):
        where = f" in {args['path']}" if args.get("path") else ""
        return f"{name} {json.dumps(args.get('pattern', ''))}{where}"
    return f"{name} {_short(json.dumps(args, ensure_ascii=False))}"


class TerminalPrinter:
    """Human-readable output: text as it streams, tool lines, a closing usage line."""

    def __init__(self, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> None:
        self.out = out
        self.err = err
        self.color = out.isatty()
        self._at_line_start = True
        self._in_thinking = False
        self.usage = Usage()
        self.errors: list[str] = []
        self.children = 0
        self.children_tokens = 0
        self.children_cost = 0.0

    def _write(self, text: str) -> None:
        if text:
            self.out.write(text)
            self._at_line_start = text.endswith("\n")
            self.out.flush()

    def _line(self, text: str) -> None:
        if not self._at_line_start:
            self._write("\n")
        self._write(text + "\n")

    def _dim(self, text: str) -> str:
        return f"\x1b[2m{text}\x1b[0m" if self.color else text

    def notice(self, text: str) -> None:
        """A line about the run itself (not the model's output): to stderr."""
        if not self._at_line_start:
            self._write("\n")
        self.err.write(text + "\n")
        self.err.flush()

    def on_retry(self, info: RetryInfo | ProviderRetryEvent) -> None:
        self.notice(
            f"[retry {info.attempt} in {info.delay_ms / 1000:g}s: {_short(info.error_message)}]"
        )

    def __call__(self, event: SessionEvent) -> None:
        if isinstance(event, ProviderRetryEvent):
            self.on_retry(event)
        elif isinstance(event, MessageUpdateEvent):
            inner = event.assistant_message_event
            if isinstance(inner, TextDeltaEvent):
                if self._in_thinking:
                    self._in_thinking = False
                    self._line("")
                self._write(inner.delta)
            elif isinstance(inner, ThinkingDeltaEvent) and self.color:
                self._in_thinking = True
                self._write(self._dim(inner.delta))
        elif isinstance(event, MessageEndEvent):
            if isinstance(event.message, AssistantMessage):
                self._finish_assistant(event.message)
            elif isinstance(event.message, ToolResultMessage):
                self.tool_result(event.message)
            elif isinstance(event.message, CustomMessage) and event.message.display:
                self.told(event.message)
        elif isinstance(event, ToolExecutionStartEvent):
            self._line("→ " + describe_call(event.tool_name, event.args))
        elif isinstance(event, CompactionStartEvent):
            self.notice(f"[compacting the context ({event.reason})…]")
        elif isinstance(event, CompactionEndEvent):
            if event.error_message:
                self.notice(f"[{event.error_message}]")
            elif not event.aborted:
                self.notice(f"[compacted: ~{event.tokens_before} → ~{event.tokens_after} tokens]")
        elif isinstance(event, SessionSaveEvent):
            if not event.ok:
                self.notice(f"[warning: the session cannot be saved: {event.error_message}]")
        elif isinstance(event, TodoUpdateEvent):
            done = sum(item.status == "completed" for item in event.items)
            lines = render_todos(event.items).splitlines()
            self._line(f"Todo ({done}/{len(event.items)}):" if lines else "Todo: (cleared)")
            for line in lines:
                self._line("  " + line)
        elif isinstance(event, SubagentUpdateEvent):
            self.subagent(event)
        elif isinstance(event, AutoRetryStartEvent):
            self.notice(
                f"[retry {event.attempt}/{event.max_attempts} in {event.delay_ms / 1000:g}s: "
                f"{_short(event.error_message)}]"
            )

    def child(self, wrapped: ChildEvent) -> None:
        """A ``task`` child's event: its tool calls and results, indented and named by the
        child's agent (its text is not streamed: the parent gets it as the task's result)."""
        event = wrapped.event
        who = f"  [{wrapped.agent_name}] "
        if isinstance(event, ToolExecutionStartEvent):
            self._line(who + "→ " + describe_call(event.tool_name, event.args))
        elif isinstance(event, MessageEndEvent) and isinstance(event.message, ToolResultMessage):
            text = "".join(b.text for b in event.message.content if isinstance(b, TextContent))
            mark = "✗" if event.message.is_error else "✓"
            first = (text.strip().splitlines() or ["(no output)"])[0]
            self._line(f"{who}  {mark} {first[:200]}")
        elif (
            isinstance(event, MessageEndEvent)
            and isinstance(event.message, AssistantMessage)
            and event.message.stop_reason == "error"
        ):
            self._line(f"{who}error: {event.message.error_message or 'the request failed'}")

    def subagent(self, event: SubagentUpdateEvent) -> None:
        """A child started, waits, or ended (with what it spent, added to the summary)."""
        who = f"  [{event.agent_name}] "
        if event.state == "running":
            self._line(f"{who}started: {_short(event.description, 100)}")
        elif event.state == "queued":
            self._line(f"{who}queued (4 agents already running): {_short(event.description, 80)}")
        else:
            u = event.usage or {}
            self.children_cost += float(u.get("cost", 0.0))
            self.children_tokens += int(u.get("input", 0)) + int(u.get("output", 0))
            self.children += 1
            self._line(
                f"{who}{event.state} · {u.get('turns', 0)} turns · "
                f"{u.get('input', 0)}/{u.get('output', 0)} tokens · ${u.get('cost', 0.0):.4f}"
            )

    def told(self, message: CustomMessage) -> None:
        """A note the product gave the model (a review note): one line, not the user's words
        (docs/protocol.md#review-hunks-keep-or-undo-each-change-91)."""
        details = message.details if isinstance(message.details, dict) else {}
        summary = details.get("summary")
        if not isinstance(summary, str) or not summary:
            content = message.content
            text = content if isinstance(content, str) else ""
            summary = _short(text.splitlines()[0] if text else message.custom_type)
        self.notice(f"[pi was told: {summary}]")

    def tool_result(self, message: ToolResultMessage) -> None:
        text = "".join(b.text for b in message.content if isinstance(b, TextContent))
        mark = "✗" if message.is_error else "✓"
        details = message.details if isinstance(message.details, dict) else {}
        diff = details.get("diff")
        if not message.is_error and isinstance(diff, str) and diff.strip():
            lines = diff.rstrip("\n").splitlines()
            self._line(f"  {mark} {_short(text.splitlines()[0] if text else 'edited', 120)}")
            for line in lines[:DIFF_PREVIEW_LINES]:
                self._line("    " + line)
            if len(lines) > DIFF_PREVIEW_LINES:
                self._line(f"    … {len(lines) - DIFF_PREVIEW_LINES} more diff lines")
            return
        lines = text.rstrip("\n").splitlines() or ["(no output)"]
        if message.tool_name == "read" and not message.is_error:
            self._line(f"  {mark} {len(lines)} lines")
            return
        self._line(f"  {mark} {lines[0][:200]}")
        for line in lines[1:RESULT_PREVIEW_LINES]:
            self._line("    " + line[:200])
        if len(lines) > RESULT_PREVIEW_LINES:
            self._line(f"    … {len(lines) - RESULT_PREVIEW_LINES} more lines")

    def _finish_assistant(self, message: AssistantMessage) -> None:
        self._in_thinking = False
        u, total = message.usage, self.usage
        total.input += u.input
        total.output += u.output
        total.cache_read += u.cache_read
        total.cache_write += u.cache_write
        if u.reasoning is not None:
            total.reasoning = (total.reasoning or 0) + u.reasoning
        total.cost.total += u.cost.total
        if not self._at_line_start:
            self._write("\n")
        if message.stop_reason == "error":
            self.errors.append(message.error_message or "unknown error")
            self.notice(f"error: {message.error_message or 'the model request failed'}")
        elif message.stop_reason == "aborted":
            self.notice("[aborted]")

    def summary(self) -> str:
        u = self.usage
        out = f"{u.output:,} out"
        if u.reasoning:
            out += f" ({u.reasoning:,} reasoning)"
        parts = [f"tokens: {u.input:,} in · {out}"]
        if u.cache_read or u.cache_write:
            parts.append(f"cache {u.cache_read:,} read · {u.cache_write:,} write")
        parts.append(f"cost ${u.cost.total:.4f}")
        if self.children:
            parts.append(
                f"subagents ({self.children}): {self.children_tokens:,} tokens · "
                f"${self.children_cost:.4f} more"
            )
        return " · ".join(parts)


class JsonPrinter:
    """``{"sessionId", "seq", "event"}`` per line, as the LSP's ``pi/event`` notifications."""

    def __init__(self, session_id: str, out: TextIO = sys.stdout) -> None:
        self.session_id = session_id
        self.out = out
        self.seq = 0
        self._child_seq: dict[str, int] = {}

    def emit(self, event: Any) -> None:
        wire = event_wire(event)
        if wire is None:
            return
        self.seq += 1
        line = json.dumps(
            {"sessionId": self.session_id, "seq": self.seq, "event": wire},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        self.out.write(line + "\n")
        self.out.flush()

    def __call__(self, event: SessionEvent) -> None:
        self.emit(event)

    def child(self, wrapped: ChildEvent) -> None:
        """A ``task`` child's event: its own line with ``sessionId`` (the child's),
        ``parentSessionId`` and the child's own ``seq``."""
        wire = event_wire(wrapped.event)
        if wire is None:
            return
        seq = self._child_seq.get(wrapped.child_id, 0) + 1
        self._child_seq[wrapped.child_id] = seq
        line = json.dumps(
            {
                "sessionId": wrapped.child_id,
                "parentSessionId": wrapped.parent_id,
                "seq": seq,
                "event": wire,
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )
        self.out.write(line + "\n")
        self.out.flush()

    def on_retry(self, info: RetryInfo | ProviderRetryEvent) -> None:
        self.emit(info)


class BashPermission:
    """``before_tool_call``: ask y/N/a on the terminal before each ``bash`` command.

    ``--yes`` (or the scripted demo) allows everything; a non-interactive stdin without it
    denies, saying so on stderr. Questions are asked one at a time; an abort counts as no."""

    def __init__(
        self,
        *,
        allow_all: bool,
        interactive: bool,
        err: TextIO = sys.stderr,
        status: TerminalStatus | None = None,
    ) -> None:
        self.allow_all = allow_all
        self.interactive = interactive
        self.err = err
        self.status = status
        """Title and bell while a question waits (``--no-terminal-status``: none)."""
        self._lock = asyncio.Lock()
        self.rules = BashRules(ask=self._ask_bash, denied=DENIED, one_at_a_time=True)
        """The one set of bash rules (``runtime/permissions.py``), asking on the terminal."""

    async def __call__(
        self, ctx: BeforeToolCallContext, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        return await self._check(ctx, signal, self.rules)

    async def _check(
        self, ctx: BeforeToolCallContext, signal: AbortSignal | None, rules: BashRules
    ) -> BeforeToolCallResult | None:
        if ctx.tool_call.name != "bash" or self.allow_all:
            return None
        if not self.interactive:
            command = str(ctx.tool_call.arguments.get("command", ""))
            self.err.write(
                f"pi-lsp run: denied `{_short(command, 80)}`: stdin is not a terminal "
                "(pass --yes to allow shell commands)\n"
            )
            self.err.flush()
            return BeforeToolCallResult(
                block=True,
                reason="The user did not allow this command (non-interactive run without --yes).",
            )
        return await rules.before_tool_call(ctx, signal)

    def for_child(self, agent: str, child_id: str) -> BeforeToolCall:
        """A ``task`` child's check: the same rules and answers, asked (or denied without a
        terminal) at once, the question naming the child's agent."""
        rules = self.rules.for_child(agent, child_id)

        async def check(
            ctx: BeforeToolCallContext, signal: AbortSignal | None
        ) -> BeforeToolCallResult | None:
            return await self._check(ctx, signal, rules)

        return check

    async def _ask_bash(self, question: Question, signal: AbortSignal | None) -> Answer:
        """The terminal's ``Ask`` for ``bash``: y/N, and a=always (every later command of this
        run) for a command shown whole."""
        always = "" if question.cut else "/a=always"
        who = f"[{question.agent_name}] " if question.agent_name else ""
        answer = await self.ask_line(f"\n{who}Run `{question.shown}`? [y/N{always}] ", signal)
        if answer in ("a", "always") and not question.cut:
            return Answer("allowSession", every_call=True)
        if answer in ("y", "yes"):
            return Answer("allowOnce")
        return Answer("deny")

    async def ask_line(self, question: str, signal: AbortSignal | None) -> str:
        """One question on the terminal (after any other one), the answer lower-cased."""
        async with self._lock:
            return await self._ask(question, signal)

    async def _ask(self, question: str, signal: AbortSignal | None) -> str:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[str] = loop.create_future()

        def read() -> None:  # a daemon thread: an unanswered question never blocks exit
            try:
                line = sys.stdin.readline()
            except (OSError, ValueError):
                line = ""
            with contextlib.suppress(RuntimeError):  # the loop may be gone by now
                loop.call_soon_threadsafe(_resolve, answer, line.strip().lower())

        self.err.write(question)
        self.err.flush()
        if self.status is not None:
            self.status.waiting()
        threading.Thread(target=read, daemon=True, name="pi-lsp-ask").start()
        try:
            return answer.result() if await done_before_abort(answer, signal) else "n"
        finally:
            if self.status is not None:
                self.status.running()


def _resolve(future: asyncio.Future[str], value: str) -> None:
    if not future.done():
        future.set_result(value)
