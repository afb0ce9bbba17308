"""The ``grep`` tool (docs/reference/pi.md#tool-grep): search file contents, respecting .gitignore.

Resolves and confines the search path, runs a backend from ``grep_search`` (ripgrep when
installed, else Python; selectable for tests), then formats Pi's output: ``path:LINE: text``
for matches, ``path-LINE- text`` for context, 500-character line cut, 50 KiB cap and the
limit notices, plus (not in Pi) the binary files that match, which a directory search skips:
``N binary files skipped (NUL bytes), with matches: …`` — the same from both backends.
Must not import anything above tools/.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path
from typing import Any, ClassVar

import anyio.to_thread
from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from ..agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from ..ai import AbortSignal
from .common import ToolError, ToolParams, text_result, throw_if_aborted
from .grep_search import Backend, GrepMatch, GrepQuery, iter_line_chunks, search
from .paths import root_for
from .regular_files import open_regular
from .truncate import (
    DEFAULT_MAX_BYTES,
    GREP_MAX_LINE_LENGTH,
    UNLIMITED,
    format_size,
    truncate_head,
    truncate_line,
)
from .workspace import Workspace

DEFAULT_LIMIT = 100


class GrepParams(ToolParams):
    pattern: str = Field(description="Search pattern (regex or literal string)")
    path: str | SkipJsonSchema[None] = Field(
        default=None, description="Directory or file to search (default: current directory)"
    )
    glob: str | SkipJsonSchema[None] = Field(
        default=None,
        description="Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'",
    )
    ignore_case: bool | SkipJsonSchema[None] = Field(
        default=None, alias="ignoreCase", description="Case-insensitive search (default: false)"
    )
    literal: bool | SkipJsonSchema[None] = Field(
        default=None,
        description="Treat pattern as literal string instead of regex (default: false)",
    )
    context: int | SkipJsonSchema[None] = Field(
        default=None,
        description="Number of lines to show before and after each match (default: 0)",
    )
    limit: int | SkipJsonSchema[None] = Field(
        default=None, description="Maximum number of matches to return (default: 100)"
    )


class GrepTool(AgentTool[GrepParams]):
    name: ClassVar[str] = "grep"
    label: ClassVar[str] = "grep"
    description: ClassVar[str] = (
        "Search file contents for a pattern. Returns matching lines with file paths and line "
        f"numbers. Respects .gitignore. Output is truncated to {DEFAULT_LIMIT} matches or "
        f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). Long lines are truncated to "
        f"{GREP_MAX_LINE_LENGTH} chars."
    )
    read_only: ClassVar[bool] = True
    parameters: ClassVar[type[GrepParams]] = GrepParams
    prompt_snippet: ClassVar[str] = "Search file contents for patterns (respects .gitignore)"
    prompt_guidelines: ClassVar[tuple[str, ...]] = ()

    def __init__(self, workspace: Workspace, *, backend: Backend = "auto"):
        self.workspace = workspace
        self.backend: Backend = backend

    async def execute(
        self,
        tool_call_id: str,
        params: GrepParams,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        throw_if_aborted(signal)
        ws = self.workspace
        search_path = ws.resolve(params.path or ".")
        if not await ws.exists(search_path):
            raise ToolError(f"Path not found: {search_path}")
        is_dir = await ws.is_dir(search_path)
        if not is_dir and not await anyio.to_thread.run_sync(_is_regular, search_path):
            raise ToolError(
                f"Not a regular file: {search_path} (a FIFO, socket or device); grep searches "
                "files and directories"
            )
        context = params.context if params.context and params.context > 0 else 0
        limit = max(1, DEFAULT_LIMIT if params.limit is None else params.limit)
        query = GrepQuery(
            pattern=params.pattern,
            search_path=search_path,
            is_dir=is_dir,
            root=root_for(ws.roots, search_path),
            glob=params.glob or None,
            ignore_case=bool(params.ignore_case),
            literal=bool(params.literal),
            limit=limit,
        )
        outcome = await search(query, self.backend, signal)
        formatter = _Formatter(ws, search_path, is_dir, context)
        skipped = [formatter.rel(path) for path in outcome.binary_files]
        if not outcome.matches:
            if not skipped:
                return text_result("No matches found")
            return text_result(
                f"No matches found in text files\n\n[{binary_notice(skipped)}]",
                {"binaryFilesSkipped": skipped},
            )
        await formatter.load_context(outcome.matches, signal)
        lines: list[str] = []
        for match in outcome.matches:
            lines.extend(await formatter.block(match))
        trunc = truncate_head("\n".join(lines), max_lines=UNLIMITED)
        details: dict[str, Any] = {}
        notices: list[str] = []
        if outcome.limit_reached:
            notices.append(
                f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern"
            )
            details["matchLimitReached"] = limit
        if trunc.truncated:
            notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
            details["truncation"] = trunc.to_dict()
        if formatter.lines_truncated:
            notices.append(
                f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. "
                "Use read tool to see full lines"
            )
            details["linesTruncated"] = True
        if skipped:
            notices.append(binary_notice(skipped))
            details["binaryFilesSkipped"] = skipped
        text = trunc.content
        if notices:
            text += f"\n\n[{'. '.join(notices)}]"
        return text_result(text, details or None)


BINARY_NAMES_SHOWN = 20


def binary_notice(names: list[str]) -> str:
    """The files a directory search skipped as binary although they match (issue 47)."""
    shown = ", ".join(names[:BINARY_NAMES_SHOWN])
    if len(names) > BINARY_NAMES_SHOWN:
        shown += f", … ({len(names) - BINARY_NAMES_SHOWN} more)"
    files = "file" if len(names) == 1 else "files"
    return (
        f"{len(names)} binary {files} skipped (NUL bytes), with matches: {shown}; search one "
        "as text by giving its path as path, or read it with read"
    )


class _Formatter:
    def __init__(self, workspace: Workspace, search_path: Path, is_dir: bool, context: int):
        self.workspace = workspace
        self.search_path = search_path
        self.is_dir = is_dir
        self.context = context
        self.lines_truncated = False
        self._files: dict[str, dict[int, str]] = {}

    def rel(self, path: str) -> str:
        if self.is_dir:
            rel = os.path.relpath(path, self.search_path)
            if rel and not rel.startswith(".."):
                return rel.replace(os.sep, "/")
        return os.path.basename(path)

    def _cut(self, text: str) -> str:
        cut, was_cut = truncate_line(text)
        self.lines_truncated = self.lines_truncated or was_cut
        return cut

    async def load_context(self, matches: list[GrepMatch], signal: AbortSignal | None) -> None:
        """Read the lines around each match: only those, streaming each file once (a match
        deep in a 400 MB log must not load the log), abortable between chunks."""
        if self.context == 0 and all(m.line_text is not None for m in matches):
            return
        wanted: dict[str, set[int]] = {}
        for match in matches:
            n = match.line_number
            wanted.setdefault(match.path, set()).update(
                range(max(1, n - self.context), n + self.context + 1)
            )
        stop = threading.Event()
        remove = signal.add_callback(stop.set) if signal is not None else None
        try:
            for path, numbers in wanted.items():
                self._files[path] = await anyio.to_thread.run_sync(_read_lines, path, numbers, stop)
        finally:
            if remove is not None:
                remove()
        throw_if_aborted(signal)

    async def block(self, match: GrepMatch) -> list[str]:
        rel = self.rel(match.path)
        if self.context == 0 and match.line_text is not None:
            text = match.line_text.replace("\r\n", "\n").replace("\r", "")
            text = text[:-1] if text.endswith("\n") else text
            return [f"{rel}:{match.line_number}: {self._cut(text)}"]
        lines = self._files.get(match.path) or {}
        if not lines:
            return [f"{rel}:{match.line_number}: (unable to read file)"]
        n = match.line_number
        last = max(lines)
        start = max(1, n - self.context) if self.context else n
        end = min(last, n + self.context) if self.context else n
        out: list[str] = []
        for current in range(start, end + 1):
            text = self._cut(lines.get(current, "").replace("\r", ""))
            sep = ":" if current == n else "-"
            out.append(f"{rel}{sep}{current}{sep} {text}")
        return out


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _read_lines(path: str, numbers: set[int], stop: threading.Event) -> dict[int, str]:
    """Lines ``numbers`` (1-based) of ``path``, and its last line number as a key with the
    line it holds when it is wanted; {} for unreadable or non-regular files."""
    out: dict[int, str] = {}
    highest = max(numbers)
    number = 0
    try:
        fh = open_regular(path)
    except OSError:
        return out
    ends_line = True  # Pi splits on \n: after a final newline comes one empty line
    with fh:
        for chunk in iter_line_chunks(fh, stop):
            text = chunk.decode("utf-8", "replace").replace("\r\n", "\n")
            pieces = text.split("\n")
            ends_line = text.endswith("\n")
            if ends_line:
                pieces.pop()
            for line in pieces:
                number += 1
                if number in numbers:
                    out[number] = line
                if number > highest:
                    return out
    if ends_line and number + 1 in numbers:
        out[number + 1] = ""
    return out
