"""``pi-lsp run``'s terminal status: the window title says what the run is doing and the bell
rings when a question waits for the user (like Pi's terminal status), so a run left in a
background tab is noticed. ``--no-terminal-status`` turns it off; it is off anyway when
stderr is not a terminal or with ``--json``.

The title is pushed at start (``CSI 22;0 t``) and popped at exit (``CSI 23;0 t``), so the
terminal gets its own title back where it supports the title stack.
"""

from __future__ import annotations

import sys
from typing import TextIO

PREFIX = "pi-lsp"


class TerminalStatus:
    def __init__(self, out: TextIO = sys.stderr, *, enabled: bool = True) -> None:
        self.out = out
        self.enabled = enabled and _is_tty(out)
        self._pushed = False

    def _write(self, text: str) -> None:
        if not self.enabled:
            return
        try:
            self.out.write(text)
            self.out.flush()
        except (OSError, ValueError):
            self.enabled = False

    def title(self, text: str) -> None:
        clean = "".join(ch for ch in text if ch.isprintable())
        self._write(f"\x1b]0;{PREFIX}: {clean}\x07")

    def start(self) -> None:
        if self.enabled and not self._pushed:
            self._pushed = True
            self._write("\x1b[22;0t")
        self.title("running")

    def waiting(self, what: str = "a question waits for you") -> None:
        """A question is on the terminal: the title says so and the bell rings."""
        self.title(what)
        self._write("\x07")

    def running(self) -> None:
        self.title("running")

    def done(self, text: str = "done") -> None:
        self.title(text)

    def restore(self) -> None:
        if self._pushed:
            self._pushed = False
            self._write("\x1b[23;0t")


def _is_tty(out: TextIO) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False
