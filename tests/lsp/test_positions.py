"""Offsets ↔ LSP positions in UTF-16 (default), UTF-8 and UTF-32; CRLF and lone CR lines."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pi_lsp.lsp.protocol.positions import TextIndex, normalize_encoding, units


def test_utf16_counts_astral_chars_twice() -> None:
    text = "a😀b\nc"
    idx = TextIndex(text, "utf-16")
    assert idx.position(2) == (0, 3)  # after the emoji
    assert idx.position(3) == (0, 4)
    assert idx.position(4) == (1, 0)
    assert idx.offset(0, 3) == 2
    assert idx.offset(1, 1) == 5


def test_utf8_counts_bytes() -> None:
    idx = TextIndex("é😀x", "utf-8")
    assert idx.position(1) == (0, 2)
    assert idx.position(2) == (0, 6)
    assert idx.offset(0, 6) == 2


def test_utf32_counts_code_points() -> None:
    idx = TextIndex("é😀x", "utf-32")
    assert idx.position(2) == (0, 2)


def test_crlf_and_lone_cr_break_lines() -> None:
    text = "ab\r\ncd\ref\ng"
    idx = TextIndex(text, "utf-16")
    assert idx.starts == [0, 4, 7, 10]
    assert idx.position(4) == (1, 0)
    assert idx.position(3) == (0, 2)  # between \r and \n: snapped to the end of line 0
    assert idx.offset(0, 99) == 2  # past-the-end character clamps to the line end
    assert idx.offset(9, 0) == len(text)
    assert idx.line_end(1) == 6


def test_normalize_encoding() -> None:
    assert normalize_encoding(None) == "utf-16"
    assert normalize_encoding("utf-8") == "utf-8"
    assert normalize_encoding("UTF-32") == "utf-32"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
@given(text=st.text(alphabet=st.sampled_from(list("ab\n\r é😀\t")), max_size=40), data=st.data())
def test_offset_to_position_and_back_is_the_identity(
    encoding: str, text: str, data: st.DataObject
) -> None:
    idx = TextIndex(text, encoding)  # type: ignore[arg-type]
    offset = data.draw(st.integers(0, len(text)))
    if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
        return  # inside a CRLF pair there is no position
    line, char = idx.position(offset)
    assert idx.offset(line, char) == offset
    assert char == units(text[idx.starts[line] : offset], encoding)  # type: ignore[arg-type]
