"""``SSEProviderRun``: the life of one streaming request, shared by the HTTP providers.

Owns the output ``AssistantMessage`` (mutated in place, as pi-ai does), the event stream, the
content-block bookkeeping (start/delta/end events, partial tool-call JSON re-parsed on every
delta) and the contract: once the stream exists nothing raises. Every failure, abort or
provider-mapped error stop ends the stream with one ``error`` event whose message keeps the
partial content. An abort cancels the HTTP read at once (an anyio cancel scope cancelled by
the signal's callback). Subclasses build the request and interpret events.
Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import asyncio
import contextlib
from abc import ABC, abstractmethod
from typing import Any

import anyio
import httpx
from httpx_sse import ServerSentEvent

from ..env_keys import env_key_variable, get_env_api_key
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
from ..key_shapes import wrong_provider_message
from ..options import StreamOptions
from ..types import AssistantMessage, Context, Model, TextContent, ThinkingContent, ToolCall
from ._http import HttpRequest, ProviderError, iter_sse, new_client, redact

ABORTED_MESSAGE = "Request was aborted"


def resolve_api_key(model: Model, options: StreamOptions) -> str | None:
    """``options.api_key`` unless blank, else the environment (``api_key_env`` if named).
    Raises ``ProviderError`` for a key that clearly belongs to another vendor than the
    official endpoint it would go to (``key_shapes``)."""
    if options.api_key and options.api_key.strip():
        key: str | None = options.api_key.strip()
        variable = "the configured API key"
    else:
        key = get_env_api_key(model.provider, options.env, options.api_key_env)
        variable = env_key_variable(model.provider, options.env, options.api_key_env)
    if key is not None:
        wrong = wrong_provider_message(model.provider, model.base_url, key, variable)
        if wrong is not None:
            raise ProviderError(wrong)
    return key


DRAIN_TIMEOUT_S = 1.0
"""How long to keep reading after the final event so the connection can be reused."""


class SSEProviderRun(ABC):
    """One request. Call ``start()`` once; it returns the event stream at once."""

    def __init__(self, model: Model, context: Context, options: StreamOptions) -> None:
        self.model = model
        self.context = context
        self.options = options
        self.out = AssistantMessageEventStream()
        self.output = AssistantMessage(api=model.api, provider=model.provider, model=model.id)
        self.started = False
        self.secrets: tuple[str, ...] = ()
        self._partial_json: dict[int, StreamingJsonParser] = {}
        self._open: set[int] = set()

    def start(self) -> AssistantMessageEventStream:
        self.out.attach_task(asyncio.ensure_future(self._main()))
        return self.out

    # ---------------------------------------------------------------- subclass API

    @abstractmethod
    def build_request(self) -> HttpRequest:
        """The URL, headers and JSON body. Raise ``ProviderError`` for a bad setup."""

    @abstractmethod
    def handle(self, event: ServerSentEvent) -> bool:
        """Apply one event to the output; True when the stream is complete."""

    def stream_error(self, event: ServerSentEvent) -> ProviderError | None:
        """An error the provider reported inside the stream (checked before ``handle``)."""
        return None

    @abstractmethod
    def finish(self) -> None:
        """After the last event: close open blocks, set the stop reason. Raise
        ``ProviderError`` when the stream was incomplete."""

    # ---------------------------------------------------------------- block helpers

    def open_text(self) -> int:
        index = self._append(TextContent(text=""))
        self.out.push(TextStartEvent(index, self.output))
        return index

    def open_thinking(
        self, signature: str | None = None, *, text: str = "", redacted: bool | None = None
    ) -> int:
        block = ThinkingContent(thinking=text, thinking_signature=signature, redacted=redacted)
        index = self._append(block)
        self.out.push(ThinkingStartEvent(index, self.output))
        return index

    def open_tool_call(
        self, call_id: str, name: str, arguments: dict[str, Any] | None = None
    ) -> int:
        index = self._append(ToolCall(id=call_id, name=name, arguments=arguments or {}))
        self._partial_json[index] = StreamingJsonParser()
        self.out.push(ToolCallStartEvent(index, self.output))
        return index

    def text_delta(self, index: int, delta: str) -> None:
        block = self.output.content[index]
        assert isinstance(block, TextContent)
        append_to_field(block, "text", delta)
        self.out.push(TextDeltaEvent(index, delta, self.output))

    def thinking_delta(self, index: int, delta: str) -> None:
        block = self.output.content[index]
        assert isinstance(block, ThinkingContent)
        append_to_field(block, "thinking", delta)
        self.out.push(ThinkingDeltaEvent(index, delta, self.output))

    def tool_call_delta(self, index: int, delta: str) -> None:
        """Append argument JSON and re-parse it, so the partial shows the arguments so far."""
        block = self.output.content[index]
        assert isinstance(block, ToolCall)
        parser = self._partial_json.setdefault(index, StreamingJsonParser())
        block.arguments = parser.feed(delta)
        self.out.push(ToolCallDeltaEvent(index, delta, self.output))

    def close_block(self, index: int) -> None:
        if index not in self._open:
            return
        self._open.discard(index)
        block = self.output.content[index]
        if isinstance(block, TextContent):
            self.out.push(TextEndEvent(index, block.text, self.output))
        elif isinstance(block, ThinkingContent):
            self.out.push(ThinkingEndEvent(index, block.thinking, self.output))
        else:
            parser = self._partial_json.pop(index, None)
            if parser is not None and parser.text.strip():
                block.arguments = parser.parse()
            self.out.push(ToolCallEndEvent(index, block, self.output))

    def close_all_blocks(self) -> None:
        for index in sorted(self._open):
            self.close_block(index)

    def is_open(self, index: int) -> bool:
        return index in self._open

    def _append(self, block: TextContent | ThinkingContent | ToolCall) -> int:
        self.output.content.append(block)
        index = len(self.output.content) - 1
        self._open.add(index)
        return index

    # ---------------------------------------------------------------- the run

    def _fail(self, message: str, *, aborted: bool | None = None) -> None:
        signal = self.options.signal
        if aborted is None:
            aborted = signal is not None and signal.aborted
        self.output.stop_reason = "aborted" if aborted else "error"
        self.output.error_message = redact(message, self.secrets)
        self._partial_json.clear()
        self.out.push(ErrorEvent("aborted" if aborted else "error", self.output))

    async def _main(self) -> None:
        try:
            await self._run()
        except asyncio.CancelledError:
            # the producer task itself was cancelled (shutdown): still end the stream
            self._fail(ABORTED_MESSAGE, aborted=True)
            raise
        except ProviderError as exc:
            self._fail(exc.message)
        except Exception as exc:  # the contract: a provider never raises into the loop
            self._fail(f"{type(exc).__name__}: {exc}")
        finally:
            self.out.end(self.output)

    async def _run(self) -> None:
        signal = self.options.signal
        if signal is not None and signal.aborted:
            self._fail(ABORTED_MESSAGE, aborted=True)
            return
        request = self.build_request()
        self.secrets = request.secrets
        if self.options.on_payload is not None:
            replaced = self.options.on_payload(request.body)
            if isinstance(replaced, dict):
                request.body = replaced
        injected = self.options.http_client
        client_cm: contextlib.AbstractAsyncContextManager[httpx.AsyncClient] = (
            contextlib.nullcontext(injected) if injected is not None else new_client()
        )
        async with client_cm as client:
            with anyio.CancelScope() as scope:
                remove = signal.add_callback(scope.cancel) if signal is not None else None
                try:
                    await self._consume(client, request)
                finally:
                    if remove is not None:
                        remove()
        if signal is not None and signal.aborted:
            self._fail(ABORTED_MESSAGE, aborted=True)
            return
        self.finish()
        reason = self.output.stop_reason
        if reason == "error" or reason == "aborted":
            self._fail(self.output.error_message or "An unknown error occurred")
            return
        self.out.push(DoneEvent(reason, self.output))

    async def _consume(self, client: httpx.AsyncClient, request: HttpRequest) -> None:
        events = iter_sse(client, request, self.options, self.stream_error)
        async with contextlib.aclosing(events) as stream:
            async for event in stream:
                if not self.started:
                    self.started = True
                    # A snapshot: the first content may be applied before the consumer runs
                    # (servers send the role and the first token in one segment).
                    self.out.push(StartEvent(self.output.model_copy(deep=True)))
                if self.handle(event):
                    break
            else:
                return
            # Read the body to its end (normally just the chunk terminator after the final
            # event) so httpx can return the connection to the pool for the next turn; a
            # server that keeps the stream open gets at most DRAIN_TIMEOUT_S.
            with anyio.move_on_after(DRAIN_TIMEOUT_S):
                async for _ in stream:
                    pass
