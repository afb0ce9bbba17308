"""A rename's ``WorkspaceEdit`` → per-file ``TextEdit``s the ``Workspace`` applies as one
change (docs/tools.md#lsp). Refused whole (``CodeIntelError``, nothing applied) when a file
is outside the workspace, the edit creates, renames or deletes files, or a document changed
since the server saw it. Must not import pygls/lsprotocol or anything above tools/.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .code_intel import CodeIntelError, Encoding
from .lsp_positions import line_starts, offset_at
from .lsp_render import uri_to_path
from .workspace import Document, TextEdit, Workspace, WorkspaceError


@dataclass(frozen=True, slots=True)
class FileEdit:
    document: Document
    edits: list[TextEdit]


def raw_edits(edit: Any) -> dict[str, list[dict[str, Any]]]:
    """``uri → [TextEdit JSON]`` of ``changes`` or ``documentChanges``; resource operations
    (``create`` / ``rename`` / ``delete``) refuse the whole edit."""
    if not isinstance(edit, dict):
        raise CodeIntelError("The language server returned no edit for this rename.")
    out: dict[str, list[dict[str, Any]]] = {}
    document_changes = edit.get("documentChanges")
    if isinstance(document_changes, list):
        for change in document_changes:
            if not isinstance(change, dict):
                continue
            if "kind" in change:
                raise CodeIntelError(
                    f"Not renamed: the rename would {change['kind']} files "
                    f"({change.get('uri') or change.get('newUri') or change.get('oldUri')}); "
                    "file operations are not supported. Nothing was changed."
                )
            uri = str(change.get("textDocument", {}).get("uri", ""))
            out.setdefault(uri, []).extend(
                e for e in change.get("edits", []) if isinstance(e, dict)
            )
    else:
        for uri, edits in (edit.get("changes") or {}).items():
            out.setdefault(str(uri), []).extend(e for e in edits if isinstance(e, dict))
    return {uri: edits for uri, edits in out.items() if edits}


async def normalise(
    edit: Any, workspace: Workspace, encoding: Encoding, seen: dict[Path, str]
) -> dict[Path, FileEdit]:
    """Each file's current document and its offset edits. ``seen``: the text the server
    had of each document it answered for (a different current text: stale, refused)."""
    files: dict[Path, FileEdit] = {}
    for uri, edits in raw_edits(edit).items():
        path = uri_to_path(uri)
        if path is None:
            raise CodeIntelError(f"Not renamed: {uri} is not a file. Nothing was changed.")
        try:
            path = workspace.confine(path)
        except WorkspaceError:
            raise CodeIntelError(
                f"Not renamed: the rename would change {path}, outside the workspace. "
                "Nothing was changed."
            ) from None
        document = await workspace.read_document(path)
        expected = seen.get(path)
        if expected is not None and expected != document.text:
            raise CodeIntelError(
                f"Not renamed: {workspace.display_path(path)} changed since the language "
                "server read it. Nothing was changed; run the rename again."
            )
        starts = line_starts(document.text)
        text_edits = [
            TextEdit(
                offset_at(document.text, starts, e["range"]["start"], encoding),
                offset_at(document.text, starts, e["range"]["end"], encoding),
                str(e.get("newText", "")),
            )
            for e in edits
        ]
        files[path] = FileEdit(document, text_edits)
    if not files:
        raise CodeIntelError("The language server found nothing to rename there.")
    return files
