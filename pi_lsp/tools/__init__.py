"""pi_lsp.tools: the coding tools (read, write, edit, bash, grep, find, ls) over a Workspace.

Tools talk only to the ``Workspace`` protocol. Must not import pygls/lsprotocol, nor
``pi_lsp.lsp`` / ``pi_lsp.sessions``.
"""

from .common import ToolError, ToolParams
from .disk_workspace import DiskWorkspace
from .edit import EditParams, EditTool
from .read import ReadParams, ReadTool
from .workspace import (
    DirEntry,
    Document,
    EditRejectedError,
    OutsideWorkspaceError,
    StaleDocumentError,
    TextEdit,
    Workspace,
    WorkspaceError,
    apply_text_edits,
)
from .write import WriteParams, WriteTool

__all__ = [
    "DirEntry",
    "DiskWorkspace",
    "Document",
    "EditParams",
    "EditRejectedError",
    "EditTool",
    "OutsideWorkspaceError",
    "ReadParams",
    "ReadTool",
    "StaleDocumentError",
    "TextEdit",
    "ToolError",
    "ToolParams",
    "Workspace",
    "WorkspaceError",
    "WriteParams",
    "WriteTool",
    "apply_text_edits",
]
