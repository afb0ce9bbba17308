"""The lsp tool's pure parts: columns (code points ↔ UTF-16/UTF-8, emoji and CJK), a
``symbol`` → its column, the renderer on recorded JSON, and a rename's WorkspaceEdit
normalised (changes vs documentChanges; file operations, outside files and stale documents
refuse the whole edit, nothing written)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_lsp.tools.code_intel import CodeIntelError
from pi_lsp.tools.disk_workspace import DiskWorkspace
from pi_lsp.tools.lsp_edits import normalise
from pi_lsp.tools.lsp_positions import find_symbol, from_units, split_lines, to_units
from pi_lsp.tools.lsp_render import (
    View,
    hover_text,
    render_diagnostics,
    render_locations,
    render_symbols,
)

LINE = "s = '😀中' + name"


def test_columns_count_utf16_units_and_utf8_bytes() -> None:
    col = LINE.index("name")
    assert to_units(LINE, col, "utf-16") == col + 1  # the emoji is two UTF-16 units
    assert to_units(LINE, col, "utf-8") == col + 3 + 2  # 4 bytes for 😀, 3 for 中
    assert to_units(LINE, col, "utf-32") == col
    for enc in ("utf-8", "utf-16", "utf-32"):
        assert from_units(LINE, to_units(LINE, col, enc), enc) == col  # type: ignore[arg-type]


def test_a_symbol_is_found_as_a_whole_word() -> None:
    assert find_symbol("names = name + name2", "name") == 8
    assert find_symbol("x.load_config()", "load_config") == 2
    assert find_symbol("nothing here", "load") is None
    assert find_symbol("a->b", "->") == 1


def test_split_lines_counts_every_line_break() -> None:
    assert split_lines("a\r\nb\rc\nd") == ["a", "b", "c", "d"]


def view(root: Path, lines: dict[Path, list[str]]) -> View:
    def display(path: Path) -> str | None:
        return str(path.relative_to(root)) if root in path.parents else None

    return View(display=display, lines=lines)


def loc(path: Path, line: int, char: int) -> dict[str, Any]:
    pos = {"line": line, "character": char}
    return {"uri": path.as_uri(), "range": {"start": pos, "end": pos}}


def test_locations_and_links_sorted_deduplicated_and_capped(tmp_path: Path) -> None:
    a = tmp_path / "a.py"
    outside = Path("/usr/lib/python3/typing.py")
    link = {
        "targetUri": a.as_uri(),
        "targetRange": {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}},
        "targetSelectionRange": {
            "start": {"line": 1, "character": 4},
            "end": {"line": 1, "character": 5},
        },
    }
    lines = {a: ["# c", "def f(): pass"]}
    out = render_locations([loc(outside, 9, 0), link, loc(a, 1, 4)], view(tmp_path, lines))
    assert out == [
        "a.py:2:5  def f(): pass",
        "/usr/lib/python3/typing.py (outside workspace):10:1",
    ]
    many = [loc(a, i, 0) for i in range(205)]
    capped = render_locations(many, view(tmp_path, {}))
    assert capped[-1] == "(5 more not shown; narrow the query)"
    assert len(capped) == 201


def test_hover_markup_and_marked_strings() -> None:
    assert hover_text({"contents": {"kind": "markdown", "value": "**f**"}}) == "**f**"
    marked = {"contents": [{"language": "python", "value": "def f()"}, "Docs."]}
    assert hover_text(marked) == "```python\ndef f()\n```\n\nDocs."
    assert hover_text(None) == ""


def test_symbols_tree_uses_selection_range_and_one_based_kinds(tmp_path: Path) -> None:
    a = tmp_path / "a.py"
    rng = {"start": {"line": 0, "character": 0}, "end": {"line": 5, "character": 0}}
    sel = {"start": {"line": 1, "character": 6}, "end": {"line": 1, "character": 10}}
    tree = [
        {
            "name": "User",
            "kind": 5,
            "range": rng,
            "selectionRange": sel,
            "children": [
                {"name": "save", "kind": 6, "range": rng, "selectionRange": sel},
            ],
        }
    ]
    assert render_symbols(tree, view(tmp_path, {}), a) == [
        "User (class) 2:7",
        "  save (method) 2:7",
    ]
    flat = [{"name": "f", "kind": 12, "containerName": "m", "location": loc(a, 3, 4)}]
    assert render_symbols(flat, view(tmp_path, {}), None) == ["f (function) [m]  a.py:4:5"]


def test_diagnostics_errors_first(tmp_path: Path) -> None:
    a = tmp_path / "a.py"

    def diag(sev: int, line: int, msg: str) -> dict[str, Any]:
        pos = {"line": line, "character": 0}
        return {"severity": sev, "range": {"start": pos, "end": pos}, "message": msg, "source": "x"}

    out = render_diagnostics([diag(2, 0, "warn"), diag(1, 3, "bad")], view(tmp_path, {}), a)
    assert out == ["ERROR 4:1 bad [x]", "WARNING 1:1 warn [x]"]


def edit_of(path: Path, line: int, start: int, end: int, text: str) -> dict[str, Any]:
    rng = {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}
    return {"range": rng, "newText": text}


async def test_changes_and_document_changes_normalise_alike(tmp_path: Path) -> None:
    ws = DiskWorkspace([tmp_path])
    a = tmp_path / "a.py"
    a.write_text("old = 1\nprint(old)\n")
    edits = [edit_of(a, 0, 0, 3, "new"), edit_of(a, 1, 6, 9, "new")]
    plain = await normalise({"changes": {a.as_uri(): edits}}, ws, "utf-16", {})
    versioned = {
        "documentChanges": [{"textDocument": {"uri": a.as_uri(), "version": 1}, "edits": edits}]
    }
    docs = await normalise(versioned, ws, "utf-16", {})
    assert [(e.start, e.end) for e in plain[a].edits] == [(0, 3), (14, 17)]
    assert plain[a].edits == docs[a].edits


async def test_file_operations_outside_files_and_stale_documents_refuse_it_whole(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    ws = DiskWorkspace([root])
    a = root / "a.py"
    a.write_text("old = 1\n")
    create = {"documentChanges": [{"kind": "rename", "oldUri": a.as_uri(), "newUri": "x"}]}
    with pytest.raises(CodeIntelError, match="rename files"):
        await normalise(create, ws, "utf-16", {})
    outside = tmp_path / "other.py"
    outside.write_text("old = 1\n")
    both = {
        "changes": {
            a.as_uri(): [edit_of(a, 0, 0, 3, "new")],
            outside.as_uri(): [edit_of(outside, 0, 0, 3, "new")],
        }
    }
    with pytest.raises(CodeIntelError, match="outside the workspace"):
        await normalise(both, ws, "utf-16", {})
    with pytest.raises(CodeIntelError, match="changed since the language server read it"):
        await normalise(
            {"changes": {a.as_uri(): [edit_of(a, 0, 0, 3, "new")]}},
            ws,
            "utf-16",
            {a: "older = 1\n"},
        )
    assert a.read_text() == "old = 1\n"


async def test_the_disk_workspace_applies_all_files_or_none(tmp_path: Path) -> None:
    from pi_lsp.tools.workspace import StaleDocumentError, TextEdit

    ws = DiskWorkspace([tmp_path])
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x\n")
    b.write_text("x\n")
    doc_a, doc_b = await ws.read_document(a), await ws.read_document(b)
    b.write_text("changed\n")  # after it was read
    files = {a: (doc_a, [TextEdit(0, 1, "y")]), b: (doc_b, [TextEdit(0, 1, "y")])}
    with pytest.raises(StaleDocumentError):
        await ws.apply_workspace_edit(files, label="rename")
    assert a.read_text() == "x\n"  # nothing written
    doc_b = await ws.read_document(b)
    await ws.apply_workspace_edit(
        {a: (doc_a, [TextEdit(0, 1, "y")]), b: (doc_b, [TextEdit(0, 7, "y")])}, label="rename"
    )
    assert (a.read_text(), b.read_text()) == ("y\n", "y\n")
