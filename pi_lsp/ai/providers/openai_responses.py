"""The ``openai-responses`` provider: the OpenAI Responses API streaming over httpx + httpx-sse.

Semantic events, no ``[DONE]`` (docs/reference/pi.md#openai-responses): an
``output_item.added`` opens a block (``reasoning`` → thinking, ``message`` → text,
``function_call`` → tool call); reasoning summary / reasoning text deltas are thinking,
``output_text`` and ``refusal`` deltas are text, function-call argument deltas a partial tool
call (``…arguments.done`` may complete it); ``output_item.done`` closes the block with its
signature (the whole reasoning item, replayed verbatim next turn; the message id);
``response.completed`` / ``incomplete`` give usage (cached tokens split out) and the stop
reason, ``response.failed`` and ``error`` end the stream with an error. Truncation is also
detected when the output tokens reach ``max_output_tokens`` (servers that still say
``completed``). Request building lives in ``openai_responses_convert``.
Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import json
from typing import Any

from httpx_sse import ServerSentEvent

from ..cost import calculate_cost, reasoning_tokens
from ..env_keys import missing_key_message, requires_api_key
from ..event_stream import AssistantMessageEventStream
from ..events import ToolCallDeltaEvent
from ..json_parse import StreamingJsonParser
from ..options import StreamOptions
from ..registry import register_provider
from ..types import Context, Model, StopReason, TextContent, ThinkingContent, ToolCall, Usage
from ._base import SSEProviderRun, resolve_api_key
from ._http import HttpRequest, ProviderError
from ._shapes import stream_object
from .openai_responses_convert import build_params, encode_text_signature, get_compat

API = "openai-responses"
CONTENT_FILTER_MESSAGE = "The provider's content filter stopped the response (incomplete: {})"
TRANSIENT_CODES = ("server_error", "rate_limit", "overloaded", "timeout")


def map_status(status: Any) -> StopReason:
    """Pi's mapping of a response ``status``."""
    if status == "incomplete":
        return "length"
    if status in ("failed", "cancelled"):
        return "error"
    return "stop"  # completed, in_progress, queued, or none


def _error_text(error: Any, fallback: str) -> str:
    if isinstance(error, dict):
        code = error.get("code") or error.get("type") or "unknown"
        message = error.get("message") or "no message"
        return f"{code}: {message}"
    return fallback


def _stream_error(payload: dict[str, Any]) -> ProviderError:
    """An ``error`` event (``{type:"error", code, message}``, or the error nested)."""
    nested = payload.get("error")
    source = nested if isinstance(nested, dict) else payload
    code = source.get("code") or source.get("type")
    message = source.get("message") or "Unknown error"
    text = f"Error Code {code}: {message}" if code and code != "error" else str(message)
    lowered = text.lower()
    return ProviderError(text, retryable=any(word in lowered for word in TRANSIENT_CODES))


