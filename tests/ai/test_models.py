"""The model catalog, resolve_model, and thinking-level helpers."""

from __future__ import annotations

import pytest

from pi_lsp.ai import (
    PROVIDERS,
    Model,
    clamp_thinking_level,
    default_model_id,
    get_provider,
    list_models,
    resolve_model,
    supported_thinking_levels,
)
from pi_lsp.ai.providers.faux import FAUX_MODEL


def test_every_provider_resolves_its_default_model():
    for provider in PROVIDERS:
        base = "http://127.0.0.1:8080/v1" if provider == "openai-compatible" else None
        model = resolve_model(provider, base_url=base)
        assert model.id == default_model_id(provider)
        assert model.provider == provider
        get_provider(model.api)  # the api has a registered provider


def test_catalog_entries():
    sonnet = resolve_model("anthropic", "claude-sonnet-4-5")
    assert sonnet.api == "anthropic-messages"
    assert sonnet.base_url == "https://api.anthropic.com"
    assert sonnet.reasoning
    assert sonnet.cost.input == 3.0
    assert sonnet.context_window == 200_000
    gpt = resolve_model("openai", "gpt-4.1-mini")
    assert gpt.api == "openai-responses"  # every OpenAI catalog entry, as in Pi
    assert gpt.base_url == "https://api.openai.com/v1"
    assert gpt.compat is not None
    assert gpt.compat["supportsDeveloperRole"]
    assert "image" in gpt.input
    assert resolve_model("openai", "o4-mini").reasoning
    assert {m.provider for m in list_models()} >= {"openai", "anthropic", "groq", "openrouter"}
    assert all(m.provider == "openai" for m in list_models("openai"))


def test_catalog_copies_are_independent():
    a = resolve_model("openai", "gpt-4o")
    a.cost.input = 999
    assert resolve_model("openai", "gpt-4o").cost.input == 2.5


def test_unknown_model_ids_get_sensible_defaults():
    model = resolve_model("openai", "gpt-9-preview")
    assert (model.id, model.api, model.provider) == (
        "gpt-9-preview",
        "openai-responses",  # a reasoning model keeps its reasoning only there
        "openai",
    )
    assert model.reasoning
    proxy = resolve_model("openai", "gpt-test", "http://127.0.0.1:9/v1")
    assert (proxy.api, proxy.reasoning) == ("openai-completions", False)
    gemini = resolve_model("google", "gemini-4-ultra")
    assert (gemini.api, gemini.reasoning, gemini.context_window) == (
        "google-generative-ai",
        True,
        1_048_576,
    )
    claude = resolve_model("anthropic", "claude-future-5")
    assert claude.reasoning
    assert claude.context_window == 200_000
    assert not resolve_model("anthropic", "claude-3-opus-20240229").reasoning


def test_local_servers():
    ollama = resolve_model("ollama", "qwen2.5-coder:7b")
    assert ollama.base_url == "http://127.0.0.1:11434/v1"
    assert ollama.compat == {"maxTokensField": "max_tokens"}
    assert ollama.input == ["text"]
    remote = resolve_model("ollama", base_url="http://gpu-box:11434/v1/")
    assert remote.base_url == "http://gpu-box:11434/v1"
    llama = resolve_model("openai-compatible", None, "http://127.0.0.1:8080/v1")
    assert (llama.id, llama.base_url) == ("default", "http://127.0.0.1:8080/v1")
    with pytest.raises(ValueError, match="needs a baseUrl"):
        resolve_model("openai-compatible", "m")


def test_faux_and_unknown_providers():
    assert resolve_model("faux") == FAUX_MODEL
    with pytest.raises(ValueError) as info:
        resolve_model("openia")
    message = str(info.value)
    assert "Unknown provider 'openia'" in message
    for provider in PROVIDERS:
        assert provider in message
    with pytest.raises(ValueError):
        default_model_id("nope")


def test_thinking_levels():
    plain = Model(id="m", api="a", provider="p")
    assert supported_thinking_levels(plain) == ["off"]
    assert clamp_thinking_level(plain, "high") == "off"
    thinker = Model(id="m", api="a", provider="p", reasoning=True)
    assert supported_thinking_levels(thinker) == ["off", "minimal", "low", "medium", "high"]
    assert clamp_thinking_level(thinker, "xhigh") == "high"
    mapped = Model(
        id="m",
        api="a",
        provider="p",
        reasoning=True,
        thinking_level_map={"minimal": None, "xhigh": "max"},
    )
    assert supported_thinking_levels(mapped) == ["off", "low", "medium", "high", "xhigh"]
    assert clamp_thinking_level(mapped, "minimal") == "low"  # higher first
    top_only = Model(
        id="m", api="a", provider="p", reasoning=True, thinking_level_map={"high": None}
    )
    assert clamp_thinking_level(top_only, "high") == "medium"  # then lower
