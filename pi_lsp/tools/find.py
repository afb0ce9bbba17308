"""The ``find`` tool (docs/reference/pi.md#tool-find): files and directories by glob, respecting
.gitignore.

Behaves like Pi's ``fd --glob --hidden``: a pattern without ``/`` matches the entry name, one
with ``/`` the full path (prefixed ``**/``); smart case (case-insensitive unless the pattern has
an uppercase letter). Results are POSIX paths relative to the search directory, directories
with a trailing ``/``. The walk (``walk``, pathspec for ignore files) runs in a worker thread.
Must not import anything above tools/.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, ClassVar

import anyio.to_thread
from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from ..agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from ..ai import AbortSignal
from .common import (
    ABORTED_MESSAGE,
    ToolError,
    ToolParams,
    resolve_directory,
    text_result,
    throw_if_aborted,
)
from .globs import glob_to_regex
from .linear_regex import PatternError
from .paths import root_for
from .truncate import DEFAULT_MAX_BYTES, UNLIMITED, format_size, truncate_head
from .walk import walk
from .workspace import Workspace

DEFAULT_LIMIT = 1000


class FindParams(ToolParams):
    pattern: str = Field(
        description="Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"
    )
    path: str | SkipJsonSchema[None] = Field(
        default=None, description="Directory to search in (default: current directory)"
    )
    limit: int | SkipJsonSchema[None] = Field(
        default=None, description="Maximum number of results (default: 1000)"
    )


def find_paths(
    root: Path, search: Path, pattern: str, limit: int, stop: threading.Event
) -> list[str]:
    """Matching entries under ``search`` in walk order, at most ``limit``."""
    full_path = "/" in pattern
    effective = pattern
    if full_path and not (pattern.startswith(("/", "**/")) or pattern == "**"):
        effective = f"**/{pattern}"
    regex = glob_to_regex(effective, ignore_case=pattern == pattern.lower())
    results: list[str] = []
    for entry in walk(root, search, cancelled=stop.is_set):
        target = Path(entry.path).as_posix() if full_path else entry.rel.rsplit("/", 1)[-1]
        if regex.match(target):
            results.append(entry.rel + "/" if entry.is_dir else entry.rel)
            if len(results) >= limit:
                break
    return results


class FindTool(AgentTool[FindParams]):
    name: ClassVar[str] = "find"
    label: ClassVar[str] = "find"
    description: ClassVar[str] = (
        "Search for files by glob pattern. Returns matching file paths relative to the search "
        f"directory. Respects .gitignore. Output is truncated to {DEFAULT_LIMIT} results or "
        f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first)."
    )
    read_only: ClassVar[bool] = True
    parameters: ClassVar[type[FindParams]] = FindParams
    prompt_snippet: ClassVar[str] = "Find files by glob pattern (respects .gitignore)"
    prompt_guidelines: ClassVar[tuple[str, ...]] = ()

    def __init__(self, workspace: Workspace):
        self.workspace = workspace

    async def execute(
        self,
        tool_call_id: str,
        params: FindParams,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        throw_if_aborted(signal)
        ws = self.workspace
        search = await resolve_directory(ws, params.path)
        limit = max(1, DEFAULT_LIMIT if params.limit is None else params.limit)
        try:
            glob_to_regex(params.pattern)  # a bad pattern fails here, before the walk
        except PatternError as exc:
            raise ToolError(f"invalid glob {params.pattern!r}: {exc}") from None
        stop = threading.Event()
        remove = signal.add_callback(stop.set) if signal is not None else None
        try:
            results = await anyio.to_thread.run_sync(
                find_paths, root_for(ws.roots, search), search, params.pattern, limit, stop
            )
        finally:
            if remove is not None:
                remove()
        if stop.is_set():
            raise ToolError(ABORTED_MESSAGE)
        if not results:
            return text_result("No files found matching pattern")
        trunc = truncate_head("\n".join(results), max_lines=UNLIMITED)
        details: dict[str, Any] = {}
        notices: list[str] = []
        if len(results) >= limit:
            notices.append(
                f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern"
            )
            details["resultLimitReached"] = limit
        if trunc.truncated:
            notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
            details["truncation"] = trunc.to_dict()
        text = trunc.content + (f"\n\n[{'. '.join(notices)}]" if notices else "")
        return text_result(text, details or None)
