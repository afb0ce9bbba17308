"""An MCP ``CallToolResult`` → the agent's tool result.

Text stays text; images become image content (the provider layer drops them for models
without image input, as for ``read``); audio, resource links and embedded resources become
a line of text naming them (an embedded text resource is inlined); structured content is
added as JSON when the server sent no text. The text is cut to the ``bash`` limits (2000 lines
or 50 KB, the beginning kept: a listing or a JSON document is read from the top) with a note
saying so. An ``isError`` result raises ``ToolFailure`` with the server's text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ..agent.types import AgentToolResult, ToolFailure
from ..ai import ImageContent, TextContent
from ..tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head


def _block(block: Any) -> TextContent | ImageContent | None:
    kind = getattr(block, "type", None)
    if kind == "text":
        return TextContent(text=block.text)
    if kind == "image":
        return ImageContent(data=block.data, mime_type=block.mime_type)
    if kind == "audio":
        return TextContent(text=f"[audio content ({block.mime_type}) not shown]")
    if kind == "resource_link":
        about = f": {block.description}" if block.description else ""
        return TextContent(text=f"[resource {block.name} <{block.uri}>{about}]")
    if kind == "resource":
        resource = block.resource
        text = getattr(resource, "text", None)
        if isinstance(text, str):
            return TextContent(text=f"[resource <{resource.uri}>]\n{text}")
        mime = getattr(resource, "mime_type", None) or "binary"
        return TextContent(text=f"[resource <{resource.uri}> ({mime}) not shown]")
    return None


def _cut(text: str) -> tuple[str, dict[str, Any] | None]:
    cut = truncate_head(text, max_lines=DEFAULT_MAX_LINES, max_bytes=DEFAULT_MAX_BYTES)
    if not cut.truncated:
        return text, None
    note = (
        f"\n\n[Output truncated: showing the first {cut.output_lines} of {cut.total_lines} "
        f"lines ({format_size(cut.output_bytes)} of {format_size(cut.total_bytes)}).]"
    )
    return cut.content + note, cut.to_dict()


REDACTED = "[REDACTED]"


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each secret value cut (longest first, so a value that contains another
    is cut whole)."""
    for value in sorted(secrets, key=len, reverse=True):
        if value:
            text = text.replace(value, REDACTED)
    return text


def to_agent_result(
    result: Any, details: dict[str, Any], secrets: Iterable[str] = ()
) -> AgentToolResult:
    """``secrets``: the server's own credentials (``McpServer.secrets``), cut
    from every text the model would see — a server that echoes its token leaks nothing."""
    secrets = list(secrets)
    blocks = [b for b in (_block(x) for x in result.content or []) if b is not None]
    if secrets:
        blocks = [
            TextContent(text=scrub(b.text, secrets)) if isinstance(b, TextContent) else b
            for b in blocks
        ]
    structured = getattr(result, "structured_content", None)
    if structured is not None and not any(isinstance(b, TextContent) for b in blocks):
        dumped = json.dumps(structured, ensure_ascii=False, indent=1)
        blocks.append(TextContent(text=scrub(dumped, secrets)))
    text = "\n".join(b.text for b in blocks if isinstance(b, TextContent))
    if result.is_error:
        raise ToolFailure(_cut(text)[0] or "The MCP tool reported an error (no message).")
    images: list[TextContent | ImageContent] = [b for b in blocks if isinstance(b, ImageContent)]
    shown, truncation = _cut(text)
    out: list[TextContent | ImageContent] = []
    if shown or not images:
        out.append(TextContent(text=shown or "(no output)"))
    out += images
    if truncation is not None:
        details = {**details, "truncation": truncation}
    return AgentToolResult(content=out, details=details)
