"""Run a command so that it dies with pi-lsp, even after ``kill -9`` of pi-lsp.

The one process guard of pi-lsp: MCP servers (``pi_lsp.mcp.server``), language servers
(``pi_lsp.langserv.server``) and the ``bash`` tool's commands that may outlive a tool call
(background processes, ``pi_lsp.tools.process``) all run under it. Started as
``python -I -S process_guard.py COMMAND ARGS…`` (a script, not a module: it imports nothing
of ours) in a new process group (``start_new_session``); the guard forks COMMAND into that
group and waits for it. When pi-lsp dies the guard learns it (``PR_SET_PDEATHSIG`` on Linux,
a ``getppid`` poll elsewhere) and kills the whole group — the command and anything it
started (``npx`` → ``node``…). A normal stop needs nothing of the guard: the owner signals
the group. The guard exits with the command's status (a command killed by a signal: the
guard ends by the same signal). ``--watch PGID OWNER`` guards a group that is already
running (a command moved to the background) for as long as the process OWNER is its parent.

Both forms name their owner (``--owner PID`` before COMMAND): an owner killed before the
guard's first look — the guard is then the child of another process, so its own
``getppid()`` at start-up would name the wrong parent — is noticed and the group killed.

Imported, it only says how to start it: ``guarded_argv(command, args)`` (to be started with
``start_new_session=True``) and ``watch_argv(pgid)``; both name the calling process as the
owner. Run as a script it imports nothing but
the standard library.
"""

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

GRACE_S = 2.0
GUARD_SCRIPT = Path(__file__).resolve()
"""This file, run as ``python -I -S process_guard.py …``."""


def guarded_argv(command: str, args: Sequence[str] = ()) -> list[str]:
    """``[python, -I, -S, process_guard.py, --owner, OWNER, command, *args]``: COMMAND under
    the guard, for this process (OWNER), which starts the guard."""
    owner = str(os.getpid())
    return [sys.executable, "-I", "-S", str(GUARD_SCRIPT), "--owner", owner, command, *args]


def watch_argv(pgid: int) -> list[str]:
    """``[python, -I, -S, process_guard.py, --watch, PGID, OWNER]``: guard a running group
    for this process (OWNER), which starts the watcher."""
    return [sys.executable, "-I", "-S", str(GUARD_SCRIPT), "--watch", str(pgid), str(os.getpid())]


def _kill_group(*_: object) -> None:
    try:
        os.killpg(0, signal.SIGTERM)
        time.sleep(GRACE_S)
        os.killpg(0, signal.SIGKILL)
    finally:
        os._exit(1)


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    _kill_group()


def _arm(on_death: object) -> bool:
    """Ask Linux for SIGUSR1 when the parent dies; True when it is armed."""
    signal.signal(signal.SIGUSR1, on_death)  # type: ignore[arg-type]
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(1, signal.SIGUSR1, 0, 0, 0) == 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return False


def watch(pgid: int, owner: int) -> int:
    """``--watch PGID OWNER``: guard a process group that is already running (a command moved
    to the background): kill it when the parent dies; end when the group is gone. OWNER is
    the parent expected: one that died before the watcher looked is noticed too (the
    watcher's parent is then another process)."""

    def kill(*_: object) -> None:
        try:
            os.killpg(pgid, signal.SIGTERM)
            time.sleep(GRACE_S)
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
        finally:
            os._exit(1)

    _arm(kill)
    while True:
        if os.getppid() != owner:
            kill()
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return 0
        except PermissionError:
            pass
        time.sleep(1.0)


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--watch" and all(a.isdigit() for a in sys.argv[2:]):
        return watch(int(sys.argv[2]), int(sys.argv[3]))
    argv = sys.argv[1:]
    parent = os.getppid()
    if len(argv) >= 2 and argv[0] == "--owner" and argv[1].isdigit():
        parent, argv = int(argv[1]), argv[2:]
    if not argv:
        usage = "usage: process_guard.py [--owner PID] COMMAND [ARGS…] | --watch PGID OWNER"
        print(usage, file=sys.stderr)
        return 2
    armed = _arm(_kill_group)
    if os.getppid() != parent:  # the owner died before the guard was armed
        _kill_group()
    if not armed:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            print(f"cannot start {argv[0]}: {exc.strerror or exc}", file=sys.stderr)
            os._exit(127)
    # the guard keeps no copy of the command's pipes: the owner sees EOF when the command ends
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
        except InterruptedError:
            continue
        except ChildProcessError:
            return 0
        code = os.waitstatus_to_exitcode(status)
        if code < 0:  # end the way the command ended, so the owner sees the signal
            with contextlib.suppress(OSError, ValueError):  # SIGKILL: no handler to reset
                signal.signal(-code, signal.SIG_DFL)
            os.kill(os.getpid(), -code)
        return code & 0xFF


if __name__ == "__main__":
    sys.exit(main())
