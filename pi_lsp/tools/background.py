"""Background processes of one session: ``bash {background: true}``, ``bash_output``,
``bash_kill`` (docs/tools.md#background-processes).

Owns ``BackgroundJobs`` (a session's processes: the live limit, ids ``bg1``, ``bg2``…, start,
adopt a foreground command that ran too long, kill one, kill all, kill those started since a
mark, listeners told of starts, output and exits) and ``BackgroundProcess`` (one command: its
output in a bounded ``OutputRing``, the full log in a ``$TMPDIR/pi-bg-<hex>.log`` file of at
most ``MAX_LOG_BYTES``, its exit code). Each command runs under the process guard
(``pi_lsp/security/process_guard.py``) in its own process group, registered with the
session's ``ProcessRegistry``: it ends with the session, the server, or a ``kill -9`` of the
server. Must not import anything above tools/.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import secrets
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO, Literal

from .output import SPILL_CAPPED_NOTE, sweep_stale_spill_files
from .process import ShellProcess

DEFAULT_LIMIT = 4
"""Live background processes per session."""
RING_BYTES = 256 << 10
"""Output kept in memory per process (the rest is in the log file)."""
MAX_LOG_BYTES = 32 << 20
KILL_WAIT_SECONDS = 5.0

_LOGS: set[str] = set()
"""Log files of this process's background processes: deleted at exit (``_delete_logs``)."""


def _delete_logs() -> None:
    for path in list(_LOGS):
        with contextlib.suppress(OSError):
            os.unlink(path)
    _LOGS.clear()


atexit.register(_delete_logs)

JobEvent = Literal["started", "output", "exited", "reported"]
"""``reported``: the model was told the process ended (``BackgroundProcess.report_end``)."""
Listener = Callable[["BackgroundProcess", JobEvent], None]


class BackgroundLimitError(Exception):
    """The session already runs its limit of background processes."""


class OutputRing:
    """The last ``capacity`` bytes of a stream, addressed by absolute offsets."""

    def __init__(self, capacity: int = RING_BYTES) -> None:
        self.capacity = max(capacity, 1)
        self._buf = bytearray()
        self.start = 0
        """Offset of the oldest byte kept."""
        self.end = 0
        """Offset after the newest byte (the total written)."""

    def append(self, data: bytes) -> None:
        if len(data) >= self.capacity:
            self.start = self.end + len(data) - self.capacity
            self._buf = bytearray(data[-self.capacity :])
        else:
            self._buf += data
            over = len(self._buf) - self.capacity
            if over > 0:
                del self._buf[:over]
                self.start += over
        self.end += len(data)

    def read(self, since: int) -> tuple[bytes, int]:
        """Bytes from offset ``since`` on, and how many of those the ring no longer has."""
        since = max(0, min(since, self.end))
        begin = max(since, self.start)
        return bytes(self._buf[begin - self.start :]), begin - since

    def tail(self, size: int) -> bytes:
        return bytes(self._buf[-size:]) if size > 0 else b""


@dataclass(frozen=True, slots=True)
class ProcessView:
    """What a client lists of one process (``pi/processes``)."""

    id: str
    command: str
    running: bool
    exit_code: int | None
    started_at: float
    """Wall-clock start (seconds since the epoch)."""
    uptime: float
    last_lines: list[str]
    log_path: str | None
    tool_call_id: str | None