class OpenAIResponsesRun(SSEProviderRun):
    def __init__(self, model: Model, context: Context, options: StreamOptions) -> None:
        super().__init__(model, context, options)
        self._item: dict[str, Any] | None = None  # the output item being streamed
        self._block: int | None = None  # its content index
        self._terminal = False
        self._max_output: int | None = None
        self._incomplete_reason: str | None = None
        self._status: Any = None

    # ---------------------------------------------------------------- request

    def build_request(self) -> HttpRequest:
        model, options = self.model, self.options
        key = resolve_api_key(model, options)
        if key is None and requires_api_key(model.provider):
            raise ProviderError(missing_key_message(model.provider, options.api_key_env))
        if not model.base_url:
            raise ProviderError(f"No base URL for provider '{model.provider}': set baseUrl")
        headers = {
            "content-type": "application/json",
            "accept": "text/event-stream",
            **(model.headers or {}),
        }
        if key:
            headers["authorization"] = f"Bearer {key}"
        session = options.session_id if options.cache_retention != "none" else None
        if session:
            if get_compat(model).send_session_id_header:
                headers["session_id"] = session
            headers["x-client-request-id"] = session
        headers.update(options.headers or {})
        body = build_params(model, self.context, options)
        hint = (
            f"pi-lsp appends /responses to `baseUrl` ({model.base_url}); it usually ends in "
            "/v1, and the server must speak the Responses API (llama.cpp, vLLM and "
            "api.openai.com do; otherwise set `api` to openai-completions)"
        )
        url = model.base_url.rstrip("/") + "/responses"
        return HttpRequest(url, headers, body, (key,) if key else (), not_found_hint=hint)

    # ---------------------------------------------------------------- events

    def stream_error(self, event: ServerSentEvent) -> ProviderError | None:
        if '"error"' not in event.data:
            return None
        try:
            payload = json.loads(event.data)
        except ValueError:
            return None
        if isinstance(payload, dict) and (
            payload.get("type") == "error" or (event.event == "error" and "type" not in payload)
        ):
            return _stream_error(payload)
        return None

    def handle(self, event: ServerSentEvent) -> bool:
        data = event.data.strip()
        if not data or data == "[DONE]":
            return data == "[DONE]" and self._terminal
        payload = stream_object(data, API, "event")
        kind = payload.get("type") or event.event
        if not isinstance(kind, str):
            return False
        if kind == "response.created":
            response = payload.get("response")
            if isinstance(response, dict) and isinstance(response.get("id"), str):
                self.output.response_id = response["id"]
        elif kind == "response.output_item.added":
            self._item_added(payload.get("item"))
        elif kind.startswith("response.reasoning_summary"):
            self._summary_event(kind, payload)
        elif kind == "response.reasoning_text.delta":
            if self._current_kind() == "reasoning" and isinstance(payload.get("delta"), str):
                assert self._block is not None
                self.thinking_delta(self._block, payload["delta"])
        elif kind == "response.content_part.added":
            part = payload.get("part")
            if (
                self._item is not None
                and self._current_kind() == "message"
                and isinstance(part, dict)
                and part.get("type") in ("output_text", "refusal")
            ):
                self._item.setdefault("content", []).append(dict(part))
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            self._text_delta("output_text" if kind.endswith("text.delta") else "refusal", payload)
        elif kind == "response.function_call_arguments.delta":
            if self._current_kind() == "function_call" and isinstance(payload.get("delta"), str):
                assert self._block is not None
                self.tool_call_delta(self._block, payload["delta"])
        elif kind == "response.function_call_arguments.done":
            self._arguments_done(payload.get("arguments"))
        elif kind == "response.output_item.done":
            self._item_done(payload.get("item"))
        elif kind in ("response.completed", "response.incomplete"):
            self._finalize(payload.get("response"))
            return True
        elif kind == "response.failed":
            self._terminal = True
            response = payload.get("response")
            response = response if isinstance(response, dict) else {}
            details = response.get("incomplete_details")
            reason = details.get("reason") if isinstance(details, dict) else None
            fallback = (
                f"incomplete: {reason}"
                if reason
                else "Unknown error (no error details in response)"
            )
            self._apply_usage(response.get("usage"))
            raise ProviderError(_error_text(response.get("error"), fallback))
        return False

    def _current_kind(self) -> str | None:
        return self._item.get("type") if self._item is not None else None

    def _close_current(self) -> None:
        if self._block is not None:
            self.close_block(self._block)
        self._item = None
        self._block = None

    def _item_added(self, item: Any) -> None:
        if not isinstance(item, dict):
            return
        kind = item.get("type")
        if kind not in ("reasoning", "message", "function_call"):
            return  # web search, file search…: not part of pi's message model
        self._close_current()
        self._item = dict(item)
        if kind == "reasoning":
            self._item["summary"] = list(item.get("summary") or [])
            self._block = self.open_thinking()
        elif kind == "message":
            self._item["content"] = []
            self._block = self.open_text()
        else:
            call_id = f"{item.get('call_id') or ''}|{item.get('id') or ''}"
            self._block = self.open_tool_call(call_id, str(item.get("name") or ""))
            initial = item.get("arguments")
            if isinstance(initial, str) and initial:
                self.tool_call_delta(self._block, initial)

    def _summary_event(self, kind: str, payload: dict[str, Any]) -> None:
        if self._current_kind() != "reasoning" or self._block is None:
            return
        assert self._item is not None
        summary: list[dict[str, Any]] = self._item["summary"]
        if kind == "response.reasoning_summary_part.added":
            part = payload.get("part")
            summary.append(dict(part) if isinstance(part, dict) else {"type": "summary_text"})
            summary[-1].setdefault("text", "")
        elif kind == "response.reasoning_summary_text.delta" and summary:
            delta = payload.get("delta")
            if isinstance(delta, str):
                summary[-1]["text"] += delta
                self.thinking_delta(self._block, delta)
        elif kind == "response.reasoning_summary_part.done" and summary:
            summary[-1]["text"] += "\n\n"
            self.thinking_delta(self._block, "\n\n")

    def _text_delta(self, part_type: str, payload: dict[str, Any]) -> None:
        if self._current_kind() != "message" or self._block is None:
            return
        assert self._item is not None
        parts = self._item.get("content") or []
        delta = payload.get("delta")
        if not parts or parts[-1].get("type") != part_type or not isinstance(delta, str):
            return
        field = "text" if part_type == "output_text" else "refusal"
        parts[-1][field] = str(parts[-1].get(field) or "") + delta
        self.text_delta(self._block, delta)

    def _arguments_done(self, arguments: Any) -> None:
        if self._current_kind() != "function_call" or self._block is None:
            return
        if not isinstance(arguments, str):
            return
        block = self.output.content[self._block]
        assert isinstance(block, ToolCall)
        so_far = self._partial_text(self._block)
        if arguments.startswith(so_far) and len(arguments) > len(so_far):
            self.tool_call_delta(self._block, arguments[len(so_far) :])
        elif not arguments.startswith(so_far):
            # the final text differs from the deltas: it wins (no delta event for it)
            self._reset_partial(self._block, arguments)
            self.out.push(ToolCallDeltaEvent(self._block, "", self.output))

    def _partial_text(self, index: int) -> str:
        parser = self._partial_json.get(index)
        return parser.text if parser is not None else ""

    def _reset_partial(self, index: int, text: str) -> None:
        self._partial_json.pop(index, None)
        block = self.output.content[index]
        assert isinstance(block, ToolCall)
        parser = self._partial_json.setdefault(index, StreamingJsonParser())
        block.arguments = parser.feed(text)

    def _item_done(self, item: Any) -> None:
        if not isinstance(item, dict) or self._block is None:
            return
        kind = item.get("type")
        block = self.output.content[self._block]
        if kind == "reasoning" and isinstance(block, ThinkingContent):
            summary = item.get("summary") or []
            content = item.get("content") or []
            summary_text = "\n\n".join(
                str(s.get("text") or "") for s in summary if isinstance(s, dict)
            )
            content_text = "\n\n".join(
                str(c.get("text") or "") for c in content if isinstance(c, dict)
            )
            block.thinking = summary_text or content_text or block.thinking
            block.thinking_signature = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
        elif kind == "message" and isinstance(block, TextContent):
            parts = item.get("content")
            if isinstance(parts, list) and parts:
                block.text = "".join(
                    str(p.get("text" if p.get("type") == "output_text" else "refusal") or "")
                    for p in parts
                    if isinstance(p, dict)
                )
            if isinstance(item.get("id"), str):
                block.text_signature = encode_text_signature(item["id"], item.get("phase"))
        elif kind == "function_call" and isinstance(block, ToolCall):
            if not self._partial_text(self._block).strip() and isinstance(
                item.get("arguments"), str
            ):
                self._reset_partial(self._block, item["arguments"] or "{}")
        else:
            return
        self._close_current()

    def _apply_usage(self, raw: Any) -> None:
        if not isinstance(raw, dict):
            return
        details = raw.get("input_tokens_details")
        cached = int((details or {}).get("cached_tokens") or 0) if isinstance(details, dict) else 0
        usage = Usage(
            input=max(0, int(raw.get("input_tokens") or 0) - cached),
            output=int(raw.get("output_tokens") or 0),
            cache_read=cached,
            reasoning=reasoning_tokens(raw.get("output_tokens_details")),
        )
        self.output.usage = calculate_cost(self.model, usage)
        total = raw.get("total_tokens")
        if isinstance(total, int) and total:
            self.output.usage.total_tokens = total

    def _finalize(self, response: Any) -> None:
        self._terminal = True
        if not isinstance(response, dict):
            return
        if isinstance(response.get("id"), str):
            self.output.response_id = response["id"]
        self._apply_usage(response.get("usage"))
        self._status = response.get("status")
        details = response.get("incomplete_details")
        if isinstance(details, dict) and isinstance(details.get("reason"), str):
            self._incomplete_reason = details["reason"]
        limit = response.get("max_output_tokens")
        if isinstance(limit, int) and limit > 0:
            self._max_output = limit

    def finish(self) -> None:
        self.close_all_blocks()
        self._item = None
        self._block = None
        if not self._terminal:
            raise ProviderError(
                "The Responses stream ended before a terminal response event "
                "(the connection closed early)"
            )
        reason = map_status(self._status)
        if reason == "length" and self._incomplete_reason == "content_filter":
            self.output.stop_reason = "error"
            self.output.error_message = CONTENT_FILTER_MESSAGE.format(self._incomplete_reason)
            return
        limit = self._max_output or self.options.max_tokens
        if reason == "stop" and limit and self.output.usage.output >= limit:
            reason = "length"  # a server that says "completed" after hitting the limit
        if reason == "stop" and any(isinstance(b, ToolCall) for b in self.output.content):
            reason = "toolUse"
        self.output.stop_reason = reason


def stream_openai_responses(
    model: Model, context: Context, options: StreamOptions
) -> AssistantMessageEventStream:
    """Start a Responses API stream (never raises; failures end the stream)."""
    return OpenAIResponsesRun(model, context, options).start()


register_provider(API, stream_openai_responses)
