"""Which provider to use when none is configured, and the variable its key is read from."""

from __future__ import annotations

from collections.abc import Mapping

from ..ai.env_keys import PROVIDER_ENV_KEYS
from ..security import vault


def default_provider(env: Mapping[str, str] | None = None) -> str | None:
    """With no provider configured: the first of anthropic, openai, google whose key is set."""
    source = vault.environ() if env is None else env
    for provider in ("anthropic", "openai", "google"):
        if any(source.get(name, "").strip() for name in PROVIDER_ENV_KEYS[provider]):
            return provider
    return None


def api_key_variable(provider: str, api_key_env: str | None = None) -> str:
    """The environment variable the key of ``provider`` is read from (``api_key_env`` when
    the user named one), for messages that tell the user what to set."""
    if api_key_env:
        return api_key_env
    names = PROVIDER_ENV_KEYS.get(provider)
    return names[-1] if names else f"{provider.upper().replace('-', '_')}_API_KEY"
