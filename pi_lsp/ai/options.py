"""StreamOptions: what a caller may tell a provider for one request.

Mirrors pi-ai's ``SimpleStreamOptions`` subset that matters here. Providers ignore fields they
do not know. Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .abort import AbortSignal
from .events import RetryInfo
from .thinking_levels import ThinkingLevel

if TYPE_CHECKING:
    import httpx

CacheRetention = Literal["none", "short", "long"]


@dataclass(slots=True)
class StreamOptions:
    api_key: str | None = field(default=None, repr=False)
    """Explicit key; blank counts as missing (then the environment is used). Not in repr."""
    signal: AbortSignal | None = None
    reasoning: ThinkingLevel | None = None
    """Thinking level; ``None`` means thinking off."""
    temperature: float | None = None
    max_tokens: int | None = None
    session_id: str | None = None
    headers: Mapping[str, str] | None = None
    timeout_ms: int | None = None
    """Per-read timeout (no bytes for this long ends the stream with an error)."""
    max_retries: int = 3
    base_retry_delay_ms: int = 1000
    max_retry_delay_ms: int = 60_000
    cache_retention: CacheRetention = "short"
    thinking_budgets: Mapping[str, int] | None = None
    env: Mapping[str, str] | None = None
    """Environment used to look up API keys (default: ``os.environ``)."""
    api_key_env: str | None = None
    """Name of the variable holding the key (the ``apiKeyEnv`` setting); default per provider."""
    on_retry: Callable[[RetryInfo], object] | None = None
    on_payload: Callable[[dict[str, Any]], object] | None = None
    http_client: httpx.AsyncClient | None = None
    """Injected client (tests, connection reuse). The provider never closes it."""
