"""Where the guard script lives that a spawned server (an MCP server, a language server) runs
under, so that it dies with pi-lsp even after ``kill -9`` of pi-lsp (``_guard.py``).

``guarded_argv(command, args)`` is the command line: ``python -I -S _guard.py COMMAND ARGS…``,
to be started in a new process group (``start_new_session=True``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

GUARD_SCRIPT = Path(__file__).with_name("_guard.py")


def guarded_argv(command: str, args: Sequence[str] = ()) -> list[str]:
    """``[python, -I, -S, _guard.py, command, *args]``."""
    return [sys.executable, "-I", "-S", str(GUARD_SCRIPT), command, *args]
