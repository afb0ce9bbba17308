"""Pin the public names of ``pi_lsp.ai``: other layers import them."""

from __future__ import annotations

import pi_lsp.ai as ai

REQUIRED = {
    # foundation
    "AbortSignal",
    "AssistantMessage",
    "AssistantMessageEventStream",
    "Context",
    "Model",
    "StreamOptions",
    "RetryInfo",
    "stream",
    "complete",
    "register_provider",
    "parse_streaming_json",
    "calculate_cost",
    "OpenAICompat",
    # model layer
    "AnthropicCompat",
    "PROVIDERS",
    "resolve_model",
    "default_model_id",
    "list_models",
    "transform_messages",
    "StreamingJsonParser",
    "supported_thinking_levels",
    "clamp_thinking_level",
    "thinking_budget",
    "is_retryable_error_message",
    "is_quota_error",
    "is_retryable_status",
    "parse_retry_after_ms",
    "backoff_delay_ms",
    "abortable_sleep",
    "is_context_overflow",
    "is_request_too_large",
    "get_env_api_key",
    "requires_api_key",
    "missing_key_message",
    "is_secret_env_name",
    "scrub_env",
}


def test_public_names() -> None:
    assert set(ai.__all__) >= REQUIRED
    for name in ai.__all__:
        assert hasattr(ai, name), name
    assert len(ai.__all__) == len(set(ai.__all__))


def test_builtin_apis_are_registered_lazily() -> None:
    assert set(ai.registered_apis()) >= {"openai-completions", "anthropic-messages", "faux"}
    for api in ("openai-completions", "anthropic-messages", "faux"):
        assert callable(ai.get_provider(api))
