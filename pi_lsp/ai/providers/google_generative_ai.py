"""The ``google-generative-ai`` provider: the Gemini API streaming over httpx + httpx-sse.

``POST {baseUrl}/models/{model}:streamGenerateContent?alt=sse`` with the key in
``x-goog-api-key`` (docs/reference/pi.md#google-gemini). Each SSE event is a whole
``GenerateContentResponse``: its first candidate's parts are text (``thought: true`` makes it
thinking) or a ``functionCall`` (complete: start, one delta, end); a ``thoughtSignature`` on
any part is kept on the block it belongs to (text, thinking or tool call) and replayed to the
same model. Missing or repeated call ids are generated as Pi does. ``finishReason`` and
``usageMetadata`` give the stop reason and usage; a stream that ends without a finish reason
was cut off. Request building lives in ``google_convert``.
Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any
from urllib.parse import quote

from httpx_sse import ServerSentEvent

from ..cost import calculate_cost
from ..env_keys import missing_key_message, requires_api_key
from ..event_stream import AssistantMessageEventStream
from ..options import StreamOptions
from ..registry import register_provider
from ..types import Context, Model, StopReason, TextContent, ThinkingContent, ToolCall, Usage
from ._base import SSEProviderRun, resolve_api_key
from ._http import HttpRequest, ProviderError, error_from_stream_payload
from ._shapes import stream_object
from .google_convert import build_params

API = "google-generative-ai"
DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
_call_counter = itertools.count(1)

_FINISH_MESSAGES = {
    "SAFETY": "Gemini stopped the response for safety reasons (finishReason: SAFETY)",
    "RECITATION": "Gemini stopped the response because it recited training data "
    "(finishReason: RECITATION)",
    "MALFORMED_FUNCTION_CALL": "Gemini produced a malformed function call "
    "(finishReason: MALFORMED_FUNCTION_CALL)",
}


def map_finish_reason(reason: str) -> tuple[StopReason, str | None]:
    """(stopReason, errorMessage) for a Gemini ``finishReason``."""
    if reason == "STOP":
        return "stop", None
    if reason == "MAX_TOKENS":
        return "length", None
    return "error", _FINISH_MESSAGES.get(reason, f"Gemini finishReason: {reason}")


def stream_url(model: Model) -> str:
    base = (model.base_url or DEFAULT_BASE_URL).rstrip("/")
    return f"{base}/models/{quote(model.id, safe='-._~')}:streamGenerateContent?alt=sse"


def generated_call_id(name: str) -> str:
    """A unique id for a call that came without one (or with a repeated one), as Pi makes
    them: ``<name>_<ms>_<counter>``."""
    return f"{name}_{int(time.time() * 1000)}_{next(_call_counter)}"


class GoogleGenerativeAIRun(SSEProviderRun):
    def __init__(self, model: Model, context: Context, options: StreamOptions) -> None:
        super().__init__(model, context, options)
        self._current: int | None = None  # the open text / thinking block
        self._finish: str | None = None

    # ---------------------------------------------------------------- request

    def build_request(self) -> HttpRequest:
        model, options = self.model, self.options
        key = resolve_api_key(model, options)
        if key is None and requires_api_key(model.provider):
            raise ProviderError(missing_key_message(model.provider, options.api_key_env))
        headers = {
            "content-type": "application/json",
            "accept": "text/event-stream",
            **(model.headers or {}),
        }
        if key:
            headers["x-goog-api-key"] = key
        headers.update(options.headers or {})
        body = build_params(model, self.context, options)
        hint = (
            f"pi-lsp appends /models/{model.id}:streamGenerateContent to `baseUrl` "
            f"({model.base_url or DEFAULT_BASE_URL}); for Google it is {DEFAULT_BASE_URL}, and "
            "a 404 also means the model id is unknown there"
        )
        return HttpRequest(
            stream_url(model), headers, body, (key,) if key else (), not_found_hint=hint
        )

    # ---------------------------------------------------------------- events

    def stream_error(self, event: ServerSentEvent) -> ProviderError | None:
        if '"error"' not in event.data:
            return None
        try:
            payload = json.loads(event.data)
        except ValueError:
            return None
        if (
            isinstance(payload, dict)
            and isinstance(payload.get("error"), dict)
            and "candidates" not in payload
        ):
            return error_from_stream_payload(payload)
        return None

    def handle(self, event: ServerSentEvent) -> bool:
        data = event.data.strip()
        if not data:
            return False
        chunk = stream_object(data, API, "chunk")
        if isinstance(chunk.get("responseId"), str) and not self.output.response_id:
            self.output.response_id = chunk["responseId"]
        candidates = chunk.get("candidates")
        candidate = candidates[0] if isinstance(candidates, list) and candidates else None
        if isinstance(candidate, dict):
            content = candidate.get("content")
            parts = content.get("parts") if isinstance(content, dict) else None
            if isinstance(parts, list):
                for part in parts:
                    if isinstance(part, dict):
                        self._apply_part(part)
            finish = candidate.get("finishReason")
            if isinstance(finish, str) and finish:
                self._finish = finish
        usage = chunk.get("usageMetadata")
        if isinstance(usage, dict):
            self._apply_usage(usage)
        return False  # the stream ends when the server closes it

    def _apply_part(self, part: dict[str, Any]) -> None:
        signature = part.get("thoughtSignature")
        signature = signature if isinstance(signature, str) and signature else None
        text = part.get("text")
        if isinstance(text, str):
            thinking = part.get("thought") is True
            index = self._current
            current = self.output.content[index] if index is not None else None
            if index is None or isinstance(current, ThinkingContent) != thinking:
                if index is not None:
                    self.close_block(index)
                index = self.open_thinking() if thinking else self.open_text()
                self._current = index
            block = self.output.content[index]
            # a later part of the same block may omit the signature: keep the last one seen
            if isinstance(block, ThinkingContent):
                if signature:
                    block.thinking_signature = signature
                if text:
                    self.thinking_delta(index, text)
            elif isinstance(block, TextContent):
                if signature:
                    block.text_signature = signature
                if text:
                    self.text_delta(index, text)
        call = part.get("functionCall")
        if isinstance(call, dict):
            if self._current is not None:
                self.close_block(self._current)
                self._current = None
            name = str(call.get("name") or "")
            given = call.get("id")
            taken = any(isinstance(b, ToolCall) and b.id == given for b in self.output.content)
            call_id = given if isinstance(given, str) and given and not taken else None
            args = call.get("args")
            arguments = args if isinstance(args, dict) else {}
            index = self.open_tool_call(call_id or generated_call_id(name), name)
            block = self.output.content[index]
            assert isinstance(block, ToolCall)
            block.thought_signature = signature
            self.tool_call_delta(index, json.dumps(arguments, ensure_ascii=False))
            block.arguments = arguments
            self.close_block(index)

    def _apply_usage(self, raw: dict[str, Any]) -> None:
        cached = int(raw.get("cachedContentTokenCount") or 0)
        thoughts = raw.get("thoughtsTokenCount")
        usage = Usage(
            input=max(0, int(raw.get("promptTokenCount") or 0) - cached),
            output=int(raw.get("candidatesTokenCount") or 0) + int(thoughts or 0),
            cache_read=cached,
            reasoning=thoughts if isinstance(thoughts, int) and thoughts >= 0 else None,
        )
        self.output.usage = calculate_cost(self.model, usage)
        total = raw.get("totalTokenCount")
        if isinstance(total, int) and total:
            self.output.usage.total_tokens = total

    def finish(self) -> None:
        self.close_all_blocks()
        self._current = None
        if self._finish is None:
            raise ProviderError(
                "The Gemini stream ended without a finishReason (the connection closed early)"
            )
        reason, error = map_finish_reason(self._finish)
        if any(isinstance(b, ToolCall) for b in self.output.content):
            reason, error = "toolUse", None  # Pi: a call was made, whatever the reason says
        self.output.stop_reason = reason
        if error is not None:
            self.output.error_message = error


def stream_google_generative_ai(
    model: Model, context: Context, options: StreamOptions
) -> AssistantMessageEventStream:
    """Start a Gemini stream (never raises; failures end the stream)."""
    return GoogleGenerativeAIRun(model, context, options).start()


register_provider(API, stream_google_generative_ai)
