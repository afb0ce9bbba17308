"""The built-in model catalog and ``resolve_model`` for the ``provider`` / ``model`` settings.

A small hand-kept list of current models for the built-in providers, with context window,
max output tokens and $/M prices. Prices and limits drift: they only feed cost reporting and
defaults, and an unknown model id on a known provider still resolves with sensible
defaults. Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import re
from typing import Any

from .types import InputKind, Model, ModelCost

#: The scripted offline model (``ai/providers/faux.py``), here so the catalogue needs no
#: import of the faux provider.
FAUX_MODEL = Model(
    id="faux-1",
    name="Faux (scripted)",
    api="faux",
    provider="faux",
    context_window=200_000,
    max_tokens=16_384,
    input=["text", "image"],
)

OPENAI_BASE_URL = "https://api.openai.com/v1"
ANTHROPIC_BASE_URL = "https://api.anthropic.com"
OLLAMA_BASE_URL = "http://127.0.0.1:11434/v1"
OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1"
GROQ_BASE_URL = "https://api.groq.com/openai/v1"
GOOGLE_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"

APIS: tuple[str, ...] = (
    "openai-completions",
    "openai-responses",
    "anthropic-messages",
    "google-generative-ai",
)
"""The wire APIs the ``api`` setting may name (``faux`` is chosen by its provider)."""

PROVIDERS: tuple[str, ...] = (
    "openai",
    "anthropic",
    "google",
    "openai-compatible",
    "ollama",
    "openrouter",
    "groq",
    "faux",
)
_API = {
    # an OpenAI id the catalog does not know keeps Chat Completions (proxies, older
    # deployments); every catalog entry names the Responses API, as in Pi
    "openai": "openai-completions",
    "anthropic": "anthropic-messages",
    "google": "google-generative-ai",
    "openai-compatible": "openai-completions",
    "ollama": "openai-completions",
    "openrouter": "openai-completions",
    "groq": "openai-completions",
}

_BASE_URL = {
    "openai": OPENAI_BASE_URL,
    "anthropic": ANTHROPIC_BASE_URL,
    "google": GOOGLE_BASE_URL,
    "ollama": OLLAMA_BASE_URL,
    "openrouter": OPENROUTER_BASE_URL,
    "groq": GROQ_BASE_URL,
}
_DEFAULT_MODEL = {
    "openai": "gpt-4.1",
    "anthropic": "claude-sonnet-4-5",
    "google": "gemini-2.5-flash",
    "openai-compatible": "default",
    "ollama": "llama3.1",
    "openrouter": "anthropic/claude-sonnet-4.5",
    "groq": "openai/gpt-oss-120b",
    "faux": FAUX_MODEL.id,
}
# Switches per provider for the openai-completions API (see OpenAICompat)
_COMPAT: dict[str, dict[str, Any]] = {
    "openai": {
        "supportsDeveloperRole": True,
        "supportsReasoningEffort": True,
        "supportsStore": True,
    },
    "openai-compatible": {"maxTokensField": "max_tokens"},
    "ollama": {"maxTokensField": "max_tokens"},
    "openrouter": {
        "maxTokensField": "max_tokens",
        "supportsReasoningEffort": True,
        "thinkingFormat": "openrouter",
    },
    "groq": {"supportsReasoningEffort": True},
}
_TEXT_IMAGE: list[InputKind] = ["text", "image"]
_TEXT: list[InputKind] = ["text"]


def _m(
    provider: str,
    model_id: str,
    name: str,
    *,
    context: int,
    max_out: int,
    price: tuple[float, float, float, float],
    reasoning: bool = False,
    images: bool = True,
    levels: dict[str, str | None] | None = None,
    api: str | None = None,
) -> Model:
    """A catalog entry; ``price`` is (input, output, cache read, cache write) in $/M tokens."""
    return Model(
        id=model_id,
        name=name,
        api=api or _API[provider],
        provider=provider,
        base_url=_BASE_URL.get(provider, ""),
        reasoning=reasoning,
        input=list(_TEXT_IMAGE if images else _TEXT),
        cost=ModelCost(input=price[0], output=price[1], cache_read=price[2], cache_write=price[3]),
        context_window=context,
        max_tokens=max_out,
        compat=dict(_COMPAT[provider]) if provider in _COMPAT else None,
        thinking_level_map=levels,
    )


_NO_MINIMAL: dict[str, str | None] = {"minimal": None}
_NO_OFF: dict[str, str | None] = {"off": None}
"""No way to turn reasoning off: with thinking off no ``reasoning`` is sent (the model's
default effort applies)."""
_OFF_NONE_XHIGH: dict[str, str | None] = {"off": "none", "xhigh": "xhigh"}
_GEMINI3_PRO_LEVELS: dict[str, str | None] = {
    "off": None,
    "minimal": None,
    "low": "LOW",
    "medium": None,
    "high": "HIGH",
}
_RESPONSES = "openai-responses"


def _openai(
    model_id: str,
    name: str,
    context: int,
    max_out: int,
    price: tuple[float, float, float, float],
    levels: dict[str, str | None] | None = None,
    *,
    reasoning: bool = True,
) -> Model:
    return _m(
        "openai",
        model_id,
        name,
        context=context,
        max_out=max_out,
        price=price,
        reasoning=reasoning,
        levels=levels,
        api=_RESPONSES,
    )


def _gemini(
    model_id: str,
    name: str,
    price: tuple[float, float, float, float],
    levels: dict[str, str | None] | None = None,
    *,
    reasoning: bool = True,
    max_out: int = 65_536,
) -> Model:
    return _m(
        "google",
        model_id,
        name,
        context=1_048_576,
        max_out=max_out,
        price=price,
        reasoning=reasoning,
        levels=levels,
    )


# Pi 0.80.2's figures (context window, max output, $/M input, output, cache read, write).
_OPENAI: tuple[Model, ...] = (
    _openai(
        "gpt-5.5",
        "GPT-5.5",
        272_000,
        128_000,
        (5.0, 30.0, 0.5, 0.0),
        {**_OFF_NONE_XHIGH, "minimal": None},
    ),
    _openai("gpt-5.4", "GPT-5.4", 272_000, 128_000, (2.5, 15.0, 0.25, 0.0), _OFF_NONE_XHIGH),
    _openai(
        "gpt-5.4-mini", "GPT-5.4 mini", 400_000, 128_000, (0.75, 4.5, 0.075, 0.0), _OFF_NONE_XHIGH
    ),
    _openai(
        "gpt-5.4-nano", "GPT-5.4 nano", 400_000, 128_000, (0.2, 1.25, 0.02, 0.0), _OFF_NONE_XHIGH
    ),
    _openai(
        "gpt-5.3-codex",
        "GPT-5.3 Codex",
        400_000,
        128_000,
        (1.75, 14.0, 0.175, 0.0),
        _OFF_NONE_XHIGH,
    ),
    _openai("gpt-5.2", "GPT-5.2", 400_000, 128_000, (1.75, 14.0, 0.175, 0.0), _OFF_NONE_XHIGH),
    _openai("gpt-5.1", "GPT-5.1", 400_000, 128_000, (1.25, 10.0, 0.125, 0.0), {"off": "none"}),
    _openai("gpt-5.1-codex", "GPT-5.1 Codex", 400_000, 128_000, (1.25, 10.0, 0.125, 0.0), _NO_OFF),
    _openai("gpt-5", "GPT-5", 400_000, 128_000, (1.25, 10.0, 0.125, 0.0), _NO_OFF),
    _openai("gpt-5-mini", "GPT-5 mini", 400_000, 128_000, (0.25, 2.0, 0.025, 0.0), _NO_OFF),
    _openai("gpt-5-nano", "GPT-5 nano", 400_000, 128_000, (0.05, 0.4, 0.005, 0.0), _NO_OFF),
    _openai("o3", "o3", 200_000, 100_000, (2.0, 8.0, 0.5, 0.0), {**_NO_MINIMAL, **_NO_OFF}),
    _openai(
        "o4-mini", "o4-mini", 200_000, 100_000, (1.1, 4.4, 0.275, 0.0), {**_NO_MINIMAL, **_NO_OFF}
    ),
    _openai("gpt-4.1", "GPT-4.1", 1_047_576, 32_768, (2.0, 8.0, 0.5, 0.0), reasoning=False),
    _openai(
        "gpt-4.1-mini", "GPT-4.1 mini", 1_047_576, 32_768, (0.4, 1.6, 0.1, 0.0), reasoning=False
    ),
    _openai(
        "gpt-4.1-nano", "GPT-4.1 nano", 1_047_576, 32_768, (0.1, 0.4, 0.025, 0.0), reasoning=False
    ),
    _openai("gpt-4o", "GPT-4o", 128_000, 16_384, (2.5, 10.0, 1.25, 0.0), reasoning=False),
    _openai(
        "gpt-4o-mini", "GPT-4o mini", 128_000, 16_384, (0.15, 0.6, 0.075, 0.0), reasoning=False
    ),
)
_GOOGLE: tuple[Model, ...] = (
    _gemini(
        "gemini-3.1-pro-preview",
        "Gemini 3.1 Pro Preview",
        (2.0, 12.0, 0.2, 0.0),
        _GEMINI3_PRO_LEVELS,
    ),
    _gemini(
        "gemini-3-pro-preview", "Gemini 3 Pro Preview", (2.0, 12.0, 0.2, 0.0), _GEMINI3_PRO_LEVELS
    ),
    _gemini("gemini-3-flash-preview", "Gemini 3 Flash Preview", (0.5, 3.0, 0.05, 0.0), _NO_OFF),
    _gemini("gemini-3.1-flash-lite", "Gemini 3.1 Flash Lite", (0.25, 1.5, 0.025, 0.0), _NO_OFF),
    _gemini("gemini-2.5-pro", "Gemini 2.5 Pro", (1.25, 10.0, 0.125, 0.0)),
    _gemini("gemini-2.5-flash", "Gemini 2.5 Flash", (0.3, 2.5, 0.03, 0.0)),
    _gemini("gemini-2.5-flash-lite", "Gemini 2.5 Flash Lite", (0.1, 0.4, 0.01, 0.0)),
    _gemini(
        "gemini-2.0-flash",
        "Gemini 2.0 Flash",
        (0.1, 0.4, 0.025, 0.0),
        reasoning=False,
        max_out=8_192,
    ),
)

# Prices in $ per million tokens as published by the vendors in late 2025; they drift.
CATALOG: tuple[Model, ...] = (
    *_OPENAI,
    _m(
        "anthropic",
        "claude-sonnet-4-5",
        "Claude Sonnet 4.5",
        context=200_000,
        max_out=64_000,
        price=(3.0, 15.0, 0.3, 3.75),
        reasoning=True,
    ),
    _m(
        "anthropic",
        "claude-haiku-4-5",
        "Claude Haiku 4.5",
        context=200_000,
        max_out=64_000,
        price=(1.0, 5.0, 0.1, 1.25),
        reasoning=True,
    ),
    _m(
        "anthropic",
        "claude-opus-4-5",
        "Claude Opus 4.5",
        context=200_000,
        max_out=64_000,
        price=(5.0, 25.0, 0.5, 6.25),
        reasoning=True,
    ),
    _m(
        "anthropic",
        "claude-opus-4-1",
        "Claude Opus 4.1",
        context=200_000,
        max_out=32_000,
        price=(15.0, 75.0, 1.5, 18.75),
        reasoning=True,
    ),
    _m(
        "anthropic",
        "claude-sonnet-4-0",
        "Claude Sonnet 4",
        context=200_000,
        max_out=64_000,
        price=(3.0, 15.0, 0.3, 3.75),
        reasoning=True,
    ),
    _m(
        "anthropic",
        "claude-3-5-haiku-latest",
        "Claude Haiku 3.5",
        context=200_000,
        max_out=8_192,
        price=(0.8, 4.0, 0.08, 1.0),
    ),
    *_GOOGLE,
    _m(
        "groq",
        "openai/gpt-oss-120b",
        "GPT-OSS 120B (Groq)",
        context=131_072,
        max_out=65_536,
        price=(0.15, 0.75, 0.0, 0.0),
        reasoning=True,
        images=False,
    ),
    _m(
        "groq",
        "llama-3.3-70b-versatile",
        "Llama 3.3 70B (Groq)",
        context=131_072,
        max_out=32_768,
        price=(0.59, 0.79, 0.0, 0.0),
        images=False,
    ),
    _m(
        "openrouter",
        "anthropic/claude-sonnet-4.5",
        "Claude Sonnet 4.5 (OpenRouter)",
        context=1_000_000,
        max_out=64_000,
        price=(3.0, 15.0, 0.3, 3.75),
        reasoning=True,
    ),
    _m(
        "openrouter",
        "openai/gpt-4.1",
        "GPT-4.1 (OpenRouter)",
        context=1_047_576,
        max_out=32_768,
        price=(2.0, 8.0, 0.5, 0.0),
    ),
)

_BY_KEY = {(m.provider, m.id): m for m in CATALOG}


def list_models(provider: str | None = None) -> list[Model]:
    """Catalog entries (copies), optionally for one provider."""
    return [m.model_copy(deep=True) for m in CATALOG if provider in (None, m.provider)]


def is_catalog_model(provider: str, model_id: str) -> bool:
    """True for a catalog entry (and for the faux provider's scripted model)."""
    if provider == "faux":
        return model_id == FAUX_MODEL.id
    return (provider, model_id) in _BY_KEY


def default_model_id(provider: str) -> str:
    """The model used when the ``model`` setting is empty."""
    _check_provider(provider)
    return _DEFAULT_MODEL[provider]


def _check_provider(provider: str) -> None:
    if provider not in PROVIDERS:
        raise ValueError(f"Unknown provider {provider!r}: expected one of {', '.join(PROVIDERS)}")


def _guess(provider: str, model_id: str) -> Model:
    """Defaults for an id the catalog does not know."""
    lowered = model_id.lower()
    reasoning = False
    images = True
    context, max_out = 128_000, 16_384
    if provider == "anthropic":
        reasoning = not any(old in lowered for old in ("claude-3-", "claude-2", "claude-instant"))
        # An id we do not know is often a local server's Anthropic endpoint (llama.cpp):
        # ask for a modest answer rather than 32000 tokens (the `maxTokens` setting wins).
        context, max_out = 200_000, 8_192
    elif provider == "openai":
        series = re.match(r"o(\d)|gpt-(\d+)", lowered)
        if series is not None:
            reasoning = series.group(1) is not None or int(series.group(2)) >= 5
    elif provider == "google":
        reasoning = "gemini-1" not in lowered and "gemini-2.0" not in lowered
        context, max_out = 1_048_576, 65_536
    elif provider in ("openai-compatible", "ollama"):
        images = False  # local servers: images only when the user's model says so
    return _m(
        provider,
        model_id,
        model_id,
        context=context,
        max_out=max_out,
        price=(0.0, 0.0, 0.0, 0.0),
        reasoning=reasoning,
        images=images,
        # a new OpenAI reasoning model keeps its reasoning only through the Responses API
        api=_RESPONSES if provider == "openai" and reasoning else None,
    )


def check_api(api: str) -> None:
    if api not in APIS:
        raise ValueError(f"Unknown api {api!r}: expected one of {', '.join(APIS)}")


def resolve_model(
    provider: str,
    model_id: str | None = None,
    base_url: str | None = None,
    *,
    context_window: int | None = None,
    max_tokens: int | None = None,
    api: str | None = None,
) -> Model:
    """The ``Model`` for the settings ``provider`` / ``model`` / ``baseUrl`` / ``api``.

    ``api`` (when given) replaces the wire API the provider or catalog entry would use: a
    llama.cpp server behind ``openai-compatible`` speaks ``openai-completions``,
    ``openai-responses`` and ``anthropic-messages`` alike.

    ``openai-compatible`` needs a ``base_url``; ``ollama`` defaults to the local server;
    ``faux`` gives the scripted model. ``context_window`` / ``max_tokens`` (the settings of
    the same names) replace the catalog's or the guessed values. Raises ``ValueError`` for an
    unknown provider or a missing base URL (messages name the setting to fix).
    """
    _check_provider(provider)
    api = (api or "").strip() or None
    if api is not None:
        check_api(api)
    if provider == "faux":
        return FAUX_MODEL.model_copy(deep=True)
    model_id = (model_id or "").strip() or _DEFAULT_MODEL[provider]
    base_url = (base_url or "").strip() or None
    if provider == "openai-compatible" and base_url is None:
        raise ValueError(
            "Provider 'openai-compatible' needs a baseUrl setting "
            "(e.g. http://127.0.0.1:8080/v1 for a llama.cpp server)"
        )
    known = _BY_KEY.get((provider, model_id))
    model = known.model_copy(deep=True) if known is not None else _guess(provider, model_id)
    if base_url is not None:
        model.base_url = base_url.rstrip("/")
    if api is not None and api != model.api:
        model.api = api
        if api != "openai-completions":
            model.compat = None  # the Chat Completions switches mean nothing elsewhere
    if context_window:
        model.context_window = context_window
    if max_tokens:
        model.max_tokens = max_tokens
    return model
