"""The ``faux`` provider: scripted assistant turns, streamed like a real provider.

A test double shipped in the package (pi-ai has one too) for unit tests, demos and editor
end-to-end tests without keys. A script is a list of responses; each is streamed as
``start``, chunked text / thinking / tool-call deltas (tool-call JSON parsed partially as it
grows), then ``done`` or ``error``. Responses may be factories (sync or async) that see the
request context, which lets a test block a turn on an ``asyncio.Event``.

Scripts can come from JSON (``FauxScript.load(path)``; camelCase keys)::

    {"chunkSize": 8, "delayMs": 20, "responses": [
        {"content": [{"type": "text", "text": "Reading it."},
                     {"type": "toolCall", "name": "read", "arguments": {"path": "a.py"}}]},
        {"content": [{"type": "text", "text": "Done."}]},
        {"errorMessage": "500 upstream exploded", "beforeStart": true}]}

When the script is exhausted the stream ends with ``No more faux responses queued``.
Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Literal, TypeAlias

import anyio
from pydantic import Field

from ..cost import calculate_cost, estimate_tokens
from ..event_stream import AssistantMessageEventStream
from ..events import (
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ..grow import append_to_field
from ..json_parse import StreamingJsonParser
from ..models import FAUX_MODEL as FAUX_MODEL  # re-exported: the model this provider plays
from ..options import StreamOptions
from ..registry import register_provider
from ..types import (
    AssistantMessage,
    Context,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    WireModel,
    text_of,
)

EXHAUSTED_MESSAGE = "No more faux responses queued"
ABORTED_MESSAGE = "Request was aborted"


class FauxBlock(WireModel):
    type: Literal["text", "thinking", "toolCall"]
    text: str | None = None
    thinking: str | None = None
    id: str | None = None
    name: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)


class FauxResponse(WireModel):
    """One scripted assistant reply."""

    content: list[FauxBlock] = Field(default_factory=list)
    stop_reason: StopReason | None = None
    """Defaults to ``toolUse`` when the content has a tool call, else ``stop``."""
    error_message: str | None = None
    """End with ``error`` (after streaming the content) carrying this message."""
    before_start: bool = False
    """With ``error_message``: fail before ``start`` (no content streamed)."""
    usage: Usage | None = None
    chunk_size: int | None = None
    delay_ms: float | None = None
    when: str | None = None
    """Play this response only for a request whose first user message contains this text
    (a ``task`` child's prompt): one script scripts a parent and its parallel children."""

    @classmethod
    def text(cls, text: str, **kw: Any) -> FauxResponse:
        return cls(content=[FauxBlock(type="text", text=text)], **kw)

    @classmethod
    def tool_calls(
        cls, *calls: tuple[str, dict[str, Any]], text: str | None = None, **kw: Any
    ) -> FauxResponse:
        blocks = [FauxBlock(type="text", text=text)] if text else []
        blocks += [FauxBlock(type="toolCall", name=n, arguments=a) for n, a in calls]
        return cls(content=blocks, **kw)

    @classmethod
    def error(cls, message: str, *, before_start: bool = True, **kw: Any) -> FauxResponse:
        return cls(error_message=message, before_start=before_start, **kw)


FauxFactory: TypeAlias = Callable[
    [Context, StreamOptions], "FauxResponse | Awaitable[FauxResponse]"
]
FauxEntry: TypeAlias = "FauxResponse | FauxFactory"


class FauxScript(WireModel):
    responses: list[FauxResponse] = Field(default_factory=list)
    chunk_size: int = 4
    delay_ms: float = 0.0

    @classmethod
    def load(cls, path: str | Path) -> FauxScript:
        return cls.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))


