"""Base-protocol framing that survives a bad client (issue 10 item 5): lengths validated and
capped, bodies read in chunks, resynchronisation on the next header, Parse errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.lsp.connection.framing import FrameError, FrameParser

from .raw import RawClient

OK = b'{"jsonrpc":"2.0","id":1,"method":"x"}'


def framed(body: bytes, length: int | str | None = None) -> bytes:
    size = len(body) if length is None else length
    return b"Content-Length: %s\r\n\r\n" % str(size).encode() + body


def parse(data: bytes, chunk: int | None = None) -> list[bytes | FrameError]:
    parser = FrameParser(max_body=10_000)
    out: list[bytes | FrameError] = []
    step = chunk or len(data) or 1
    for i in range(0, len(data), step):
        parser.feed(data[i : i + step])
        while (item := parser.next()) is not None:
            out.append(item)
    end = parser.finish()
    return [*out, end] if end is not None else out


def errors(items: list[bytes | FrameError]) -> int:
    return sum(isinstance(i, FrameError) for i in items)


@pytest.mark.parametrize("chunk", [None, 1, 7])
def test_a_length_longer_than_the_body_does_not_swallow_the_next_message(
    chunk: int | None,
) -> None:
    items = parse(framed(OK, len(OK) + 40) + framed(OK) + framed(OK), chunk)
    assert items == [OK, OK, OK]


@pytest.mark.parametrize("length", ["-5", "abc", "", "100000000000000000000", "1000000000000"])
def test_a_bad_or_huge_length_is_reported_and_the_next_message_read(length: str) -> None:
    items = parse(framed(OK, length) + framed(OK))
    assert items[-1] == OK
    assert errors(items) == 1


def test_garbage_between_messages_is_dropped() -> None:
    items = parse(framed(OK) + b"garbage\r\n" + framed(OK))
    assert [i for i in items if isinstance(i, bytes)] == [OK, OK]


def test_a_message_cut_by_the_end_of_input_is_reported() -> None:
    items = parse(framed(OK) + framed(OK, 500))
    assert items[0] == OK
    assert isinstance(items[1], FrameError)


async def test_the_server_stays_responsive_after_bad_framing(
    workspace: Path, data_dir: Path
) -> None:
    c = await RawClient.start(data_dir)
    try:
        await c.initialize(workspace, {"provider": "faux"})
        stdin = c.proc.stdin
        assert stdin is not None
        stdin.write(framed(b'{"jsonrpc":"2.0","method":"x"}', 10**20))
        stdin.write(framed(b'{"jsonrpc":"2.0","method":"x"}', 10**12))
        stdin.write(framed(b'{"jsonrpc":"2.0","method":"x"}', -3))
        body = b'{"jsonrpc":"2.0","id":901,"method":"pi/sessions","params":{}}'
        stdin.write(framed(body, len(body) + 30))  # too long: ends at the next header
        ok = await c.call("pi/sessions", {})
        assert ok["result"] == {"sessions": []}
        first = await c.response(901)
        assert first["result"] == {"sessions": []}
        parse_errors = [m for m in c.messages if m.get("error", {}).get("code") == -32700]
        assert len(parse_errors) == 3
        assert all(m["id"] is None for m in parse_errors)
    finally:
        assert await c.close() == 0
