"""Shell processes in their own process group, and the registry that can kill them all.

Owns ``ShellProcess`` (spawn with ``start_new_session=True``, stdin closed, stdout+stderr on
one pipe read without blocking the event loop, exit awaited from a small daemon thread, and
``kill`` = SIGKILL to the whole group) and ``ProcessRegistry`` (every group we started that
may still have members; ``kill_all`` on abort-all, shutdown or exit). POSIX only.
Must not import anything above tools/.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ..security.process_guard import guarded_argv, watch_argv

EOF_GRACE_SECONDS = 0.5
"""After the shell exits, how long to wait for background children to release the pipe."""
READ_CHUNK = 65536


def _group_alive(pgid: int) -> bool:
    """True while the process group has a member that is not a zombie."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if not sys.platform.startswith("linux"):
        return True
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            return True
    return False


class ProcessRegistry:
    """Process groups started by ``bash`` that may still be alive (background jobs included)."""

    def __init__(self) -> None:
        self._groups: set[int] = set()
        self._lock = threading.Lock()

    def register(self, pgid: int) -> None:
        with self._lock:
            self._groups.add(pgid)

    def forget_if_dead(self, pgid: int) -> None:
        if not _group_alive(pgid):
            with self._lock:
                self._groups.discard(pgid)

    def live_count(self) -> int:
        with self._lock:
            groups = list(self._groups)
        dead = {g for g in groups if not _group_alive(g)}
        with self._lock:
            self._groups -= dead
            return len(self._groups)

    def kill_all(self) -> None:
        """SIGKILL every registered group (never raises)."""
        with self._lock:
            groups, self._groups = self._groups, set()
        for pgid in groups:
            kill_group(pgid)


def guarded(argv: Sequence[str]) -> list[str]:
    """``argv`` run under the process guard: its group dies with this process."""
    return guarded_argv(argv[0], argv[1:])


def watch_group(pgid: int) -> subprocess.Popen[bytes] | None:
    """Guard a running process group from now on (a command moved to the background): a
    watcher kills it when this process dies, even by ``kill -9``; it ends with the group."""
    try:
        return subprocess.Popen(
            watch_argv(pgid),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        return None


def kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


_DEFAULT_REGISTRY = ProcessRegistry()


def default_registry() -> ProcessRegistry:
    """The process-wide registry ``BashOptions`` uses unless given another."""
    return _DEFAULT_REGISTRY


class ShellProcess:
    """One command run as ``argv`` in a new session (its own process group)."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        registry: ProcessRegistry,
    ) -> None:
        self._registry = registry
        self.proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
        )
        self.pgid = self.proc.pid  # a new session leader's pgid is its pid
        registry.register(self.pgid)

    def kill(self) -> None:
        """SIGKILL the whole process group, falling back to the shell alone."""
        try:
            os.killpg(self.pgid, signal.SIGKILL)
        except ProcessLookupError:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
        except PermissionError:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()

    async def stream(self, on_data: Callable[[bytes], None]) -> int:
        """Feed output to ``on_data`` until the shell exits (and its pipe drains, or the
        grace period ends); returns the exit code (negative: killed by that signal).
        If the awaiting task is cancelled, the group is killed."""
        loop = asyncio.get_running_loop()
        assert self.proc.stdout is not None
        pipe = self.proc.stdout
        fd = pipe.fileno()
        os.set_blocking(fd, False)
        eof = asyncio.Event()

        def drain() -> None:
            while not eof.is_set():
                try:
                    data = os.read(fd, READ_CHUNK)
                except BlockingIOError:
                    return
                except OSError:
                    data = b""
                if not data:
                    loop.remove_reader(fd)
                    eof.set()
                    return
                on_data(data)
                if len(data) < READ_CHUNK:
                    return

        exited: asyncio.Future[int] = loop.create_future()

        def wait_in_thread() -> None:
            code = self.proc.wait()
            with contextlib.suppress(RuntimeError):  # the loop may be gone at exit
                loop.call_soon_threadsafe(_resolve, exited, code)

        loop.add_reader(fd, drain)
        threading.Thread(target=wait_in_thread, name="pi-bash-wait", daemon=True).start()
        try:
            code = await asyncio.shield(exited)
            if not eof.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(eof.wait(), EOF_GRACE_SECONDS)
            drain()
            return code
        except asyncio.CancelledError:
            self.kill()
            raise
        finally:
            loop.remove_reader(fd)
            pipe.close()
            self._registry.forget_if_dead(self.pgid)


def _resolve(future: asyncio.Future[int], value: int) -> None:
    if not future.done():
        future.set_result(value)
