"""pi_lsp.tools: the coding tools (read, write, edit, bash, grep, find, ls) over a Workspace.

Tools talk only to the ``Workspace`` protocol; ``DiskWorkspace`` implements it on the disk
(the LSP layer subclasses it). ``create_coding_tools`` builds the set, ``build_system_prompt``
the coding-agent prompt. Must not import pygls/lsprotocol, nor ``pi_lsp.lsp`` /
``pi_lsp.sessions``.
"""

from .bash import BashOptions, BashParams, BashSandbox, BashTool
from .common import ToolError, ToolParams
from .disk_workspace import DiskWorkspace
from .edit import EditItem, EditParams, EditTool
from .factory import ALL_TOOL_NAMES, READ_ONLY_TOOL_NAMES, create_coding_tools
from .find import FindParams, FindTool
from .grep import GrepParams, GrepTool
from .ls import LsParams, LsTool
from .process import ProcessRegistry, default_registry
from .prompt import build_system_prompt
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
    "ALL_TOOL_NAMES",
    "READ_ONLY_TOOL_NAMES",
    "BashOptions",
    "BashParams",
    "BashSandbox",
    "BashTool",
    "DirEntry",
    "DiskWorkspace",
    "Document",
    "EditItem",
    "EditParams",
    "EditRejectedError",
    "EditTool",
    "FindParams",
    "FindTool",
    "GrepParams",
    "GrepTool",
    "LsParams",
    "LsTool",
    "OutsideWorkspaceError",
    "ProcessRegistry",
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
    "build_system_prompt",
    "create_coding_tools",
    "default_registry",
]
