"""LSP base-protocol framing (``Content-Length: N\\r\\n\\r\\n`` + body), hardened.

``FrameParser`` is sans-IO: ``feed`` bytes, take frames or ``FrameError``s from ``next``.
A client that frames one message wrongly must not make the server deaf, and no length may
kill it:

- lengths are validated (digits only) and capped at ``MAX_BODY_BYTES``; a bad one is reported
  and the parser resynchronises on the next ``Content-Length`` header;
- the body is taken from what has arrived (read in chunks by the callers), never from one
  read of the declared size, so a length of 10^20 costs nothing;
- a declared length longer than the body would swallow the next message: a complete header
  (``Content-Length: N`` then a blank line) can never occur inside valid JSON (JSON strings
  cannot hold raw line breaks), so when one shows up inside a body the body ends there and
  the parser resynchronises on it;
- bytes before a header that are not one are dropped and reported.

The caller answers every ``FrameError`` with a JSON-RPC Parse error (id ``null``), as the
spec says for input that cannot be read as a request. Stdlib only (used before pygls loads).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import BinaryIO

MAX_BODY_BYTES = 64 << 20
"""The largest message accepted (a prompt with several images fits easily)."""
MAX_HEADER_BYTES = 8192
READ_CHUNK = 1 << 16

_HEADER_END = re.compile(rb"\r?\n\r?\n")
_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*([^\r\n]*?)[ \t]*(?:\r?\n|\Z)", re.IGNORECASE)
_DIGITS = re.compile(rb"\d+")
# a whole header block inside a body: a Content-Length line, other header lines, a blank line
_TOKEN = rb"[A-Za-z0-9!#$%&'*+.^_`|~-]+"
_RESYNC = re.compile(
    rb"content-length[ \t]*:[ \t]*\d+[ \t]*\r?\n(?:" + _TOKEN + rb"[ \t]*:[^\r\n]*\r?\n)*\r?\n",
    re.IGNORECASE,
)
_HEADER_LINE = re.compile(_TOKEN + rb"[ \t]*:[^\r\n]*")


@dataclass(frozen=True, slots=True)
class FrameError:
    """Input that is not a well-framed message (answered with a Parse error)."""

    message: str


class FrameParser:
    """See the module docstring. ``next()`` returns a body, a ``FrameError`` or ``None``
    (more input needed)."""

    def __init__(self, max_body: int = MAX_BODY_BYTES) -> None:
        self.max_body = max_body
        self._buf = bytearray()
        self._body_length: int | None = None
        self._scanned = 0  # body bytes already searched for a resync header
        self._out: deque[bytes | FrameError] = deque()
        self._reported = False  # a bad header was reported: its stray body is not again

    def feed(self, data: bytes) -> None:
        self._buf += data

    def next(self) -> bytes | FrameError | None:
        while not self._out and self._step():
            pass
        return self._out.popleft() if self._out else None

    def finish(self) -> FrameError | None:
        """At end of input: an error when a message was cut short."""
        rest = bytes(self._buf).strip()
        self._buf.clear()
        if self._body_length is not None or rest:
            self._body_length = None
            return FrameError("Parse error: the input ended inside a message")
        return None

    # ------------------------------------------------------------------ internals

    def _step(self) -> bool:
        """Make progress; False when more input is needed."""
        if self._body_length is None:
            return self._header()
        return self._body(self._body_length)

    def _header(self) -> bool:
        buf = self._buf
        end = _HEADER_END.search(buf)
        if end is None:
            if len(buf) > MAX_HEADER_BYTES:
                keep = _last_length_header(buf)
                dropped = keep if keep > 0 else len(buf) - 64
                del buf[:dropped]
                self._out.append(FrameError(f"Parse error: {dropped} bytes without a header"))
                return True
            return False
        block = bytes(buf[: end.start()])
        del buf[: end.end()]
        matches = list(_LENGTH.finditer(block))
        if not matches:
            if block.strip():
                self._out.append(FrameError("Parse error: a message without Content-Length"))
            return True
        found = matches[-1]
        junk = block[: found.start()]
        reported, self._reported = self._reported, False
        if (
            not reported
            and junk.strip()
            and not all(_HEADER_LINE.fullmatch(line.strip()) for line in junk.strip().splitlines())
        ):
            self._out.append(FrameError(f"Parse error: {len(junk)} bytes that were not a message"))
        raw = found.group(1)
        if _DIGITS.fullmatch(raw) is None:
            text = raw[:40].decode("ascii", "replace")
            self._out.append(FrameError(f"Parse error: invalid Content-Length {text!r}"))
            self._reported = True
            return True
        length = int(raw[-30:]) if len(raw) <= 30 else self.max_body + 1
        if length > self.max_body:
            self._out.append(
                FrameError(
                    f"Parse error: Content-Length {length} is over the limit of "
                    f"{self.max_body} bytes"
                )
            )
            self._reported = True
            return True
        self._body_length = length
        self._scanned = 0
        return True

    def _body(self, length: int) -> bool:
        buf = self._buf
        limit = min(len(buf), length)
        start = max(0, self._scanned - 256)  # a header may straddle two reads
        resync = _RESYNC.search(buf, start, limit + 256 if limit < len(buf) else limit)
        if resync is not None and resync.start() < length:
            # the declared length was too long: the next message starts here
            self._take(resync.start())
            return True
        self._scanned = limit
        if len(buf) < length:
            return False
        self._take(length)
        return True

    def _take(self, size: int) -> None:
        body = bytes(self._buf[:size])
        del self._buf[:size]
        self._body_length = None
        self._scanned = 0
        self._out.append(body)


def _last_length_header(buf: bytearray) -> int:
    found = -1
    for match in _LENGTH.finditer(buf):
        found = match.start()
    return found


class BlockingFrameReader:
    """Frames from a blocking binary stream (stdin), read in chunks."""

    def __init__(self, stream: BinaryIO, parser: FrameParser | None = None) -> None:
        self.stream = stream
        self.parser = parser or FrameParser()
        self._ended = False
        read1 = getattr(stream, "read1", None)
        self._read = read1 if callable(read1) else stream.read

    def read(self) -> bytes | FrameError | None:
        """The next body or error; ``None`` at end of input."""
        while True:
            item = self.parser.next()
            if item is not None:
                return item
            if self._ended:
                return None
            data = self._read(READ_CHUNK)
            if not data:
                self._ended = True
                return self.parser.finish()
            self.parser.feed(data)


def frame(body: bytes) -> bytes:
    """One message as it goes on the wire: the ``Content-Length`` header, then the body."""
    return b"Content-Length: %d\r\n\r\n" % len(body) + body
