"""Make this process's own secrets unreadable to the commands it runs (Linux).

A child can read its parent's start-up environment from ``/proc/<ppid>/environ`` (and its
memory from ``/proc/<ppid>/mem``): removing a variable from ``os.environ`` does not change what
the kernel shows there, because it shows the memory block the environment was loaded into at
``exec``. So ``wipe_environ_block`` overwrites the named variables in that block with NUL
bytes, and ``make_undumpable`` sets ``PR_SET_DUMPABLE`` to 0, which makes ``/proc/<pid>/environ``
and ``/proc/<pid>/mem`` unreadable to processes without ``CAP_SYS_PTRACE`` (every unprivileged
command; not a command running as root: see docs/tools.md). Best effort, never raises.
"""

from __future__ import annotations

import ctypes
import logging
import sys
from collections.abc import Collection

log = logging.getLogger(__name__)

PR_SET_DUMPABLE = 4
_ENV_START_FIELD = 50  # /proc/<pid>/stat field numbers (Linux >= 3.5)
_ENV_END_FIELD = 51


def make_undumpable() -> bool:
    """``prctl(PR_SET_DUMPABLE, 0)``; True when it took effect."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # the running process: libc is linked in
        return int(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError) as exc:
        log.info("prctl(PR_SET_DUMPABLE) unavailable: %s", exc)
        return False


def _environ_block() -> tuple[int, int] | None:
    try:
        with open("/proc/self/stat", encoding="ascii", errors="replace") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()  # fields[0] is field 3
    try:
        start = int(fields[_ENV_START_FIELD - 3])
        end = int(fields[_ENV_END_FIELD - 3])
    except (IndexError, ValueError):
        return None
    return (start, end) if 0 < start < end else None


def wipe_environ_block(names: Collection[str]) -> int:
    """Overwrite ``NAME=value`` of each of ``names`` in the process's start-up environment
    block with NUL bytes (what ``/proc/self/environ`` shows); returns how many were wiped.
    A wiped variable still in the C environment reads as absent to C code; Python's
    ``os.environ`` keeps its own copy (made at start-up)."""
    if not names or not sys.platform.startswith("linux"):
        return 0
    block = _environ_block()
    if block is None:
        return 0
    start, end = block
    try:
        data = ctypes.string_at(start, end - start)
    except (OSError, ValueError):
        return 0
    prefixes = tuple(name.encode("utf-8", "surrogateescape") + b"=" for name in names)
    wiped = 0
    offset = 0
    for item in data.split(b"\0"):
        if item.startswith(prefixes):
            ctypes.memset(start + offset, 0, len(item))
            wiped += 1
        offset += len(item) + 1
    return wiped
