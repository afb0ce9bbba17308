"""The ``read`` tool (docs/reference/pi.md#tool-read): a file's text, paged by offset/limit, or an
image.

Text comes from ``workspace.read_document`` (the editor's unsaved buffer when it has one);
images are sniffed from the bytes on disk. Binary files and files over ``max_file_bytes`` are
refused with a text that says what to do instead. Must not import anything above tools/.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import ClassVar

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from ..agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from ..ai import AbortSignal, ImageContent, TextContent
from .common import ToolError, ToolParams, text_result, throw_if_aborted
from .images import MAX_INLINE_IMAGE_BYTES, SNIFF_BYTES, looks_binary, sniff_image_mime
from .paths import macos_variants
from .truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head, utf8_len
from .workspace import Workspace, WorkspaceError

BINARY_SNIFF_BYTES = 8192
MAX_READ_FILE_BYTES = 64 * 1024 * 1024


class ReadParams(ToolParams):
    path: str = Field(description="Path to the file to read (relative or absolute)")
    offset: int | SkipJsonSchema[None] = Field(
        default=None, description="Line number to start reading from (1-indexed)"
    )
    limit: int | SkipJsonSchema[None] = Field(
        default=None, description="Maximum number of lines to read"
    )


class ReadTool(AgentTool[ReadParams]):
    name: ClassVar[str] = "read"
    label: ClassVar[str] = "read"
    description: ClassVar[str] = (
        "Read the contents of a file. Supports text files and images (jpg, png, gif, webp). "
        "Images are sent as attachments. For text files, output is truncated to "
        f"{DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). "
        "Use offset/limit for large files. When you need the full file, continue with offset "
        "until complete."
    )
    read_only: ClassVar[bool] = True
    parameters: ClassVar[type[ReadParams]] = ReadParams
    prompt_snippet: ClassVar[str] = "Read file contents"
    prompt_guidelines: ClassVar[tuple[str, ...]] = (
        "Use read to examine files instead of cat or sed.",
    )

    def __init__(self, workspace: Workspace, *, max_file_bytes: int = MAX_READ_FILE_BYTES):
        self.workspace = workspace
        self.max_file_bytes = max_file_bytes

    async def execute(
        self,
        tool_call_id: str,
        params: ReadParams,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        throw_if_aborted(signal)
        ws = self.workspace
        path = await self._resolve(params.path)
        if await ws.is_dir(path):
            raise ToolError(
                f"Cannot read {params.path}: it is a directory. Use ls to list its contents."
            )
        try:
            head: bytes | None = await ws.read_head(path, BINARY_SNIFF_BYTES)
        except FileNotFoundError:
            head = None  # maybe an editor buffer that was never saved
        except PermissionError as exc:
            raise ToolError(f"Permission denied: cannot read {path}") from exc
        except OSError as exc:
            raise ToolError(f"Cannot read {params.path}: {exc.strerror or exc}.") from exc
        if head is not None:
            mime = sniff_image_mime(head[:SNIFF_BYTES])
            if mime is not None:
                return await self._image(path, mime)
            size = await ws.file_size(path)
            if looks_binary(head):
                raise ToolError(
                    f"Cannot read {params.path}: it is a binary file ({format_size(size)}). "
                    "read supports text files and images (jpg, png, gif, webp); inspect other "
                    "files with bash (e.g. `file`, `xxd | head`)."
                )
            if size > self.max_file_bytes:
                raise ToolError(
                    f"Cannot read {params.path}: the file is {format_size(size)}, over the "
                    f"{format_size(self.max_file_bytes)} limit of the read tool. Use bash to "
                    f"look at parts of it (e.g. `sed -n '1,200p' {params.path}`, `head`, `tail`, "
                    "`grep -n`)."
                )
        try:
            document = await ws.read_document(path)
        except FileNotFoundError as exc:
            raise ToolError(f"File not found: {path}") from exc
        except PermissionError as exc:
            raise ToolError(f"Permission denied: cannot read {path}") from exc
        throw_if_aborted(signal)
        text = _displayable(document.text)
        return page_text(text, params.path, params.offset, params.limit)

    async def _resolve(self, raw: str) -> Path:
        ws = self.workspace
        path = ws.resolve(raw)
        if await ws.exists(path):
            return path
        for variant in macos_variants(path):
            try:
                candidate = ws.confine(variant)
            except WorkspaceError:
                continue
            if await ws.exists(candidate):
                return candidate
        return path

    async def _image(self, path: Path, mime: str) -> AgentToolResult:
        size = await self.workspace.file_size(path)
        note = f"Read image file [{mime}]"
        if size > MAX_INLINE_IMAGE_BYTES:
            return text_result(
                f"{note}\n[Image omitted: it is {format_size(size)}, over the "
                f"{format_size(MAX_INLINE_IMAGE_BYTES)} inline image size limit, and pi-lsp "
                "does not resize images.]"
            )
        data = await self.workspace.read_bytes(path)
        return AgentToolResult(
            content=[
                TextContent(text=note),
                ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime),
            ]
        )


def _displayable(text: str) -> str:
    """Undecodable bytes (kept as lone surrogates by the workspace) shown as U+FFFD."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return text


def page_text(text: str, path: str, offset: int | None, limit: int | None) -> AgentToolResult:
    """Pi's text paging: offset (1-indexed), limit, then head truncation with its hints."""
    all_lines = text.split("\n")
    total = len(all_lines)
    start = max(0, offset - 1) if offset else 0
    first_shown = start + 1
    if start >= total:
        raise ToolError(f"Offset {offset} is beyond end of file ({total} lines total)")
    user_limited: int | None = None
    if limit is not None:
        end = min(start + limit, total)
        user_limited = max(0, end - start)
    else:
        end = total
    selected_lines = all_lines[start:end] if (start, end) != (0, total) else all_lines
    selected = text if selected_lines is all_lines else "\n".join(selected_lines)
    trunc = truncate_head(selected, lines=selected_lines)
    if trunc.first_line_exceeds_limit:
        size = format_size(utf8_len(all_lines[start]))
        return text_result(
            f"[Line {first_shown} is {size}, exceeds {format_size(DEFAULT_MAX_BYTES)} limit. "
            f"Use bash: sed -n '{first_shown}p' {path} | head -c {DEFAULT_MAX_BYTES}]",
            {"truncation": trunc.to_dict()},
        )
    if trunc.truncated:
        last_shown = first_shown + trunc.output_lines - 1
        if trunc.truncated_by == "lines":
            hint = f"[Showing lines {first_shown}-{last_shown} of {total}. "
        else:
            hint = (
                f"[Showing lines {first_shown}-{last_shown} of {total} "
                f"({format_size(DEFAULT_MAX_BYTES)} limit). "
            )
        return text_result(
            f"{trunc.content}\n\n{hint}Use offset={last_shown + 1} to continue.]",
            {"truncation": trunc.to_dict()},
        )
    if user_limited is not None and start + user_limited < total:
        remaining = total - (start + user_limited)
        return text_result(
            f"{trunc.content}\n\n[{remaining} more lines in file. "
            f"Use offset={start + user_limited + 1} to continue.]"
        )
    return text_result(trunc.content)
