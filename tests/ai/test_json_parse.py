"""Checklist 58: parse_streaming_json."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_lsp.ai import StreamingJsonParser, parse_streaming_json


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


# --------------------------------------------------------------------------- equivalence

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pi_lsp.ai.json_parse import repair_json  # noqa: E402

_VALID = frozenset('"\\/bfnrtu')
_CTRL = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def _reference_repair(text: str) -> str:
    """The straightforward character loop the regex version must match."""
    out: list[str] = []
    in_string = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if not in_string:
            in_string = ch == '"'
            out.append(ch)
        elif ch == '"':
            in_string = False
            out.append(ch)
        elif ch == "\\":
            nxt = text[i + 1] if i + 1 < n else ""
            if nxt and nxt in _VALID:
                out.append(ch + nxt)
                i += 2
                continue
            out.append("\\\\")
        elif ch < " ":
            out.append(_CTRL.get(ch, f"\\u{ord(ch):04x}"))
        else:
            out.append(ch)
        i += 1
    return "".join(out)


_PIECES = st.sampled_from(
    [
        '"',
        "\\",
        "\n",
        "\t",
        "\x01",
        "a",
        "é",
        "{",
        "}",
        ":",
        ",",
        "u",
        "n",
        "d",
        " ",
        "1",
        '\\"',
        "\\\\",
        "\\n",
        "\\d",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_repair_matches_the_reference_loop(text: str) -> None:
    assert repair_json(text) == _reference_repair(text)


def _reference_parse(text: str) -> dict:
    """Pi's order, step by step."""
    import json

    from pydantic_core import from_json

    if not text.strip():
        return {}
    for attempt in (
        lambda: json.loads(text),
        lambda: json.loads(_reference_repair(text)),
        lambda: from_json(text, allow_partial="trailing-strings"),
        lambda: from_json(_reference_repair(text), allow_partial="trailing-strings"),
    ):
        try:
            value = attempt()
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return {}


_JSONISH = st.sampled_from(
    [
        '{"',
        '"a"',
        ": ",
        '"x',
        "\\",
        "\n",
        "1",
        ", ",
        "}",
        "[",
        "]",
        "\\d",
        "\\n",
        "true",
        '"',
        "é",
        "{",
        "null",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_JSONISH, max_size=16).map("".join))
def test_parse_matches_pis_order(text: str) -> None:
    assert parse_streaming_json(text) == _reference_parse(text)


def test_long_arguments_parse_on_every_delta() -> None:
    import json

    content = "\n".join(f'line {i}: value = f({i})  # "q" \\d' for i in range(400))
    raw = json.dumps({"path": "big.py", "content": content})
    partial = ""
    for i in range(0, len(raw), 16):
        partial += raw[i : i + 16]
        parse_streaming_json(partial)
    assert parse_streaming_json(raw)["content"] == content


@settings(max_examples=200, deadline=None)
@given(st.lists(_JSONISH, max_size=16).map("".join), st.lists(st.integers(1, 5), max_size=30))
def test_incremental_parser_matches_the_stateless_one(text: str, cuts: list[int]) -> None:
    from pi_lsp.ai.json_parse import StreamingJsonParser

    parser = StreamingJsonParser()
    position = 0
    for size in [*cuts, len(text)]:
        delta = text[position : position + size]
        position += len(delta)
        got = parser.feed(delta)
        assert parser.repaired() == repair_json(parser.text)
        assert got == parse_streaming_json(parser.text)
        if position >= len(text):
            break
    assert parser.text == text


# ------------------------------------------------------------ linear cost (issue 10 item 8)


def test_streamed_arguments_cost_linear_parsing_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 640 KB ``write`` in 4-character deltas: the characters handed to the JSON parser
    stay a small multiple of the argument's length (re-parsing everything on every delta
    handed it ~50 GB)."""
    import pi_lsp.ai.json_parse as module

    parsed = [0]
    real = module.from_json

    def counting(text: str, **kw: Any) -> Any:
        parsed[0] += len(text)
        return real(text, **kw)

    monkeypatch.setattr(module, "from_json", counting)
    payload = json.dumps({"path": "big.txt", "content": "line\n" * 128_000})
    parser = StreamingJsonParser()
    last: dict[str, Any] = {}
    for i in range(0, len(payload), 4):
        last = parser.feed(payload[i : i + 4])
    assert last["path"] == "big.txt"  # partial results keep coming while it streams
    assert parser.parse() == json.loads(payload)
    assert parsed[0] < 12 * len(payload)


def test_small_arguments_still_reparse_on_every_delta() -> None:
    parser = StreamingJsonParser()
    seen = [parser.feed(piece) for piece in ['{"pa', 'th": "a', ".py", '"}']]
    assert seen == [{}, {"path": "a"}, {"path": "a.py"}, {"path": "a.py"}]


def test_text_grows_in_place_but_a_kept_reference_is_not_changed() -> None:
    from pi_lsp.ai.grow import append_to_field
    from pi_lsp.ai.types import TextContent

    block = TextContent(text="ab")
    kept = block.text
    append_to_field(block, "text", "cd")
    append_to_field(block, "text", "ef")
    assert (kept, block.text) == ("ab", "abcdef")
