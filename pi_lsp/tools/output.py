"""Streaming command output with bounded memory (Pi's ``OutputAccumulator``).

Owns the incremental UTF-8 decode, a rolling decoded tail (about twice the byte limit), the
line and byte totals, and spilling the raw bytes to ``$TMPDIR/pi-bash-<16 hex>.log`` (mode
0600) once the output goes over the limits. ``snapshot`` applies tail truncation to what is
kept. Must not import anything above tools/.
"""

from __future__ import annotations

import codecs
import os
import secrets
import tempfile
from dataclasses import dataclass
from typing import BinaryIO

from .truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    truncate_tail,
    utf8_len,
)


@dataclass(frozen=True, slots=True)
class OutputSnapshot:
    content: str
    truncation: TruncationResult
    full_output_path: str | None


class OutputAccumulator:
    def __init__(
        self,
        *,
        max_lines: int = DEFAULT_MAX_LINES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        temp_prefix: str = "pi-bash",
    ) -> None:
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self._rolling = max(2 * max_bytes, 1)
        self._prefix = temp_prefix
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending_raw: list[bytes] = []
        self._raw_bytes = 0
        self._tail = ""
        self._tail_bytes = 0
        self._tail_at_line_start = True
        self._decoded_bytes = 0
        self._completed_lines = 0
        self._open_line_bytes = 0
        self._closed_line_bytes = 0
        self._has_open_line = False
        self._file: BinaryIO | None = None
        self.full_output_path: str | None = None
        self._spill_failed = False
        self._finished = False

    # ------------------------------------------------------------------------ feeding

    def append(self, data: bytes) -> None:
        if self._finished:
            raise RuntimeError("cannot append to a finished output accumulator")
        self._raw_bytes += len(data)
        self._add_text(self._decoder.decode(data))
        if self._file is not None or self._over_limits():
            self._ensure_file()
            self._spill(data)
        elif data:
            self._pending_raw.append(data)

    def finish(self) -> None:
        if self._finished:
            return
        self._finished = True
        self._add_text(self._decoder.decode(b"", final=True))
        if self._over_limits():
            self._ensure_file()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    # ------------------------------------------------------------------------ reading

    @property
    def total_lines(self) -> int:
        return self._completed_lines + (1 if self._has_open_line else 0)

    @property
    def last_line_bytes(self) -> int:
        """UTF-8 size of the last line (the unfinished one, else the last complete one)."""
        return self._open_line_bytes if self._has_open_line else self._closed_line_bytes

    def snapshot(self, *, persist_if_truncated: bool = True) -> OutputSnapshot:
        text = self._tail
        if not self._tail_at_line_start:
            newline = text.find("\n")
            text = text if newline == -1 else text[newline + 1 :]
        tail = truncate_tail(text, max_lines=self.max_lines, max_bytes=self.max_bytes)
        truncated = self.total_lines > self.max_lines or self._decoded_bytes > self.max_bytes
        truncated_by = tail.truncated_by
        if truncated and truncated_by is None:
            truncated_by = "bytes" if self._decoded_bytes > self.max_bytes else "lines"
        result = TruncationResult(
            content=tail.content,
            truncated=truncated,
            truncated_by=truncated_by if truncated else None,
            total_lines=self.total_lines,
            total_bytes=self._decoded_bytes,
            output_lines=tail.output_lines,
            output_bytes=tail.output_bytes,
            last_line_partial=tail.last_line_partial,
            max_lines=self.max_lines,
            max_bytes=self.max_bytes,
        )
        if persist_if_truncated and truncated:
            self._ensure_file()
        return OutputSnapshot(tail.content, result, self.full_output_path)

    # ---------------------------------------------------------------------- internals

    def _add_text(self, text: str) -> None:
        if not text:
            return
        size = utf8_len(text)
        self._decoded_bytes += size
        self._tail += text
        self._tail_bytes += size
        if self._tail_bytes > 2 * self._rolling:
            self._trim_tail()
        parts = text.split("\n")
        if len(parts) == 1:
            self._open_line_bytes += size
            self._has_open_line = True
            return
        self._completed_lines += len(parts) - 1
        if len(parts) == 2:
            self._closed_line_bytes = self._open_line_bytes + utf8_len(parts[0])
        else:
            self._closed_line_bytes = utf8_len(parts[-2])
        self._open_line_bytes = utf8_len(parts[-1])
        self._has_open_line = bool(parts[-1])

    def _trim_tail(self) -> None:
        data = self._tail.encode("utf-8", "surrogatepass")
        start = len(data) - self._rolling
        while start < len(data) and (data[start] & 0xC0) == 0x80:
            start += 1
        self._tail_at_line_start = data[start - 1 : start] == b"\n"
        self._tail = data[start:].decode("utf-8", "replace")
        self._tail_bytes = len(data) - start

    def _over_limits(self) -> bool:
        return (
            self._raw_bytes > self.max_bytes
            or self._decoded_bytes > self.max_bytes
            or self.total_lines > self.max_lines
        )

    def _ensure_file(self) -> None:
        if self.full_output_path is not None or self._spill_failed:
            return
        path = os.path.join(
            tempfile.gettempdir(), f"{self._prefix}-{secrets.token_hex(8)}.log"
        )
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # may hold secrets
        except OSError:
            self._spill_failed = True
            self._pending_raw = []
            return
        self._file = os.fdopen(fd, "wb")
        self.full_output_path = path
        pending, self._pending_raw = self._pending_raw, []
        for chunk in pending:
            self._spill(chunk)

    def _spill(self, data: bytes) -> None:
        """Write to the full-output file; a full disk stops spilling, never the command."""
        if self._file is None:
            return
        try:
            self._file.write(data)
        except OSError:
            self._spill_failed = True
            self.close()
