"""pi_lsp.tools: the coding tools (read, write, edit, bash, grep, find, ls) over a Workspace.

Tools talk only to the ``Workspace`` protocol. Must not import pygls/lsprotocol, nor
``pi_lsp.lsp`` / ``pi_lsp.sessions``.
"""

from .workspace import (
    DirEntry,
    Document,
    EditRejectedError,
    OutsideWorkspaceError,
    StaleDocumentError,
    TextEdit,
    Workspace,
    WorkspaceError,
)

__all__ = [
    "DirEntry",
    "Document",
    "EditRejectedError",
    "OutsideWorkspaceError",
    "StaleDocumentError",
    "TextEdit",
    "Workspace",
    "WorkspaceError",
]
