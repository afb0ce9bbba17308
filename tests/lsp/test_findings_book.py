"""The findings book (pi_lsp/lsp/editor/findings_book.py): a new review replaces the previous
one's diagnostics (a file left without findings gets an empty list), a dismissal holds for
the same text only."""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.codereview import Finding
from pi_lsp.codereview.findings import finding_id
from pi_lsp.lsp.editor.findings_book import FindingsBook

TEXT = "a = 1\nb = 2\nc = 3\n"


def finding(path: str, line: int, title: str) -> Finding:
    return Finding(
        id=finding_id(path, line, line, title),
        path=path,
        line=line,
        end_line=line,
        severity="warning",
        title=title,
    )


def book() -> tuple[FindingsBook, dict[str, list[types.Diagnostic]]]:
    sent: dict[str, list[types.Diagnostic]] = {}
    return FindingsBook(lambda uri, ds, _v: sent.__setitem__(uri, ds), lambda: "utf-16"), sent


def test_a_new_review_replaces_the_previous_ones_findings() -> None:
    b, sent = book()
    b.replace({"file:///a.py": (TEXT, None, [finding("a.py", 2, "x")])})
    assert [d.message for d in sent["file:///a.py"]] == ["x"]
    b.replace({"file:///b.py": (TEXT, None, [finding("b.py", 1, "y")])})
    assert sent["file:///a.py"] == []  # cleared
    assert [(d.range.start.line, d.message) for d in sent["file:///b.py"]] == [(0, "y")]


def test_a_dismissal_holds_for_the_same_text_only() -> None:
    b, sent = book()
    f = finding("a.py", 2, "x")
    b.replace({"file:///a.py": (TEXT, None, [f])})
    assert b.dismiss("file:///a.py", f.id)
    assert sent["file:///a.py"] == []
    b.replace({"file:///a.py": (TEXT, None, [f])})
    assert sent["file:///a.py"] == []  # same text: still dismissed
    b.replace({"file:///a.py": (TEXT + "d = 4\n", None, [f])})
    assert [d.message for d in sent["file:///a.py"]] == ["x"]  # other text: back
    assert not b.dismiss("file:///a.py", "f-unknown")
