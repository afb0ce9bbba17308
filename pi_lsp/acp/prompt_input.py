"""An ACP prompt (content blocks) → the user message the agent gets.

Text blocks are kept as they are; a ``resource_link`` becomes an ``@path`` mention (the
model reads the file itself); an embedded text resource is inlined as a ``<file>`` block
(the editor's selection or buffer, sent as context); images become image content when the
model accepts images. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote, urlparse

from acp.schema import (
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from ..agent.messages import user_message
from ..ai.types import ImageContent, UserMessage


def _path_of(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def prompt_text(blocks: Sequence[Any]) -> str:
    """The prompt's text as the user typed it (for titles and notices)."""
    return "".join(b.text for b in blocks if isinstance(b, TextContentBlock)).strip()


def to_message(blocks: Sequence[Any], *, images_allowed: bool) -> UserMessage:
    parts: list[str] = []
    images: list[ImageContent] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(f"@{_path_of(block.uri)}")
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                path = _path_of(resource.uri)
                parts.append(f'\n<file path="{path}">\n{resource.text}\n</file>\n')
        elif isinstance(block, ImageContentBlock):
            if images_allowed:
                images.append(ImageContent(data=block.data, mime_type=block.mime_type))
            else:
                parts.append("[an image was attached; this model does not accept images]")
    text = " ".join(p for p in parts if p) if parts else ""
    return user_message(text, images)
