"""Session-file ``fsync`` off the event loop.

An append is one ``write`` (ordered, visible to readers and safe from a killed process at
once); the ``fsync`` that makes it survive a power loss is slow (milliseconds, far more on a
busy disk) and would stall every request and stream of the server. ``BackgroundFsync`` does it
on one worker thread, in the order files were written, coalescing repeated requests for the
same file. A file created by the append also gets its directory synced, so the new name is
durable too. ``drain`` waits for everything queued (shutdown, tests).

Every front end uses it (``pi-lsp run`` and ``pi-lsp acp`` too: parallel ``task`` children
would otherwise queue behind each other's syncs on the loop). ``append_lines`` without
``sync`` keeps the inline ``fsync`` (tools, tests).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import threading
from pathlib import Path

from .jsonl import fsync_dir

log = logging.getLogger(__name__)


class BackgroundFsync:
    """Call it with ``(path, created)`` after a write; it fsyncs ``path`` soon, off-thread."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._pending: dict[Path, bool] = {}  # insertion-ordered; value: directory sync too
        self._busy = False
        self._thread: threading.Thread | None = None

    def __call__(self, path: Path, created: bool) -> None:
        with self._cond:
            self._pending[path] = self._pending.get(path, False) or created
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="pi-session-fsync", daemon=True
                )
                self._thread.start()
            self._cond.notify_all()

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every queued fsync is done; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._pending and not self._busy, timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._pending))
                path, created = next(iter(self._pending.items()))
                del self._pending[path]
                self._busy = True
            try:
                _fsync_file(path)
                if created:
                    fsync_dir(path.parent)
            except Exception:  # a worker that dies would silently stop all syncing
                log.exception("could not fsync %s", path)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()


def _fsync_file(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:  # deleted meanwhile (a test's temp dir): nothing to keep
        return
    try:
        with contextlib.suppress(OSError):  # EINVAL on filesystems without fsync
            os.fsync(fd)
    finally:
        os.close(fd)


_shared: BackgroundFsync | None = None
_shared_lock = threading.Lock()


def background_fsync() -> BackgroundFsync:
    """The process's worker (started on first use; drained for up to 2 s at exit)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = BackgroundFsync()
            atexit.register(_shared.drain, 2.0)
        return _shared


def drain_background_fsync(timeout: float = 2.0) -> None:
    """Before a fast exit (``os._exit`` skips ``atexit``): finish the queued fsyncs, if any."""
    if _shared is not None and not _shared.drain(timeout):
        log.warning("session files: fsync still pending at exit")
