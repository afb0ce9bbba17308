"""Checklist 58: parse_streaming_json."""

from __future__ import annotations

from pi_lsp.ai import parse_streaming_json


def test_blank_is_empty_object() -> None:
    assert parse_streaming_json("") == {}
    assert parse_streaming_json("   ") == {}
    assert parse_streaming_json(None) == {}


def test_partial_object() -> None:
    assert parse_streaming_json('{"a": "b') == {"a": "b"}
    assert parse_streaming_json('{"a": 1, "b": [1, 2') == {"a": 1, "b": [1, 2]}


def test_repairs_raw_newline_in_string() -> None:
    assert parse_streaming_json('{"a": "line1\nline2"}') == {"a": "line1\nline2"}


def test_repairs_invalid_escape() -> None:
    assert parse_streaming_json('{"p": "C:\\dir"}') == {"p": "C:\\dir"}


def test_non_object_gives_empty() -> None:
    assert parse_streaming_json("[1, 2]") == {}
    assert parse_streaming_json("garbage{") == {}
