"""The outbox: a queue-backed writer so a client that stops reading never blocks the server.

pygls' ``StdoutWriter`` (``pygls/io_.py``) writes and flushes on the event-loop thread: when
the client stops reading, the pipe fills, the write blocks, and with it the whole loop, the
model stream and every session (docs/architecture.md, "pygls' IO loop is replaced").
``Outbox.write`` only appends to a queue; a daemon thread drains it to the stream in order,
batching what has piled up into one write. Knows nothing of LSP or JSON. Must not import
anything above ``lsp/``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import BinaryIO

log = logging.getLogger(__name__)

_MAX_BATCH = 1 << 20  # bytes joined into one write


class Outbox:
    """Ordered, non-blocking byte sink drained by a writer thread.

    ``write`` never blocks (memory grows while the reader is stalled; everything is delivered
    in order once it reads again). ``close`` drains what is queued, up to a timeout.
    ``on_broken`` runs (on the writer thread) when the stream fails, e.g. the client died.
    """

    def __init__(
        self,
        stream: BinaryIO,
        *,
        on_broken: Callable[[BaseException], object] | None = None,
        name: str = "pi-lsp-outbox",
    ) -> None:
        self._stream = stream
        self._on_broken = on_broken
        self._queue: deque[bytes] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._broken = False
        self._in_flight = 0
        self.queued_bytes = 0
        """Bytes accepted but not yet written."""
        self.written_bytes = 0
        self.written_messages = 0
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @property
    def broken(self) -> bool:
        return self._broken

    def write(self, data: bytes) -> None:
        with self._cond:
            if self._closed or self._broken:
                return
            self._queue.append(data)
            self.queued_bytes += len(data)
            self._cond.notify()

    def _take_batch(self) -> list[bytes] | None:
        with self._cond:
            while not self._queue and not self._closed:
                self._cond.wait()
            if not self._queue:
                return None
            batch: list[bytes] = []
            size = 0
            while self._queue and size < _MAX_BATCH:
                chunk = self._queue.popleft()
                batch.append(chunk)
                size += len(chunk)
            self._in_flight = size
            return batch

    def _run(self) -> None:
        while True:
            batch = self._take_batch()
            if batch is None:
                return
            data = b"".join(batch)
            try:
                self._stream.write(data)
                self._stream.flush()
            except (OSError, ValueError) as exc:
                with self._cond:
                    self._broken = True
                    self._queue.clear()
                    self.queued_bytes = 0
                    self._in_flight = 0
                    self._cond.notify_all()
                log.warning("client stream closed: %s", exc)
                if self._on_broken is not None:
                    try:
                        self._on_broken(exc)
                    except Exception:
                        log.exception("outbox on_broken callback failed")
                return
            with self._cond:
                self.queued_bytes -= self._in_flight
                self._in_flight = 0
                self.written_bytes += len(data)
                self.written_messages += len(batch)
                self._cond.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Block until everything queued so far is written; False on timeout or failure."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while (self._queue or self._in_flight) and not self._broken:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._cond.wait(remaining)
            return not self._broken

    def close(self, timeout: float = 2.0) -> None:
        """Stop accepting data, drain the queue (up to ``timeout``), end the thread."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout)
        if self._thread.is_alive():
            log.warning("outbox: %d bytes not delivered at close", self.queued_bytes)