class BackgroundProcess:
    """One command running in the background."""

    def __init__(
        self,
        job_id: str,
        command: str,
        process: ShellProcess,
        *,
        tool_call_id: str | None,
        mark: int,
        ring_bytes: int = RING_BYTES,
        max_log_bytes: int = MAX_LOG_BYTES,
    ) -> None:
        self.id = job_id
        self.command = command
        self.process = process
        self.tool_call_id = tool_call_id
        self.mark = mark
        self.ring = OutputRing(ring_bytes)
        self.cursor = 0
        """Where the model's last ``bash_output`` stopped."""
        self.started_at = time.time()
        self._started = time.monotonic()
        self.ended_at: float | None = None
        self.exit_code: int | None = None
        self.killed = False
        self.end_reported = False
        """The model was told the process ended (a ``bash_output`` or ``bash_kill`` after its
        exit, or a ``background: true`` start that ended at once): an ACP client's tool call
        for it ends then (``pi_lsp/acp/background.py``)."""
        self.exited = asyncio.Event()
        self.max_log_bytes = max_log_bytes
        self._log_bytes = 0
        self.log_capped = False
        self.log_path: str | None = None
        self._log: BinaryIO | None = None
        self._open_log()
        self._listeners: list[Listener] = []
        self.task: asyncio.Task[int] | None = None
        self.watcher: subprocess.Popen[bytes] | None = None
        """The guard of a command moved to the background (``process.watch_group``)."""

    # ------------------------------------------------------------------ output

    def _open_log(self) -> None:
        path = os.path.join(tempfile.gettempdir(), f"pi-bg-{secrets.token_hex(8)}.log")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # may hold secrets
        except OSError:
            return
        self._log = os.fdopen(fd, "wb")
        self.log_path = path
        if not _LOGS:  # once per process: logs an earlier process that died left behind
            sweep_stale_spill_files("pi-bg")
        _LOGS.add(path)

    def delete_log(self) -> None:
        """Forget the log file (an ended process dropped from the list)."""
        self._close_log()
        if self.log_path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.log_path)
            _LOGS.discard(self.log_path)

    def feed(self, data: bytes) -> None:
        """New output: into the ring and the log; listeners hear of it."""
        self.ring.append(data)
        self._write_log(data)
        self._tell("output")

    def _write_log(self, data: bytes) -> None:
        log = self._log
        if log is None:
            return
        room = self.max_log_bytes - self._log_bytes
        try:
            if len(data) >= room:
                log.write(data[: max(0, room)] + SPILL_CAPPED_NOTE)
                self.log_capped = True
                self._close_log()
                return
            log.write(data)
            log.flush()
            self._log_bytes += len(data)
        except OSError:
            self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            with contextlib.suppress(OSError):
                self._log.close()
            self._log = None

    # ------------------------------------------------------------------ state

    @property
    def running(self) -> bool:
        return self.exit_code is None

    @property
    def uptime(self) -> float:
        end = self.ended_at if self.ended_at is not None else time.monotonic()
        return end - self._started

    def last_lines(self, count: int = 5) -> list[str]:
        text = self.ring.tail(4096).decode("utf-8", "replace")
        return [line for line in text.splitlines() if line.strip()][-count:]

    def view(self) -> ProcessView:
        return ProcessView(
            id=self.id,
            command=self.command,
            running=self.running,
            exit_code=self.exit_code,
            started_at=self.started_at,
            uptime=round(self.uptime, 1),
            last_lines=self.last_lines(),
            log_path=self.log_path,
            tool_call_id=self.tool_call_id,
        )

    def status_text(self) -> str:
        if self.running:
            return f"still running ({_duration(self.uptime)})"
        if self.killed:
            return "killed"
        return f"exited with code {self.exit_code}"

    def kill(self) -> None:
        if self.running:
            self.killed = True
            self.process.kill()

    def report_end(self) -> None:
        """A tool result just told the model the state: once it has ended, that is the end
        the model saw (listeners hear ``reported`` once)."""
        if not self.running and not self.end_reported:
            self.end_reported = True
            self._tell("reported")

    def _ended(self, code: int) -> None:
        if self.watcher is not None:  # it ends within a second of the group: reap it then
            watcher, self.watcher = self.watcher, None
            asyncio.get_running_loop().run_in_executor(None, watcher.wait)
        self.exit_code = code
        self.ended_at = time.monotonic()
        self._close_log()
        self.exited.set()
        self._tell("exited")

    def _tell(self, what: JobEvent) -> None:
        for listener in list(self._listeners):
            with contextlib.suppress(Exception):  # a listener never breaks the process
                listener(self, what)


