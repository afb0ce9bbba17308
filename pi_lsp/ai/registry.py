"""Provider registry and the ``stream()`` / ``complete()`` entry points.

``stream(model, context, options)`` looks up the provider registered for ``model.api`` and
returns its event stream. An unknown api raises ``UnknownApiError`` *before* any stream exists
(as pi-ai's ``No API provider registered for api: x``); after that, nothing raises.
Built-in providers register themselves lazily on first use. Must not import anything of ours
above ``ai/``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from .event_stream import AssistantMessageEventStream
from .options import StreamOptions
from .types import AssistantMessage, Context, Model

ProviderStreamFn = Callable[[Model, Context, StreamOptions], AssistantMessageEventStream]


class UnknownApiError(LookupError):
    """No provider is registered for a model's ``api``."""


_providers: dict[str, ProviderStreamFn] = {}

# api name -> module that registers it on import
_BUILTIN: dict[str, str] = {
    "openai-completions": "pi_lsp.ai.providers.openai_completions",
    "openai-responses": "pi_lsp.ai.providers.openai_responses",
    "google-generative-ai": "pi_lsp.ai.providers.google_generative_ai",
    "anthropic-messages": "pi_lsp.ai.providers.anthropic_messages",
    "faux": "pi_lsp.ai.providers.faux",
}


def register_provider(api: str, stream_fn: ProviderStreamFn) -> None:
    _providers[api] = stream_fn


def get_provider(api: str) -> ProviderStreamFn:
    fn = _providers.get(api)
    if fn is None and api in _BUILTIN:
        importlib.import_module(_BUILTIN[api])
        fn = _providers.get(api)
    if fn is None:
        raise UnknownApiError(f"No API provider registered for api: {api}")
    return fn


def registered_apis() -> list[str]:
    return sorted(set(_providers) | set(_BUILTIN))


def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    """Start a streaming request. Failures after this returns are encoded in the stream."""
    return get_provider(model.api)(model, context, options or StreamOptions())


async def complete(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessage:
    """Run a request to the end and return the final message (never raises after start)."""
    return await stream(model, context, options).result()
