"""The ``ls`` tool (docs/reference/pi.md#tool-ls): one directory's entries, dotfiles included.

Entries are sorted case-insensitively, directories get a ``/`` suffix, entries that cannot be
stat'ed are skipped; 500 entries / 50 KiB with Pi's notices. Listing goes through
``workspace.list_dir``. Must not import anything above tools/.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from ..agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from ..ai import AbortSignal
from .common import ToolError, ToolParams, resolve_directory, text_result, throw_if_aborted
from .truncate import DEFAULT_MAX_BYTES, UNLIMITED, format_size, truncate_head
from .workspace import Workspace

DEFAULT_LIMIT = 500


class LsParams(ToolParams):
    path: str | SkipJsonSchema[None] = Field(
        default=None, description="Directory to list (default: current directory)"
    )
    limit: int | SkipJsonSchema[None] = Field(
        default=None, description="Maximum number of entries to return (default: 500)"
    )


class LsTool(AgentTool[LsParams]):
    name: ClassVar[str] = "ls"
    label: ClassVar[str] = "ls"
    description: ClassVar[str] = (
        "List directory contents. Returns entries sorted alphabetically, with '/' suffix for "
        f"directories. Includes dotfiles. Output is truncated to {DEFAULT_LIMIT} entries or "
        f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first)."
    )
    read_only: ClassVar[bool] = True
    parameters: ClassVar[type[LsParams]] = LsParams
    prompt_snippet: ClassVar[str] = "List directory contents"
    prompt_guidelines: ClassVar[tuple[str, ...]] = ()

    def __init__(self, workspace: Workspace):
        self.workspace = workspace

    async def execute(
        self,
        tool_call_id: str,
        params: LsParams,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        throw_if_aborted(signal)
        ws = self.workspace
        directory = await resolve_directory(ws, params.path)
        try:
            entries = await ws.list_dir(directory)
        except OSError as exc:
            raise ToolError(f"Cannot read directory: {exc.strerror or exc}") from exc
        throw_if_aborted(signal)
        entries.sort(key=lambda e: (e.name.lower(), e.name))
        limit = DEFAULT_LIMIT if params.limit is None else params.limit
        results: list[str] = []
        limit_reached = False
        for entry in entries:
            if len(results) >= limit:
                limit_reached = True
                break
            results.append(entry.name + "/" if entry.is_dir else entry.name)
        if not results:
            return text_result("(empty directory)")
        trunc = truncate_head("\n".join(results), max_lines=UNLIMITED)
        details: dict[str, Any] = {}
        notices: list[str] = []
        if limit_reached:
            notices.append(f"{limit} entries limit reached. Use limit={limit * 2} for more")
            details["entryLimitReached"] = limit
        if trunc.truncated:
            notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
            details["truncation"] = trunc.to_dict()
        text = trunc.content + (f"\n\n[{'. '.join(notices)}]" if notices else "")
        return text_result(text, details or None)