class BackgroundJobs:
    """A session's background processes."""

    def __init__(self, limit: int = DEFAULT_LIMIT, *, keep_finished: int = 16) -> None:
        self.limit = limit
        self.keep_finished = keep_finished
        self._jobs: dict[str, BackgroundProcess] = {}
        self._count = 0
        self._listeners: list[Listener] = []

    # ------------------------------------------------------------------ listeners

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """``listener(process, "started" | "output" | "exited")``; returns the unsubscribe."""
        self._listeners.append(listener)
        for job in self._jobs.values():
            job._listeners.append(listener)

        def remove() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)
            for job in self._jobs.values():
                with contextlib.suppress(ValueError):
                    job._listeners.remove(listener)

        return remove

    # ------------------------------------------------------------------ queries

    def get(self, job_id: str) -> BackgroundProcess | None:
        return self._jobs.get(job_id)

    def all(self) -> list[BackgroundProcess]:
        return list(self._jobs.values())

    def live(self) -> list[BackgroundProcess]:
        return [job for job in self._jobs.values() if job.running]

    def mark(self) -> int:
        """A point in time: ``kill_started_since(mark)`` kills what starts after it."""
        return self._count

    # ------------------------------------------------------------------ starting

    def check_room(self) -> None:
        live = len(self.live())
        if live >= self.limit:
            ids = ", ".join(job.id for job in self.live())
            raise BackgroundLimitError(
                f"Not started: this session already runs {live} background processes "
                f"(the limit is {self.limit}: {ids}). Stop one with bash_kill, or read its "
                "output with bash_output and wait for it to end."
            )

    def start(
        self, command: str, process: ShellProcess, *, tool_call_id: str | None = None
    ) -> BackgroundProcess:
        """Adopt a just-started ``process`` and pump its output (``check_room`` first)."""
        job = self._new(command, process, tool_call_id)
        job.task = asyncio.ensure_future(process.stream(job.feed))
        job.task.add_done_callback(lambda task: self._done(job, task))
        job._tell("started")
        return job

    def adopt(
        self,
        command: str,
        process: ShellProcess,
        stream: asyncio.Task[int],
        switch_sink: Callable[[Callable[[bytes], None]], None],
        *,
        earlier: bytes = b"",
        tool_call_id: str | None = None,
    ) -> BackgroundProcess:
        """Take over a foreground command whose output ``stream`` already pumps:
        ``switch_sink`` sends its further output here; ``earlier`` is what it printed so
        far (the tail the foreground kept). Not limited: the command already runs."""
        job = self._new(command, process, tool_call_id)
        if earlier:
            job.feed(earlier)
        switch_sink(job.feed)
        job.task = stream
        stream.add_done_callback(lambda task: self._done(job, task))
        job._tell("started")
        return job

    def _new(
        self, command: str, process: ShellProcess, tool_call_id: str | None
    ) -> BackgroundProcess:
        self._count += 1
        job = BackgroundProcess(
            f"bg{self._count}", command, process, tool_call_id=tool_call_id, mark=self._count
        )
        job._listeners.extend(self._listeners)
        self._jobs[job.id] = job
        self._prune()
        return job

    def _done(self, job: BackgroundProcess, task: asyncio.Task[int]) -> None:
        code = -9 if task.cancelled() or task.exception() is not None else task.result()
        job._ended(code)

    def _prune(self) -> None:
        finished = [job for job in self._jobs.values() if not job.running]
        for job in finished[: max(0, len(finished) - self.keep_finished)]:
            del self._jobs[job.id]
            job.delete_log()

    # ------------------------------------------------------------------ stopping

    async def kill(self, job_id: str) -> BackgroundProcess | None:
        """Kill one process group and wait (bounded) for its end; ``None``: no such id."""
        job = self._jobs.get(job_id)
        if job is None:
            return None
        job.kill()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(job.exited.wait(), KILL_WAIT_SECONDS)
        return job

    def kill_all(self) -> int:
        """Kill every live process; how many there were (never raises)."""
        live = self.live()
        for job in live:
            job.kill()
        return len(live)

    def kill_started_since(self, mark: int) -> int:
        """Kill the live processes started after ``mark`` (``mark()``); how many."""
        doomed = [job for job in self.live() if job.mark > mark]
        for job in doomed:
            job.kill()
        return len(doomed)


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"
