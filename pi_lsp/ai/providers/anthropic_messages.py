"""The ``anthropic-messages`` provider: Messages API streaming over httpx + httpx-sse.

Text, thinking (``thinking_delta`` + ``signature_delta`` kept for replay; redacted thinking
keeps its payload as the signature), ``tool_use`` with ``input_json_delta`` partial JSON
re-parsed on every delta, usage from ``message_start`` (so an early abort still has it) and
``message_delta`` (non-null fields only), stop reasons per docs/reference/pi.md#stop-reasons.
Authentication is ``x-api-key``, or ``Authorization: Bearer`` for OAuth tokens (``sk-ant-oat…``).
Request building lives in ``anthropic_convert``. Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import json
from typing import Any

from httpx_sse import ServerSentEvent

from ..cost import calculate_cost
from ..env_keys import missing_key_message, requires_api_key
from ..event_stream import AssistantMessageEventStream
from ..options import StreamOptions
from ..registry import register_provider
from ..types import Context, Model, StopReason, ThinkingContent
from ._base import SSEProviderRun, resolve_api_key
from ._http import HttpRequest, ProviderError, error_from_stream_payload
from ._shapes import stream_object
from .anthropic_convert import build_params, from_claude_code_name, is_oauth_token

API = "anthropic-messages"
ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_BASE_URL = "https://api.anthropic.com"
BETA_FEATURES = ("fine-grained-tool-streaming-2025-05-14", "interleaved-thinking-2025-05-14")
OAUTH_BETAS = ("claude-code-20250219", "oauth-2025-04-20")
CLAUDE_CODE_VERSION = "2.1.2"
REDACTED_THINKING_TEXT = "[Reasoning redacted]"
REFUSAL_MESSAGE = "The model refused to complete the request"


def map_stop_reason(reason: str | None, details: Any = None) -> tuple[StopReason, str | None]:
    """(stopReason, errorMessage) for an Anthropic ``stop_reason``."""
    if reason is None or reason in ("end_turn", "pause_turn", "stop_sequence"):
        return "stop", None
    if reason in ("max_tokens", "model_context_window_exceeded"):
        return "length", None
    if reason == "tool_use":
        return "toolUse", None
    if reason == "refusal":
        explanation = details.get("explanation") if isinstance(details, dict) else None
        return "error", explanation if isinstance(explanation, str) and explanation else (
            REFUSAL_MESSAGE
        )
    if reason == "sensitive":
        return "error", "The response was flagged by the provider's safety filters (sensitive)"
    return "error", f"Unhandled stop reason: {reason}"


def messages_url(base_url: str) -> str:
    base = (base_url or DEFAULT_BASE_URL).rstrip("/")
    return base + "/messages" if base.endswith("/v1") else base + "/v1/messages"


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


class AnthropicMessagesRun(SSEProviderRun):
    def __init__(self, model: Model, context: Context, options: StreamOptions) -> None:
        super().__init__(model, context, options)
        self._blocks: dict[int, int] = {}  # SSE block index -> content index
        self._stop_reason: str | None = None
        self._stop_details: Any = None
        self._complete = False
        self._oauth = False

    # ---------------------------------------------------------------- request

    def build_request(self) -> HttpRequest:
        model, options = self.model, self.options
        key = resolve_api_key(model, options)
        if key is None and requires_api_key(model.provider):
            raise ProviderError(missing_key_message(model.provider, options.api_key_env))
        self._oauth = key is not None and is_oauth_token(key)
        headers = {
            "content-type": "application/json",
            "accept": "text/event-stream",
            "anthropic-version": ANTHROPIC_VERSION,
        }
        if self._oauth and key is not None:
            headers["authorization"] = f"Bearer {key}"
            headers["anthropic-beta"] = ",".join((*OAUTH_BETAS, *BETA_FEATURES))
            headers["user-agent"] = f"claude-cli/{CLAUDE_CODE_VERSION} (external, cli)"
            headers["x-app"] = "cli"
        else:
            if key is not None:  # a local server (llama.cpp) behind openai-compatible needs none
                headers["x-api-key"] = key
            headers["anthropic-beta"] = ",".join(BETA_FEATURES)
        headers.update(model.headers or {})
        headers.update(options.headers or {})
        body = build_params(model, self.context, options, oauth=self._oauth)
        hint = (
            f"pi-lsp appends /v1/messages to `baseUrl` ({model.base_url}), or /messages when "
            "it ends in /v1; it is the server's root (e.g. http://127.0.0.1:8080)"
        )
        secrets = (key,) if key else ()
        return HttpRequest(
            messages_url(model.base_url), headers, body, secrets, not_found_hint=hint
        )

    # ---------------------------------------------------------------- events

    def stream_error(self, event: ServerSentEvent) -> ProviderError | None:
        if event.event != "error" and '"error"' not in event.data:
            return None
        try:
            payload = json.loads(event.data)
        except ValueError:
            return None
        if isinstance(payload, dict) and (event.event == "error" or payload.get("type") == "error"):
            return error_from_stream_payload(payload)
        return None

    def handle(self, event: ServerSentEvent) -> bool:
        data = event.data.strip()
        if not data:
            return False
        payload = stream_object(data, API, "event")
        kind = payload.get("type") or event.event
        if kind == "message_start":
            message = payload.get("message")
            if isinstance(message, dict):
                if isinstance(message.get("id"), str):
                    self.output.response_id = message["id"]
                usage = message.get("usage")
                if isinstance(usage, dict):
                    self._apply_usage(usage)
        elif kind == "content_block_start":
            self._block_start(payload)
        elif kind == "content_block_delta":
            self._block_delta(payload)
        elif kind == "content_block_stop":
            index = self._blocks.get(payload.get("index", -1))
            if index is not None:
                self.close_block(index)
        elif kind == "message_delta":
            delta = payload.get("delta")
            if isinstance(delta, dict) and delta.get("stop_reason"):
                self._stop_reason = str(delta["stop_reason"])
                self._stop_details = delta.get("stop_details")
            usage = payload.get("usage")
            if isinstance(usage, dict):
                self._apply_usage(usage)
        elif kind == "message_stop":
            self._complete = True
            return True
        return False  # ping and unknown events are ignored

    def _block_start(self, payload: dict[str, Any]) -> None:
        block = payload.get("content_block")
        sse_index = payload.get("index")
        if not isinstance(block, dict) or not isinstance(sse_index, int):
            return
        kind = block.get("type")
        if kind == "text":
            index = self.open_text()
            if isinstance(block.get("text"), str) and block["text"]:
                self.text_delta(index, block["text"])
        elif kind == "thinking":
            index = self.open_thinking("")
            if isinstance(block.get("thinking"), str) and block["thinking"]:
                self.thinking_delta(index, block["thinking"])
        elif kind == "redacted_thinking":
            data = block.get("data")
            index = self.open_thinking(
                data if isinstance(data, str) else "", text=REDACTED_THINKING_TEXT, redacted=True
            )
        elif kind == "tool_use":
            name = str(block.get("name") or "")
            if self._oauth:
                name = from_claude_code_name(name, self.context.tools)
            initial = block.get("input")
            index = self.open_tool_call(
                str(block.get("id") or ""), name, initial if isinstance(initial, dict) else {}
            )
        else:
            return  # server tools, web search results…: not part of pi's message model
        self._blocks[sse_index] = index

    def _block_delta(self, payload: dict[str, Any]) -> None:
        index = self._blocks.get(payload.get("index", -1))
        delta = payload.get("delta")
        if index is None or not isinstance(delta, dict) or not self.is_open(index):
            return
        kind = delta.get("type")
        if kind == "text_delta" and isinstance(delta.get("text"), str):
            self.text_delta(index, delta["text"])
        elif kind == "thinking_delta" and isinstance(delta.get("thinking"), str):
            self.thinking_delta(index, delta["thinking"])
        elif kind == "input_json_delta" and isinstance(delta.get("partial_json"), str):
            self.tool_call_delta(index, delta["partial_json"])
        elif kind == "signature_delta" and isinstance(delta.get("signature"), str):
            block = self.output.content[index]
            if isinstance(block, ThinkingContent):
                block.thinking_signature = (block.thinking_signature or "") + delta["signature"]

    def _apply_usage(self, raw: dict[str, Any]) -> None:
        usage = self.output.usage
        for field, attr in (
            ("input_tokens", "input"),
            ("output_tokens", "output"),
            ("cache_read_input_tokens", "cache_read"),
            ("cache_creation_input_tokens", "cache_write"),
        ):
            value = _int(raw.get(field))
            if value is not None:
                setattr(usage, attr, value)
        creation = raw.get("cache_creation")
        if isinstance(creation, dict):
            long_writes = _int(creation.get("ephemeral_1h_input_tokens"))
            if long_writes is not None:
                usage.cache_write_1h = long_writes
        calculate_cost(self.model, usage)

    def finish(self) -> None:
        self.close_all_blocks()
        if not self._complete:
            raise ProviderError("Stream ended before message_stop (the connection closed early)")
        reason, error = map_stop_reason(self._stop_reason, self._stop_details)
        self.output.stop_reason = reason
        if error is not None:
            self.output.error_message = error


def stream_anthropic_messages(
    model: Model, context: Context, options: StreamOptions
) -> AssistantMessageEventStream:
    """Start a Messages API stream (never raises; failures end the stream)."""
    return AnthropicMessagesRun(model, context, options).start()


register_provider(API, stream_anthropic_messages)
