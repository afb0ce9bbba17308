"""Several files' edits as one ``workspace/applyEdit`` (a rename from the ``lsp`` tool):
``EditorWorkspace.apply_workspace_edit`` calls ``apply_files``.

Each file is edited like ``EditorWorkspace.apply_edits`` does it — rebased onto newer user
text (a conflict refuses the whole change), its review hunks, its disk sync and post-edit
diagnostics — but the editor gets one ``WorkspaceEdit`` with every file's versioned
``TextDocumentEdit``: one undo step, one confirmation, one preview.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types

from ...review import merge3, split_hunks
from ...tools.workspace import (
    Document,
    FileEdits,
    StaleDocumentError,
    TextEdit,
    ToolCallContext,
    apply_text_edits,
)
from .edits import BOM, EditTarget, first_changed_range, workspace_edit

EditorWorkspace = Any
"""``editor_workspace.EditorWorkspace`` (not imported: it imports this module); its
internals used here are the ones its own ``apply_edits`` uses."""


@dataclass(slots=True)
class _Planned:
    document: Document
    target: EditTarget
    user_dirty: bool
    new_text: str
    edits: list[TextEdit]


async def _plan(ws: EditorWorkspace, files: FileEdits) -> list[_Planned]:
    planned: list[_Planned] = []
    for document, edits in files.values():
        new_text = apply_text_edits(document.text, edits)
        target, user_dirty = await ws._current(document)
        out = list(edits)
        if target.text != document.text:  # the user typed since: rebase onto their text
            merged = merge3(document.text, new_text, target.text)
            if merged.text is None:
                raise StaleDocumentError(ws._conflict_message(document, merged))
            new_text = merged.text
            out = [TextEdit(r.start, r.end, r.new_text) for r in split_hunks(target.text, new_text)]
        planned.append(_Planned(document, target, user_dirty, new_text, out))
    return planned


def _combined(ws: EditorWorkspace, planned: list[_Planned], label: str) -> types.WorkspaceEdit:
    options = ws._options(label)
    document_changes: list[types.TextDocumentEdit] = []
    changes: dict[str, list[types.TextEdit]] = {}
    annotations = None
    for p in planned:
        one = workspace_edit(p.target, p.edits, options)
        annotations = annotations or one.change_annotations
        for change in one.document_changes or ():
            if isinstance(change, types.TextDocumentEdit):
                document_changes.append(change)
        for uri, edits in (one.changes or {}).items():
            changes.setdefault(uri, []).extend(edits)
    if options.document_changes:
        return types.WorkspaceEdit(
            document_changes=list(document_changes), change_annotations=annotations
        )
    return types.WorkspaceEdit(changes=changes)


async def apply_files(
    ws: EditorWorkspace, files: FileEdits, *, label: str, context: ToolCallContext | None
) -> None:
    signal = context.signal if context is not None else None
    label = label if label.startswith("pi") else f"pi: {label}"
    planned = await _plan(ws, files)
    if ws._policy().settings.edits == "confirm" and not ws.bridge.change_annotations:
        diffs = "\n\n".join(
            _diff(p.target.text, p.new_text, ws.display_path(p.document.path)) for p in planned
        )
        answer = await ws.bridge.ask(
            f"{label}\n\n{diffs}\n\nApply?",
            ["Apply", "Reject"],
            kind=types.MessageType.Info,
            signal=signal,
        )
        if answer != "Apply":
            from ...tools.workspace import EditRejectedError

            raise EditRejectedError("The user rejected the change; nothing was written.")
        planned = await _plan(ws, files)  # the user may have typed meanwhile
    edit = _combined(ws, planned, label)
    bases: dict[Path, int | None] = {}
    for p in planned:
        path = p.document.path
        buf = ws.tracker.buffer(p.target.uri) if ws.tracker.uri_for(path) else None
        bases[path] = buf.version if buf is not None else None
        ws._last_read[path] = p.new_text
        if ws.review is not None:
            ws.review.expect(p.target.uri, p.new_text)
    try:
        await ws._send(edit, label, signal)
    except BaseException:
        if ws.review is not None:
            for p in planned:
                ws.review.expect_cancelled(p.target.uri)
        raise
    for p in planned:
        path = p.document.path
        new_text = p.new_text
        applied = ws._applied_text(p.target, bases[path], new_text)
        if applied != new_text:  # the user unchecked some changes in the preview
            ws._unchecked_note(path, p.target.uri, p.target.text, new_text, applied, context)
            new_text = applied
            ws._last_read[path] = new_text
        if ws.review is not None:
            ws.review.agent_edit(p.target.uri, p.target.text, new_text, context)
        if ws.tracker.uri_for(path) is not None:
            ws.tracker.expect(p.target.uri, p.target.version, new_text)
        disk_text = new_text
        if p.document.from_buffer and not new_text.startswith(BOM):
            disk_text = await ws._keep_bom(path, new_text)
        await ws._sync_disk(path, p.target.uri, disk_text, user_dirty=p.user_dirty, signal=signal)
        if bases[path] is not None and ws._policy().features.diagnostics:
            await ws._collect_diagnostics(path, p.target, new_text, bases[path])
    await ws._follow(planned[0].target.uri, first_changed_range(edit))


def _diff(old: str, new: str, name: str, limit: int = 30) -> str:
    lines = list(
        difflib.unified_diff(
            old.splitlines(), new.splitlines(), f"a/{name}", f"b/{name}", n=1, lineterm=""
        )
    )[2:]
    if len(lines) > limit:
        lines = [*lines[:limit], f"… {len(lines) - limit} more lines"]
    return "\n".join(lines) or "(no visible change)"
