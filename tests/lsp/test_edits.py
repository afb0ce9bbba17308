"""TextEdit offsets → WorkspaceEdit shapes (changes / documentChanges / CreateFile / confirm)."""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.lsp.editor.edits import (
    ANNOTATION_ID,
    EditOptions,
    EditTarget,
    create_file_edit,
    workspace_edit,
)
from pi_lsp.tools.workspace import TextEdit

TEXT = "def f():\n    return 1\n\nx = 'é😀'\n"


def test_changes_for_clients_without_document_changes() -> None:
    edits = [TextEdit(TEXT.index("1"), TEXT.index("1") + 1, "2")]
    we = workspace_edit(EditTarget("file:///a.py", TEXT, 3), edits, EditOptions())
    assert we.document_changes is None
    assert we.changes is not None
    (edit,) = we.changes["file:///a.py"]
    assert edit.range.start == types.Position(line=1, character=11)
    assert edit.range.end == types.Position(line=1, character=12)
    assert edit.new_text == "2"


def test_versioned_document_changes_sorted() -> None:
    a = TEXT.index("f()")
    b = TEXT.index("'é")
    edits = [TextEdit(b + 3, b + 4, "!"), TextEdit(a, a + 1, "g")]  # given out of order
    we = workspace_edit(
        EditTarget("file:///a.py", TEXT, 7), edits, EditOptions(document_changes=True)
    )
    (doc_edit,) = we.document_changes  # type: ignore[misc]
    assert isinstance(doc_edit, types.TextDocumentEdit)
    assert doc_edit.text_document.version == 7
    starts = [(e.range.start.line, e.range.start.character) for e in doc_edit.edits]
    assert starts == [(0, 4), (3, 8)]  # the emoji counts two UTF-16 units


def test_bom_is_not_counted() -> None:
    text = "\ufeffab\ncd"
    we = workspace_edit(
        EditTarget("file:///b.txt", text, None), [TextEdit(2, 3, "B")], EditOptions()
    )
    (edit,) = we.changes["file:///b.txt"]  # type: ignore[index]
    assert edit.range.start == types.Position(line=0, character=1)


def test_confirm_mode_annotations() -> None:
    we = workspace_edit(
        EditTarget("file:///a.py", TEXT, 1),
        [TextEdit(0, 3, "async def")],
        EditOptions(document_changes=True, annotation_label="pi: edit a.py"),
    )
    assert we.change_annotations is not None
    ann = we.change_annotations[ANNOTATION_ID]
    assert ann.needs_confirmation is True
    assert ann.label == "pi: edit a.py"
    (doc_edit,) = we.document_changes  # type: ignore[misc]
    assert isinstance(doc_edit.edits[0], types.AnnotatedTextEdit)


def test_a_new_file_is_a_create_then_an_insert() -> None:
    we = create_file_edit("file:///new.py", "print(1)\n", EditOptions(document_changes=True))
    create, insert = we.document_changes  # type: ignore[misc]
    assert isinstance(create, types.CreateFile)
    assert create.uri == "file:///new.py"
    assert isinstance(insert, types.TextDocumentEdit)
    assert insert.edits[0].new_text == "print(1)\n"
