"""Offset ``TextEdit``s → an LSP ``WorkspaceEdit`` the client can apply.

Versioned ``documentChanges`` when the client supports them (``changes`` otherwise — Neovim
declares none), ``CreateFile`` for a new file, and a change annotation with
``needsConfirmation`` in confirm mode. Pure: lsprotocol types only, no server.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lsprotocol import types

from ...tools.workspace import TextEdit
from ..protocol.positions import Encoding, TextIndex

ANNOTATION_ID = "pi"
BOM = "\ufeff"


@dataclass(frozen=True, slots=True)
class EditTarget:
    """What the client needs to know about the document being edited."""

    uri: str
    text: str
    """The text the offsets refer to (may start with a BOM when read from disk)."""
    version: int | None
    """The open buffer's version; ``None`` when the document is not open."""


@dataclass(frozen=True, slots=True)
class EditOptions:
    encoding: Encoding = "utf-16"
    document_changes: bool = False
    create_supported: bool = False
    annotation_label: str | None = None
    """Set (confirm mode, with client support): annotate edits with needsConfirmation."""


def lsp_text_edits(
    target: EditTarget, edits: Sequence[TextEdit], options: EditOptions
) -> list[types.TextEdit | types.AnnotatedTextEdit]:
    text = target.text
    shift = 0
    if text.startswith(BOM):  # editors do not show the BOM: positions exclude it
        text = text[1:]
        shift = 1
    index = TextIndex(text, options.encoding)
    out: list[types.TextEdit | types.AnnotatedTextEdit] = []
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        start = index.position(max(0, edit.start - shift))
        end = index.position(max(0, edit.end - shift))
        rng = types.Range(
            start=types.Position(line=start[0], character=start[1]),
            end=types.Position(line=end[0], character=end[1]),
        )
        if options.annotation_label is not None and options.document_changes:
            out.append(
                types.AnnotatedTextEdit(
                    range=rng, new_text=edit.new_text, annotation_id=ANNOTATION_ID
                )
            )
        else:
            out.append(types.TextEdit(range=rng, new_text=edit.new_text))
    return out


def _annotations(options: EditOptions) -> dict[str, types.ChangeAnnotation] | None:
    if options.annotation_label is None or not options.document_changes:
        return None
    return {
        ANNOTATION_ID: types.ChangeAnnotation(
            label=options.annotation_label,
            needs_confirmation=True,
            description="Proposed by pi",
        )
    }


def workspace_edit(
    target: EditTarget, edits: Sequence[TextEdit], options: EditOptions
) -> types.WorkspaceEdit:
    """A ``WorkspaceEdit`` changing an existing document."""
    lsp_edits = lsp_text_edits(target, edits, options)
    if options.document_changes:
        doc_edit = types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(
                uri=target.uri, version=target.version
            ),
            edits=list(lsp_edits),
        )
        return types.WorkspaceEdit(
            document_changes=[doc_edit], change_annotations=_annotations(options)
        )
    plain = [types.TextEdit(range=e.range, new_text=e.new_text) for e in lsp_edits]
    return types.WorkspaceEdit(changes={target.uri: plain})


def create_file_edit(uri: str, text: str, options: EditOptions) -> types.WorkspaceEdit:
    """``CreateFile`` + the initial content (needs documentChanges with ``create``)."""
    annotated = options.annotation_label is not None
    origin = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
    )
    insert: types.TextEdit | types.AnnotatedTextEdit = (
        types.AnnotatedTextEdit(range=origin, new_text=text, annotation_id=ANNOTATION_ID)
        if annotated
        else types.TextEdit(range=origin, new_text=text)
    )
    return types.WorkspaceEdit(
        document_changes=[
            types.CreateFile(
                uri=uri,
                options=types.CreateFileOptions(overwrite=False, ignore_if_exists=True),
                annotation_id=ANNOTATION_ID if annotated else None,
            ),
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                edits=[insert],
            ),
        ],
        change_annotations=_annotations(options),
    )


def first_changed_range(edit: types.WorkspaceEdit) -> types.Range | None:
    """Where the first change lands (for ``window/showDocument``)."""
    for change in edit.document_changes or ():
        if isinstance(change, types.TextDocumentEdit) and change.edits:
            return change.edits[0].range
    for edits in (edit.changes or {}).values():
        if edits:
            return edits[0].range
    return None