class FauxProvider:
    """Plays scripted responses in order. ``stream`` is a drop-in ``stream_fn``."""

    def __init__(
        self,
        responses: Sequence[FauxEntry] | FauxScript = (),
        *,
        chunk_size: int = 4,
        delay_ms: float = 0.0,
    ) -> None:
        if isinstance(responses, FauxScript):
            chunk_size, delay_ms = responses.chunk_size, responses.delay_ms
            responses = list(responses.responses)
        self.responses: list[FauxEntry] = list(responses)
        self.chunk_size = max(1, chunk_size)
        self.delay_ms = delay_ms
        self.calls: list[Context] = []
        self.options: list[StreamOptions] = []
        self.models: list[Model] = []
        self._next = 0
        self._played: set[int] = set()
        self._tool_ids = 0

    def push(self, *entries: FauxEntry) -> None:
        self.responses.extend(entries)

    @property
    def remaining(self) -> int:
        if self._keyed:
            return len(self.responses) - len(self._played)
        return len(self.responses) - self._next

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AssistantMessageEventStream:
        options = options or StreamOptions()
        out = AssistantMessageEventStream()
        self.calls.append(context)
        self.options.append(options)
        self.models.append(model)
        entry = self._take(context)
        out.attach_task(asyncio.ensure_future(self._play(out, entry, model, context, options)))
        return out

    def _take(self, context: Context) -> FauxEntry | None:
        """The next response for this request: the first unplayed one whose ``when`` is in
        the first user message, else the first unplayed one without ``when``."""
        if not self._keyed:
            entry = self.responses[self._next] if self._next < len(self.responses) else None
            self._next += 1
            return entry
        first = _first_user_text(context)
        fallback: int | None = None
        for i, entry in enumerate(self.responses):
            if i in self._played:
                continue
            when = getattr(entry, "when", None)
            if when is None:
                if fallback is None:
                    fallback = i
                continue
            if when in first:
                self._played.add(i)
                return entry
        if fallback is None:
            return None
        self._played.add(fallback)
        return self.responses[fallback]

    @property
    def _keyed(self) -> bool:
        return any(getattr(e, "when", None) is not None for e in self.responses)

    # ------------------------------------------------------------------ playback

    async def _play(
        self,
        out: AssistantMessageEventStream,
        entry: FauxEntry | None,
        model: Model,
        context: Context,
        options: StreamOptions,
    ) -> None:
        output = AssistantMessage(api=model.api, provider=model.provider, model=model.id)
        signal = options.signal
        try:
            if entry is None:
                self._fail(out, output, EXHAUSTED_MESSAGE)
                return
            response = entry(context, options) if callable(entry) else entry
            if inspect.isawaitable(response):
                response = await response
            assert isinstance(response, FauxResponse)
            if signal is not None and signal.aborted:
                self._fail(out, output, ABORTED_MESSAGE, aborted=True)
                return
            if response.error_message is not None and response.before_start:
                self._fail(out, output, response.error_message)
                return
            output.usage = response.usage or self._estimate_usage(context, response)
            calculate_cost(model, output.usage)
            out.push(StartEvent(output.model_copy(deep=True)))  # a snapshot: see events.py
            chunk = max(1, response.chunk_size or self.chunk_size)
            delay = (response.delay_ms if response.delay_ms is not None else self.delay_ms) / 1000
            for block in response.content:
                if not await self._play_block(out, output, block, chunk, delay, signal):
                    self._fail(out, output, ABORTED_MESSAGE, aborted=True)
                    return
            if response.error_message is not None:
                self._fail(out, output, response.error_message)
                return
            has_calls = any(isinstance(b, ToolCall) for b in output.content)
            reason = response.stop_reason or ("toolUse" if has_calls else "stop")
            output.stop_reason = reason
            if reason in ("error", "aborted"):
                output.error_message = output.error_message or f"faux stop reason: {reason}"
                out.push(ErrorEvent(reason, output))
            else:
                out.push(DoneEvent(reason, output))  # type: ignore[arg-type]
        except Exception as exc:  # the contract: a provider never raises into the loop
            self._fail(out, output, f"faux provider failed: {exc}")
        finally:
            out.end(output)

    @staticmethod
    def _fail(
        out: AssistantMessageEventStream,
        output: AssistantMessage,
        message: str,
        *,
        aborted: bool = False,
    ) -> None:
        output.stop_reason = "aborted" if aborted else "error"
        output.error_message = message
        out.push(ErrorEvent("aborted" if aborted else "error", output))

    async def _pause(self, delay: float, signal: Any) -> bool:
        """Yield (or sleep ``delay``); False when aborted."""
        if delay > 0:
            if signal is None:
                await asyncio.sleep(delay)
            else:
                with anyio.move_on_after(delay):
                    await signal.wait()
        else:
            await asyncio.sleep(0)
        return not (signal is not None and signal.aborted)

    async def _play_block(
        self,
        out: AssistantMessageEventStream,
        output: AssistantMessage,
        block: FauxBlock,
        chunk: int,
        delay: float,
        signal: Any,
    ) -> bool:
        index = len(output.content)
        if block.type == "toolCall":
            self._tool_ids += 1
            call = ToolCall(id=block.id or f"faux_call_{self._tool_ids}", name=block.name or "")
            output.content.append(call)
            out.push(ToolCallStartEvent(index, output))
            raw = json.dumps(block.arguments, separators=(",", ":"))
            parser = StreamingJsonParser()
            for i in range(0, len(raw), chunk):
                if not await self._pause(delay, signal):
                    return False
                piece = raw[i : i + chunk]
                call.arguments = parser.feed(piece)
                out.push(ToolCallDeltaEvent(index, piece, output))
            call.arguments = dict(block.arguments)
            out.push(ToolCallEndEvent(index, call, output))
            return True
        is_text = block.type == "text"
        text = (block.text if is_text else block.thinking) or ""
        content: TextContent | ThinkingContent = (
            TextContent(text="") if is_text else ThinkingContent(thinking="")
        )
        output.content.append(content)
        out.push(TextStartEvent(index, output) if is_text else ThinkingStartEvent(index, output))
        for i in range(0, len(text), chunk):
            if not await self._pause(delay, signal):
                return False
            piece = text[i : i + chunk]
            if isinstance(content, TextContent):
                append_to_field(content, "text", piece)
                out.push(TextDeltaEvent(index, piece, output))
            else:
                append_to_field(content, "thinking", piece)
                out.push(ThinkingDeltaEvent(index, piece, output))
        if isinstance(content, TextContent):
            out.push(TextEndEvent(index, content.text, output))
        else:
            out.push(ThinkingEndEvent(index, content.thinking, output))
        return True

    @staticmethod
    def _estimate_usage(context: Context, response: FauxResponse) -> Usage:
        chars = len(context.system_prompt or "")
        for message in context.messages:
            if message.role == "assistant":
                for block in message.content:
                    if isinstance(block, TextContent):
                        chars += len(block.text)
                    elif isinstance(block, ThinkingContent):
                        chars += len(block.thinking)
                    else:
                        chars += len(block.name) + len(json.dumps(block.arguments))
            else:
                chars += len(text_of(message.content))
        out_chars = sum(
            len(b.text or b.thinking or "") + len(json.dumps(b.arguments)) for b in response.content
        )
        return Usage(input=estimate_tokens(chars), output=estimate_tokens(out_chars))


_default = FauxProvider()


def default_faux() -> FauxProvider:
    """The process-wide faux provider behind ``stream()`` for ``api == "faux"``."""
    return _default


def set_default_faux(provider: FauxProvider) -> None:
    global _default
    _default = provider


def _stream(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    return _default.stream(model, context, options)


register_provider("faux", _stream)


def _first_user_text(context: Context) -> str:
    for message in context.messages:
        if getattr(message, "role", None) == "user":
            content = getattr(message, "content", "")
            if isinstance(content, str):
                return content
            return "".join(getattr(b, "text", "") or "" for b in content)
    return ""
