"""didChange on open buffers costs what the change touches (issue 10 item 8b), and gives the
same text pygls' own document model gives."""

from __future__ import annotations

import random

import pytest
from lsprotocol import types
from pygls.workspace import PositionCodec, TextDocument

from pi_lsp.lsp.editor.text_document import PiTextDocument
from pi_lsp.lsp.protocol.positions import TextIndex

ENCODINGS = ("utf-16", "utf-8", "utf-32")


def change(sl: int, sc: int, el: int, ec: int, text: str) -> types.TextDocumentContentChangePartial:
    return types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(sl, sc), types.Position(el, ec)), text=text
    )


def reference(text: str, c: types.TextDocumentContentChangePartial, encoding: str) -> str:
    """The change applied through the LSP position rules of ``positions.TextIndex``."""
    index = TextIndex(text, encoding)  # type: ignore[arg-type]
    start = index.offset(c.range.start.line, c.range.start.character)
    end = max(start, index.offset(c.range.end.line, c.range.end.character))
    return text[:start] + c.text + text[end:]


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_random_edits_follow_the_lsp_position_rules(encoding: str) -> None:
    rng = random.Random(7)
    alphabet = ["a", "b", " ", "\n", "\r\n", "\r", "é", "😀", "中", "\u2028", "\f"]
    text = "line one\nsecond 😀 line\r\nthird\rlast"
    ours = PiTextDocument("file:///t.txt", text, position_codec=PositionCodec(), encoding=encoding)  # type: ignore[arg-type]
    for _ in range(800):
        count = len(TextIndex(text).starts)
        sl = rng.randrange(count + 1)
        el = rng.randrange(sl, min(sl + 3, count + 1))
        sc, ec = rng.randrange(12), rng.randrange(12)
        if sl == el and ec < sc:
            sc, ec = ec, sc
        new = "".join(rng.choice(alphabet) for _ in range(rng.randrange(4)))
        c = change(sl, sc, el, ec, new)
        text = reference(text, c, encoding)
        ours.apply_change(c)
        assert ours.source == text


def test_same_text_as_pygls_for_ordinary_edits() -> None:
    codec = PositionCodec()
    theirs = TextDocument("file:///t.txt", "a\nb😀c\r\nd", position_codec=codec)
    ours = PiTextDocument("file:///t.txt", "a\nb😀c\r\nd", position_codec=codec)
    for c in (change(1, 3, 1, 4, "X"), change(0, 1, 2, 0, "\n"), change(5, 0, 5, 0, "end")):
        theirs.apply_change(c)
        ours.apply_change(c)
        assert ours.source == theirs.source


def test_keystrokes_into_one_long_line_never_rebuild_the_whole_text() -> None:
    """10,000 one-character changes appended to one long line: the whole document is never
    joined or re-split per change (pygls did both on every change)."""
    doc = PiTextDocument(
        "file:///t.txt",
        "x" * 5000 + "\n" + "tail\n" * 2000,
        position_codec=PositionCodec(),
        encoding="utf-16",
    )
    for i in range(10_000):
        doc.apply_change(change(0, 5000 + i, 0, 5000 + i, "y"))
    assert doc.full_joins == 0
    assert doc.source.startswith("x" * 5000 + "y" * 10_000 + "\n")
    assert doc.full_joins == 1
