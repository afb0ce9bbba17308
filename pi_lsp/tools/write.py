"""The ``write`` tool (docs/reference/pi.md#tool-write): create or overwrite a whole file.

Goes through ``workspace.write_document`` inside the file's mutation lock (so it orders with
concurrent edits of the same file). Parent directories are created. The byte count in the
result is Pi's: UTF-16 code units of the content. Must not import anything above tools/.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ..agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from ..ai import AbortSignal
from .common import ToolError, ToolParams, text_result, throw_if_aborted, utf16_length
from .workspace import ToolCallContext, Workspace


class WriteParams(ToolParams):
    path: str = Field(description="Path to the file to write (relative or absolute)")
    content: str = Field(description="Content to write to the file")


class WriteTool(AgentTool[WriteParams]):
    name: ClassVar[str] = "write"
    label: ClassVar[str] = "write"
    description: ClassVar[str] = (
        "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. "
        "Automatically creates parent directories."
    )
    parameters: ClassVar[type[WriteParams]] = WriteParams
    prompt_snippet: ClassVar[str] = "Create or overwrite files"
    prompt_guidelines: ClassVar[tuple[str, ...]] = (
        "Use write only for new files or complete rewrites",
    )

    def __init__(self, workspace: Workspace, *, session_id: str | None = None):
        self.workspace = workspace
        self.session_id = session_id
        """The session whose agent calls this tool (set by the runtime once it is known)."""

    async def execute(
        self,
        tool_call_id: str,
        params: WriteParams,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        ws = self.workspace
        path = ws.resolve(params.path)
        async with ws.mutation_lock(path):
            throw_if_aborted(signal)
            if await ws.is_dir(path):
                raise ToolError(f"Cannot write {params.path}: it is a directory.")
            created = not await ws.exists(path)
            try:
                await ws.write_document(
                    path,
                    params.content,
                    label=f"pi: write {ws.display_path(path)}",
                    context=ToolCallContext(self.session_id, tool_call_id, signal),
                )
            except PermissionError as exc:
                raise ToolError(f"Permission denied: cannot write {path}") from exc
            except NotADirectoryError as exc:
                raise ToolError(
                    f"Cannot write {params.path}: a parent of it is a file, not a directory."
                ) from exc
            except OSError as exc:
                raise ToolError(f"Cannot write {params.path}: {exc.strerror or exc}.") from exc
        note = await ws.disk_note([path])
        return text_result(
            f"Successfully wrote {utf16_length(params.content)} bytes to {params.path}"
            + (f". {note}" if note else ""),
            {"created": created, "path": str(path)},
        )
