"""Streaming command output with bounded memory (Pi's ``OutputAccumulator``).

Owns the incremental UTF-8 decode, a rolling decoded tail (about twice the byte limit), the
line and byte totals, and spilling the raw bytes to ``$TMPDIR/pi-bash-<16 hex>.log`` (mode
0600) once the output goes over the limits. ``snapshot`` applies tail truncation to what is
kept.

Spill files are bounded: each keeps at most ``MAX_SPILL_BYTES`` (the first part of the output;
the tail is in the result itself and the file says where it stops), a process keeps at most
``MAX_SPILL_FILES`` (the oldest is deleted when another is made), all of them are deleted when
the process exits, and files left by an earlier process that died are swept once they are
``STALE_SPILL_SECONDS`` old. Must not import anything above tools/.
"""

from __future__ import annotations

import atexit
import codecs
import contextlib
import glob
import os
import secrets
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import BinaryIO

from .truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    truncate_tail,
    utf8_len,
)

MAX_SPILL_BYTES = 32 << 20
MAX_SPILL_FILES = 16
STALE_SPILL_SECONDS = 24 * 3600
SPILL_CAPPED_NOTE = b"\n[pi-lsp: output file capped here; the rest was not saved]\n"

_spill_lock = threading.Lock()
_spill_files: deque[str] = deque()
_swept: set[str] = set()


def _register_spill_file(path: str, prefix: str) -> None:
    """Remember ``path``; delete the oldest beyond ``MAX_SPILL_FILES`` and, once per prefix,
    stale files earlier processes left behind."""
    with _spill_lock:
        _spill_files.append(path)
        doomed = [_spill_files.popleft() for _ in range(len(_spill_files) - MAX_SPILL_FILES)]
        sweep = prefix not in _swept
        _swept.add(prefix)
    for old in doomed:
        with contextlib.suppress(OSError):
            os.unlink(old)
    if sweep:
        sweep_stale_spill_files(prefix)


def sweep_stale_spill_files(prefix: str = "pi-bash", *, now: float | None = None) -> None:
    current = time.time() if now is None else now
    pattern = os.path.join(glob.escape(tempfile.gettempdir()), f"{prefix}-*.log")
    for path in glob.glob(pattern):
        with contextlib.suppress(OSError):
            info = os.lstat(path)
            if info.st_uid == os.getuid() and current - info.st_mtime > STALE_SPILL_SECONDS:
                os.unlink(path)


def cleanup_spill_files() -> None:
    """Delete every spill file this process made (run at exit)."""
    with _spill_lock:
        paths = list(_spill_files)
        _spill_files.clear()
    for path in paths:
        with contextlib.suppress(OSError):
            os.unlink(path)


atexit.register(cleanup_spill_files)


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
        max_spill_bytes: int = MAX_SPILL_BYTES,
    ) -> None:
        self.max_spill_bytes = max_spill_bytes
        self._spilled_bytes = 0
        self.spill_capped = False
        """The full-output file stopped at ``max_spill_bytes``."""
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
        path = os.path.join(tempfile.gettempdir(), f"{self._prefix}-{secrets.token_hex(8)}.log")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # may hold secrets
        except OSError:
            self._spill_failed = True
            self._pending_raw = []
            return
        self._file = os.fdopen(fd, "wb")
        self.full_output_path = path
        _register_spill_file(path, self._prefix)
        pending, self._pending_raw = self._pending_raw, []
        for chunk in pending:
            self._spill(chunk)

    def _spill(self, data: bytes) -> None:
        """Write to the full-output file; a full disk stops spilling, never the command."""
        if self._file is None:
            return
        room = self.max_spill_bytes - self._spilled_bytes
        try:
            if len(data) >= room:
                self._file.write(data[: max(0, room)] + SPILL_CAPPED_NOTE)
                self.spill_capped = True
                self.close()  # the rest is not saved: the tail is in the result
                return
            self._file.write(data)
            self._spilled_bytes += len(data)
        except OSError:
            self._spill_failed = True
            self.close()
