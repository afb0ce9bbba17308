"""API keys from the environment, and what counts as a secret environment variable.

Keys come only from the environment or an env-var name the user configured (``apiKeyEnv``);
they are never logged. ``is_secret_env_name`` is shared by the bash tool's environment scrub
and by session/log redaction; the patterns themselves live in ``security.env_secrets`` and
the secrets moved out of ``os.environ`` at start-up in ``security.vault`` (so the default
look-up source is ``vault.environ()``). Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from ..security import env_secrets, vault

# provider -> env vars, in order of preference (docs/reference/pi.md#env-keys)
PROVIDER_ENV_KEYS: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"),
    "openai": ("OPENAI_API_KEY",),
    "google": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "groq": ("GROQ_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "nvidia": ("NVIDIA_API_KEY",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "together": ("TOGETHER_API_KEY",),
    "huggingface": ("HF_TOKEN",),
    # any OpenAI-compatible server: a key is optional (Ollama, llama.cpp need none)
    "openai-compatible": ("OPENAI_COMPATIBLE_API_KEY",),
    "ollama": ("OLLAMA_API_KEY",),
}

KEY_OPTIONAL_PROVIDERS: frozenset[str] = frozenset({"openai-compatible", "ollama", "faux"})
"""Providers whose servers usually need no key (a configured one is still sent)."""


def get_env_api_key(
    provider: str, env: Mapping[str, str] | None = None, api_key_env: str | None = None
) -> str | None:
    """The key for ``provider``: the ``api_key_env`` variable if named, else the provider's
    default variables in order. Empty or whitespace-only values count as missing."""
    source = vault.environ() if env is None else env
    names = (api_key_env,) if api_key_env else PROVIDER_ENV_KEYS.get(provider, ())
    for name in names:
        value = source.get(name)
        if value and value.strip():
            return value.strip()
    return None


def env_key_variable(
    provider: str, env: Mapping[str, str] | None = None, api_key_env: str | None = None
) -> str:
    """The name of the variable ``get_env_api_key`` took the key from (for messages)."""
    source = vault.environ() if env is None else env
    names = (api_key_env,) if api_key_env else PROVIDER_ENV_KEYS.get(provider, ())
    for name in names:
        value = source.get(name)
        if value and value.strip():
            return name
    return names[0] if names else "the API key variable"


def requires_api_key(provider: str) -> bool:
    """False for local / self-hosted servers (and the faux provider)."""
    return provider not in KEY_OPTIONAL_PROVIDERS


def missing_key_message(provider: str, api_key_env: str | None = None) -> str:
    """The error text for a missing key: names the variable(s) to set, never a value."""
    names = (api_key_env,) if api_key_env else PROVIDER_ENV_KEYS.get(provider, ())
    where = " or ".join(names) if names else "an API key variable"
    hint = "" if api_key_env else " (or name another variable with the apiKeyEnv setting)"
    return f"No API key for provider '{provider}': set {where}{hint}"


def is_secret_env_name(name: str) -> bool:
    """True for variables that look like credentials (``*_KEY``, ``*_TOKEN``, ``*_SECRET``,
    ``*PASSWORD*``, ``*_DSN``, ``DATABASE_URL`` … see ``security.env_secrets``) and for every
    provider key variable."""
    if env_secrets.is_secret_name(name):
        return True
    return any(name in names for names in PROVIDER_ENV_KEYS.values())


def scrub_env(
    env: Mapping[str, str],
    *,
    allow: Collection[str] = frozenset(),
    extra_secrets: Collection[str] = frozenset(),
) -> dict[str, str]:
    """A copy of ``env`` without secrets: credential-looking names or values, provider key
    variables and ``extra_secrets`` (e.g. the configured ``apiKeyEnv``); ``allow`` keeps the
    named ones (the user's ``permissions.envAllow``)."""
    providers = {n for names in PROVIDER_ENV_KEYS.values() for n in names}
    return env_secrets.scrub_env(env, allow=allow, extra_secrets={*extra_secrets, *providers})
