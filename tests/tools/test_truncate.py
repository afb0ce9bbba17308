"""Truncation helpers and the streaming output accumulator."""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from pi_lsp.tools.output import OutputAccumulator
from pi_lsp.tools.truncate import format_size, truncate_head, truncate_line, truncate_tail


def test_format_size() -> None:
    assert format_size(0) == "0B"
    assert format_size(1023) == "1023B"
    assert format_size(1024) == "1.0KB"
    assert format_size(51200) == "50.0KB"
    assert format_size(1536 * 1024) == "1.5MB"


def test_truncate_head_rules() -> None:
    untouched = truncate_head("a\nb\n", max_lines=2)
    assert not untouched.truncated
    assert untouched.total_lines == 2  # the trailing newline is not a line
    by_lines = truncate_head("1\n2\n3\n4", max_lines=2)
    assert (by_lines.content, by_lines.truncated_by, by_lines.output_lines) == ("1\n2", "lines", 2)
    by_bytes = truncate_head("aaaa\nbbbb\ncccc", max_bytes=9)
    assert (by_bytes.content, by_bytes.truncated_by) == ("aaaa\nbbbb", "bytes")
    first = truncate_head("x" * 20 + "\ny", max_bytes=10)
    assert (first.content, first.first_line_exceeds_limit) == ("", True)
    utf8 = truncate_head("\u00e9\u00e9\n\u00e9", max_bytes=4)  # é is 2 bytes
    assert utf8.content == "\u00e9\u00e9"


def test_truncate_tail_rules() -> None:
    by_lines = truncate_tail("1\n2\n3\n4\n", max_lines=2)
    assert (by_lines.content, by_lines.output_lines, by_lines.total_lines) == ("3\n4", 2, 4)
    partial = truncate_tail("\u00e9" * 10, max_bytes=5)
    assert partial.last_line_partial
    assert partial.content == "\u00e9\u00e9"  # never starts inside a UTF-8 sequence
    assert partial.truncated_by == "bytes"


def test_truncate_line() -> None:
    assert truncate_line("abc", 5) == ("abc", False)
    assert truncate_line("abcdef", 3) == ("abc... [truncated]", True)


@given(st.lists(st.binary(max_size=300), max_size=40))
def test_accumulator_matches_truncating_the_whole_output(chunks: list[bytes]) -> None:
    acc = OutputAccumulator(max_lines=20, max_bytes=200)
    for chunk in chunks:
        acc.append(chunk)
    acc.finish()
    snap = acc.snapshot(persist_if_truncated=True)
    acc.close()
    whole = b"".join(chunks).decode("utf-8", "replace")
    expected = truncate_tail(whole, max_lines=20, max_bytes=200)
    assert snap.truncation.truncated == expected.truncated
    assert snap.truncation.total_lines == expected.total_lines
    assert snap.truncation.total_bytes == expected.total_bytes
    assert snap.content == expected.content
    if snap.full_output_path is not None:
        with open(snap.full_output_path, "rb") as fh:
            assert fh.read() == b"".join(chunks)
        os.unlink(snap.full_output_path)
    else:
        assert not expected.truncated


def test_accumulator_splits_utf8_across_chunks() -> None:
    acc = OutputAccumulator()
    data = "h\u00e9llo \u20ac\n".encode()
    for i in range(len(data)):
        acc.append(data[i : i + 1])
    acc.finish()
    assert acc.snapshot().content == "h\u00e9llo \u20ac\n"
