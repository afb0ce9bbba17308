"""Whose key is this? The published key prefixes of the big vendors, so a key set for one
provider is not sent to another's official endpoint (it would only earn a 401, and the key
would have been shown to a third party).

Only checked when the request goes to the vendor's own host: proxies and local servers
accept whatever their operators chose. Standard library only; must not import anything of
ours above ``ai/``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

# vendor -> (official hosts, key prefixes); more specific prefixes first in _owner
_HOSTS: dict[str, tuple[str, ...]] = {
    "openai": ("api.openai.com",),
    "anthropic": ("api.anthropic.com",),
    "google": ("generativelanguage.googleapis.com",),
}
_PREFIXES: tuple[tuple[str, str], ...] = (
    ("sk-ant-", "anthropic"),
    ("sk-or-", "openrouter"),
    ("AIza", "google"),
    ("gsk_", "groq"),
    ("xai-", "xai"),
    ("sk-", "openai"),
)
_NAMES = {
    "anthropic": "an Anthropic key",
    "openrouter": "an OpenRouter key",
    "google": "a Google (Gemini) key",
    "groq": "a Groq key",
    "xai": "an xAI key",
    "openai": "an OpenAI key",
}


def key_owner(key: str) -> str | None:
    """The vendor whose published prefix ``key`` has, if any."""
    for prefix, owner in _PREFIXES:
        if key.startswith(prefix):
            return owner
    return None


def wrong_provider_message(provider: str, base_url: str, key: str, variable: str) -> str | None:
    """An error naming the fix when ``key`` clearly belongs to another vendor than the
    official ``base_url`` of ``provider``; None when it may be right."""
    hosts = _HOSTS.get(provider)
    if hosts is None:
        return None
    host = (urlsplit(base_url).hostname or "").lower()
    if host not in hosts:
        return None
    owner = key_owner(key)
    if owner is None or owner == provider:
        return None
    return (
        f"The API key in {variable} is {_NAMES[owner]}, but provider '{provider}' sends it to "
        f"{host}: set {variable} to a {provider} key, or choose the provider '{owner}' "
        "(the `provider` setting / --provider)"
    )
