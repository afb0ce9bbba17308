"""The ``openai-completions`` provider: Chat Completions streaming over httpx + httpx-sse.

Used for OpenAI and every OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio,
OpenRouter, Groq…). Text deltas, ``reasoning_content`` / ``reasoning`` / ``reasoning_text``
deltas as thinking, tool calls assembled by ``index`` (arguments re-parsed on every delta),
usage (``stream_options.include_usage``) with cost, and ``finish_reason`` mapping
(docs/reference/pi.md#stop-reasons). Request building lives in ``openai_convert``.
Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from httpx_sse import ServerSentEvent

from ..cost import calculate_cost, reasoning_tokens
from ..env_keys import missing_key_message, requires_api_key
from ..event_stream import AssistantMessageEventStream
from ..options import StreamOptions
from ..registry import register_provider
from ..types import Context, Model, StopReason, ToolCall, Usage
from ._base import SSEProviderRun, resolve_api_key
from ._http import HttpRequest, ProviderError, error_from_stream_payload
from ._shapes import stream_object
from .openai_convert import build_params

API = "openai-completions"
REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")


def map_finish_reason(reason: str | None) -> tuple[StopReason, str | None]:
    """(stopReason, errorMessage) for a Chat Completions ``finish_reason``."""
    if reason is None or reason in ("stop", "end"):
        return "stop", None
    if reason == "length":
        return "length", None
    if reason in ("tool_calls", "function_call"):
        return "toolUse", None
    if reason == "content_filter":
        return "error", (
            "The provider's content filter blocked the response (finish_reason: content_filter)"
        )
    return "error", f"Provider finish_reason: {reason}"


class OpenAICompletionsRun(SSEProviderRun):
    def __init__(self, model: Model, context: Context, options: StreamOptions) -> None:
        super().__init__(model, context, options)
        self._current: int | None = None  # the open text / thinking block
        self._tool_slots: dict[int, int] = {}  # stream tool index -> content index
        self._finish_reason: str | None = None
        self._saw_done = False

    # ---------------------------------------------------------------- request

    def build_request(self) -> HttpRequest:
        model = self.model
        key = resolve_api_key(model, self.options)
        if key is None and requires_api_key(model.provider):
            raise ProviderError(missing_key_message(model.provider, self.options.api_key_env))
        if not model.base_url:
            raise ProviderError(f"No base URL for provider '{model.provider}': set baseUrl")
        headers = {
            "content-type": "application/json",
            "accept": "text/event-stream",
            **(model.headers or {}),
            **(self.options.headers or {}),
        }
        if key:
            headers["authorization"] = f"Bearer {key}"
        url = model.base_url.rstrip("/") + "/chat/completions"
        body = build_params(model, self.context, self.options)
        hint = (
            f"pi-lsp appends /chat/completions to `baseUrl` ({model.base_url}); it usually "
            "ends in /v1 (e.g. http://127.0.0.1:8080/v1 for llama.cpp)"
        )
        return HttpRequest(url, headers, body, (key,) if key else (), not_found_hint=hint)

    # ---------------------------------------------------------------- events

    def stream_error(self, event: ServerSentEvent) -> ProviderError | None:
        if '"error"' not in event.data:
            return None
        try:
            payload = json.loads(event.data)
        except ValueError:
            return None
        if isinstance(payload, dict) and payload.get("error") and not payload.get("choices"):
            return error_from_stream_payload(payload)
        return None

    def handle(self, event: ServerSentEvent) -> bool:
        data = event.data.strip()
        if not data:
            return False
        if data == "[DONE]":
            self._saw_done = True
            return True
        chunk = stream_object(data, API, "chunk")
        if isinstance(chunk.get("id"), str) and self.output.response_id is None:
            self.output.response_id = chunk["id"]
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self._apply_usage(usage)
        choices = chunk.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        if not isinstance(choice, dict):
            return False
        if not isinstance(usage, dict) and isinstance(choice.get("usage"), dict):
            self._apply_usage(choice["usage"])  # some servers (Moonshot) put it here
        delta = choice.get("delta")
        if isinstance(delta, dict):
            self._apply_delta(delta)
        finish = choice.get("finish_reason")
        if isinstance(finish, str) and finish:
            self._finish_reason = finish
        return False

    def _apply_delta(self, delta: dict[str, Any]) -> None:
        content = delta.get("content")
        if isinstance(content, str) and content:
            if self._current is None or not self._is_text(self._current):
                self._switch_block("text")
            assert self._current is not None
            self.text_delta(self._current, content)
        for field in REASONING_FIELDS:
            value = delta.get(field)
            if isinstance(value, str) and value:
                current = self._current
                block = self.output.content[current] if current is not None else None
                if (
                    current is None
                    or self._is_text(current)
                    or (block is not None and getattr(block, "thinking_signature", None) != field)
                ):
                    self._switch_block("thinking", signature=field)
                assert self._current is not None
                self.thinking_delta(self._current, value)
                break  # one field only: some servers send the same text in two fields
        calls = delta.get("tool_calls")
        if isinstance(calls, list):
            for call in calls:
                if isinstance(call, dict):
                    self._apply_tool_delta(call)

    def _is_text(self, index: int) -> bool:
        return self.output.content[index].type == "text"

    def _switch_block(self, kind: str, signature: str | None = None) -> None:
        if self._current is not None:
            self.close_block(self._current)
        self._current = self.open_text() if kind == "text" else self.open_thinking(signature)

    def _apply_tool_delta(self, delta: dict[str, Any]) -> None:
        function = delta.get("function") if isinstance(delta.get("function"), dict) else {}
        assert isinstance(function, dict)
        call_id = delta.get("id") if isinstance(delta.get("id"), str) else None
        name = function.get("name") if isinstance(function.get("name"), str) else None
        stream_index = delta.get("index")
        if not isinstance(stream_index, int):
            stream_index = self._index_without_index(call_id)
        slot = self._tool_slots.get(stream_index)
        if slot is None:
            if self._current is not None:
                self.close_block(self._current)
                self._current = None
            slot = self.open_tool_call(call_id or f"call_{uuid.uuid4().hex[:24]}", name or "")
            self._tool_slots[stream_index] = slot
        else:
            block = self.output.content[slot]
            assert isinstance(block, ToolCall)
            if name and not block.name:
                block.name = name
        arguments = function.get("arguments")
        if isinstance(arguments, dict):  # some servers send the object, not a string
            arguments = json.dumps(arguments)
        if isinstance(arguments, str) and arguments and self.is_open(slot):
            self.tool_call_delta(slot, arguments)

    def _index_without_index(self, call_id: str | None) -> int:
        """Servers that omit ``index``: a new id starts a new call, else the last one."""
        if call_id is not None:
            for stream_index, slot in self._tool_slots.items():
                block = self.output.content[slot]
                if isinstance(block, ToolCall) and block.id == call_id:
                    return stream_index
            return len(self._tool_slots)
        return max(self._tool_slots) if self._tool_slots else 0

    def _apply_usage(self, raw: dict[str, Any]) -> None:
        details = raw.get("prompt_tokens_details")
        cached = details.get("cached_tokens") if isinstance(details, dict) else None
        cached_tokens = int(cached or 0)
        prompt = int(raw.get("prompt_tokens") or 0)
        usage = Usage(
            input=max(0, prompt - cached_tokens),
            output=int(raw.get("completion_tokens") or 0),
            cache_read=cached_tokens,
            reasoning=reasoning_tokens(raw.get("completion_tokens_details")),
        )
        self.output.usage = calculate_cost(self.model, usage)

    def finish(self) -> None:
        self.close_all_blocks()
        self._current = None
        if self._finish_reason is None and not self._saw_done:
            raise ProviderError(
                "The stream ended without a finish_reason (the connection closed early)"
            )
        reason, error = map_finish_reason(self._finish_reason)
        if reason == "stop" and any(isinstance(b, ToolCall) for b in self.output.content):
            reason = "toolUse"  # servers (Ollama) that say "stop" after tool calls
        self.output.stop_reason = reason
        if error is not None:
            self.output.error_message = error


def stream_openai_completions(
    model: Model, context: Context, options: StreamOptions
) -> AssistantMessageEventStream:
    """Start a Chat Completions stream (never raises; failures end the stream)."""
    return OpenAICompletionsRun(model, context, options).start()


register_provider(API, stream_openai_completions)
