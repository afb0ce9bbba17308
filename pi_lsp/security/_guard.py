"""Run a server (MCP or language server) so that it dies with pi-lsp, even after ``kill -9``
of pi-lsp.

Started as ``python -I -S _guard.py COMMAND ARGS…`` (a script, not a module: it imports
nothing of ours). Its starter (the MCP SDK, ``langserv/``) starts it in a new process
group (``start_new_session``); the guard forks COMMAND into that group and waits for it.
When pi-lsp dies the guard learns it (``PR_SET_PDEATHSIG`` on Linux, a ``getppid`` poll
elsewhere) and kills the whole group — the server and anything it started (``npx`` →
``node``…). A normal stop needs nothing of the guard: its starter closes stdin, then
signals the group.
"""

import os
import signal
import sys
import threading
import time

GRACE_S = 2.0


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


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: _guard.py COMMAND [ARGS…]", file=sys.stderr)
        return 2
    parent = os.getppid()
    signal.signal(signal.SIGUSR1, _kill_group)
    armed = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(1, signal.SIGUSR1, 0, 0, 0) == 0  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:  # the parent died before the guard was armed
        _kill_group()
    if not armed:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)
        try:
            os.execvp(sys.argv[1], sys.argv[1:])
        except OSError as exc:
            print(f"cannot start {sys.argv[1]}: {exc.strerror or exc}", file=sys.stderr)
            os._exit(127)
    # the guard keeps no copy of the server's pipes: the client sees EOF when the server ends
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
        return os.waitstatus_to_exitcode(status) & 0xFF


if __name__ == "__main__":
    sys.exit(main())
