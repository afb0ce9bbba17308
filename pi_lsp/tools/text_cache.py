"""``DiskTextCache``: the decoded text of files read recently, served again without a worker
thread while the file's ``stat`` is unchanged.

A read in a worker thread costs a thread hop — on a loaded machine the largest part of a
warm ``lsp`` call, which reads the file it asks about and every file whose lines it quotes.
``get`` checks the file with one ``os.stat`` on the event loop (metadata only: it never opens
the file, so a FIFO cannot block it) and returns the cached text when device, inode, size,
mtime and ctime all match. Like git's "racily clean" rule, a file modified less than
``RACY_S`` before it was read is not cached: a filesystem with coarse timestamps could
otherwise hide a same-size rewrite within the same tick. Files up to 512 KB, at most 128 of
them and 8 MB in all (the oldest go first).
Must not import anything above tools/.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from .regular_files import open_regular

RACY_S = 2.0
MAX_FILE_BYTES = 512 * 1024
MAX_TOTAL_BYTES = 8 * 1024 * 1024
MAX_FILES = 128

Signature = tuple[int, int, int, int, int]


def _signature(st: os.stat_result) -> Signature:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class DiskTextCache:
    def __init__(self, max_files: int = MAX_FILES) -> None:
        self.max_files = max_files
        self._texts: dict[str, tuple[Signature, str]] = {}
        self._bytes = 0
        """The cached files' sizes, summed (at most ``MAX_TOTAL_BYTES``)."""
        self._lock = threading.Lock()  # filled in worker threads, read on the loop

    def get(self, path: Path) -> str | None:
        """The cached text of ``path`` while its ``stat`` is unchanged; ``None``: read it."""
        key = str(path)
        cached = self._texts.get(key)
        if cached is None:
            return None
        try:
            same = _signature(os.stat(key)) == cached[0]
        except OSError:
            same = False
        if not same:
            self.forget(path)
            return None
        return cached[1]

    def read(self, path: Path, decode: Callable[[bytes], str]) -> str:
        """Read ``path`` (blocking: call it in a worker thread), decode it with ``decode``
        (bytes → str) and remember it when it is small and not racily fresh."""
        with open_regular(path) as fh:
            st = os.fstat(fh.fileno())
            data = fh.read()
        text = decode(data)
        fresh = time.time_ns() - st.st_mtime_ns < RACY_S * 1e9
        if not fresh and len(data) <= MAX_FILE_BYTES and st.st_size == len(data):
            key = str(path)
            with self._lock:
                self._drop(key)
                while self._texts and (
                    len(self._texts) >= self.max_files or self._bytes + len(data) > MAX_TOTAL_BYTES
                ):
                    self._drop(next(iter(self._texts)))  # the oldest first
                self._texts[key] = (_signature(st), text)
                self._bytes += len(data)
        return text

    def forget(self, path: Path) -> None:
        with self._lock:
            self._drop(str(path))

    def _drop(self, key: str) -> None:
        gone = self._texts.pop(key, None)
        if gone is not None:
            self._bytes -= gone[0][2]  # the signature's size: the bytes it was read from
