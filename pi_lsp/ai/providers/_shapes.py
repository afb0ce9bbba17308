"""Which wire API a stream chunk belongs to, so a ``baseUrl`` that answers in another API's
shape fails naming the ``api`` value that would work (instead of a stream that "ends early").

Pure functions, standard library only. Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from ._http import ProviderError

_ANTHROPIC_EVENTS = frozenset(
    {"message_start", "content_block_start", "content_block_delta", "message_delta"}
)


def api_of_chunk(payload: dict[str, Any]) -> str | None:
    """The API whose stream ``payload`` (one parsed SSE data object) looks like, if clear."""
    kind = payload.get("type")
    if "choices" in payload:
        return "openai-completions"
    if "candidates" in payload or "usageMetadata" in payload:
        return "google-generative-ai"
    if isinstance(kind, str):
        if kind.startswith("response."):
            return "openai-responses"
        if kind in _ANTHROPIC_EVENTS:
            return "anthropic-messages"
    return None


def check_shape(payload: dict[str, Any], expected: str) -> None:
    """Raise a ``ProviderError`` naming the fix when ``payload`` is another API's chunk."""
    found = api_of_chunk(payload)
    if found is not None and found != expected:
        raise ProviderError(
            f"The server at `baseUrl` answered in the {found} shape, not {expected}: set "
            f"`api` to {found} (the `api` setting / --api), or fix `baseUrl`"
        )


def stream_object(data: str, expected: str, what: Literal["chunk", "event"]) -> dict[str, Any]:
    """One SSE ``data`` field (non-empty, stripped) parsed as the JSON object ``expected``'s
    stream sends; a ``ProviderError`` quoting its start when it is not JSON, not an object, or
    another API's chunk (``check_shape``)."""
    excerpt = data if len(data) <= 200 else data[:200] + "…"
    try:
        payload = json.loads(data)
    except ValueError:
        raise ProviderError(f"Invalid JSON in stream {what}: {excerpt}") from None
    if not isinstance(payload, dict):
        raise ProviderError(f"Invalid stream {what}: {excerpt}")
    check_shape(payload, expected)
    return payload
