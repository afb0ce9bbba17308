"""Shared fixtures for the agent tests: an event recorder, small tools, config factories.

Everything synchronises on events (``asyncio.Event`` gates), never on sleeps.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel

from pi_lsp.agent import (
    AgentContext,
    AgentEvent,
    AgentLoopConfig,
    AgentMessage,
    AgentTool,
    AgentToolResult,
    convert_to_llm_default,
)
from pi_lsp.agent.types import ToolExecutionMode, ToolUpdateCallback
from pi_lsp.ai import (
    AbortSignal,
    AssistantMessage,
    AssistantMessageEvent,
    AssistantMessageEventStream,
    Context,
    Model,
    StreamOptions,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from pi_lsp.ai.providers.faux import FAUX_MODEL


def user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)])


def text_of(message: Any) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(getattr(b, "text", "") for b in content)


def label(event: AgentEvent) -> str:
    """A compact name for an event, as the reference traces write them."""
    kind = event.type
    if kind in ("message_start", "message_update", "message_end"):
        message = event.message  # type: ignore[union-attr]
        return f"{kind}({message.role})"
    if kind in ("tool_execution_start", "tool_execution_update", "tool_execution_end"):
        return f"{kind}({event.tool_name})"  # type: ignore[union-attr]
    if kind == "turn_end":
        return f"turn_end({len(event.tool_results)})"  # type: ignore[union-attr]
    return kind


class Recorder:
    """An event sink (sync and async forms) that keeps every event."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []
        self.hooks: list[Callable[[AgentEvent], object]] = []

    def __call__(self, event: AgentEvent) -> None:
        self.events.append(event)
        for hook in self.hooks:
            hook(event)

    async def listener(self, event: AgentEvent, signal: AbortSignal | None) -> None:
        self(event)

    def on(self, predicate: Callable[[AgentEvent], bool]) -> asyncio.Event:
        """An ``asyncio.Event`` set the first time an event matches ``predicate``."""
        flag = asyncio.Event()

        def hook(event: AgentEvent) -> None:
            if predicate(event):
                flag.set()

        self.hooks.append(hook)
        return flag

    @property
    def types(self) -> list[str]:
        return [e.type for e in self.events]

    def labels(self, *, updates: bool = False) -> list[str]:
        return [label(e) for e in self.events if updates or e.type != "message_update"]

    def of(self, kind: str) -> list[Any]:
        return [e for e in self.events if e.type == kind]

    def ended_messages(self) -> list[AgentMessage]:
        return [e.message for e in self.of("message_end")]


def squash_updates(labels: Iterable[str]) -> list[str]:
    """Collapse runs of ``message_update(x)`` into one ``message_update*``."""
    out: list[str] = []
    for item in labels:
        if item.startswith("message_update"):
            if out and out[-1] == "message_update*":
                continue
            item = "message_update*"
        out.append(item)
    return out


# ---------------------------------------------------------------------------------- tools


class EchoParams(BaseModel):
    text: str = ""
    n: int = 1


class EchoTool(AgentTool[EchoParams]):
    """Returns ``text * n``; records every execution."""

    name = "echo"
    label = "Echo"
    description = "Echo the text n times."
    parameters = EchoParams

    def __init__(self, *, terminate: bool | None = None) -> None:
        self.terminate = terminate
        self.calls: list[tuple[str, EchoParams]] = []

    async def execute(
        self,
        tool_call_id: str,
        params: EchoParams,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        self.calls.append((tool_call_id, params))
        return AgentToolResult(
            content=[TextContent(text=params.text * params.n)],
            details={"n": params.n},
            terminate=self.terminate,
        )


class FnParams(BaseModel):
    key: str = ""


class FnTool(AgentTool[FnParams]):
    """A tool whose behaviour is an async function of (call id, params, signal, on_update)."""

    name = "fn"
    label = "Fn"
    description = "A scripted tool."
    parameters = FnParams

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    async def execute(
        self,
        tool_call_id: str,
        params: FnParams,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        result: AgentToolResult = await self.fn(tool_call_id, params, signal, on_update)
        return result


def fn_tool(name: str, fn: Callable[..., Any], mode: ToolExecutionMode | None = None) -> FnTool:
    """A ``FnTool`` subclass per name (tool definitions are cached per class)."""
    cls = type(f"FnTool_{name}", (FnTool,), {"name": name, "execution_mode": mode})
    return cls(fn)


def echo_tool(
    name: str = "echo", *, terminate: bool | None = None, mode: ToolExecutionMode | None = None
) -> EchoTool:
    cls = type(f"EchoTool_{name}", (EchoTool,), {"name": name, "execution_mode": mode})
    return cls(terminate=terminate)


def ok(text: str, **kw: Any) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text=text)], details={}, **kw)


# ----------------------------------------------------------------------------- configs


def config(**kw: Any) -> AgentLoopConfig:
    kw.setdefault("model", FAUX_MODEL)
    kw.setdefault("convert_to_llm", convert_to_llm_default)
    return AgentLoopConfig(**kw)


def context(
    *tools: AgentTool[Any], messages: Sequence[AgentMessage] = (), system_prompt: str = "sys"
) -> AgentContext:
    return AgentContext(system_prompt, list(messages), list(tools))


class ScriptedStream:
    """A ``stream_fn`` that plays hand-written event lists (for shapes faux cannot make).

    Each script is a function ``(partial) -> list[event]`` given a fresh mutable assistant
    message; the stream is fed synchronously and ended with the last message.
    """

    def __init__(self, *scripts: Callable[[AssistantMessage], list[AssistantMessageEvent]]):
        self.scripts = list(scripts)
        self.calls: list[Context] = []
        self.options: list[StreamOptions] = []

    def __call__(
        self, model: Model, ctx: Context, options: StreamOptions
    ) -> AssistantMessageEventStream:
        self.calls.append(ctx)
        self.options.append(options)
        script = self.scripts[len(self.calls) - 1]
        out = AssistantMessageEventStream()
        partial = AssistantMessage(api=model.api, provider=model.provider, model=model.id)
        final: AssistantMessage = partial
        for event in script(partial):
            out.push(event)
            if event.type == "done":
                final = event.message
            elif event.type == "error":
                final = event.error
        out.end(final)
        return out


def results_text(messages: Sequence[AgentMessage]) -> list[str]:
    return [text_of(m) for m in messages if isinstance(m, ToolResultMessage)]
