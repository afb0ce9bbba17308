"""A stdio MCP server's stderr: read through a pipe instead of passed through to ours.

Passed through, whatever a server prints (a token in a traceback, its environment) reached the
editor's log as is, and a server that died at start-up failed with the SDK's "connection
closed" while the reason sat in that log. Here each line is logged with the server's
credentials cut (``McpServer.secrets``), and the last few are kept: the failure message
quotes them.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import threading
from collections.abc import Iterable
from typing import TextIO

from .results import scrub

log = logging.getLogger(__name__)

KEEP_LINES = 5
"""How many of the last stderr lines a failure message may quote."""
LINE_LIMIT = 300
"""A longer line is cut (a server dumping a blob on one line)."""
DRAIN_S = 1.0
"""After the server stopped: how long to wait for its last lines (a child it left running
may hold the pipe open)."""


class StderrTail:
    """One server start's stderr pipe: ``writer()`` for the process, a reader thread that logs
    each line and keeps the last ``KEEP_LINES``; ``close()`` once the process is gone."""

    def __init__(self, name: str, secrets: Iterable[str]) -> None:
        self.name = name
        self.secrets = tuple(secrets)
        self.lines: collections.deque[str] = collections.deque(maxlen=KEEP_LINES)
        self._writer: TextIO | None = None
        self._thread: threading.Thread | None = None

    def writer(self) -> TextIO:
        """The pipe's write end (a real file: the child process inherits it)."""
        read_fd, write_fd = os.pipe()
        self._writer = os.fdopen(write_fd, "w")
        self._thread = threading.Thread(
            target=self._read, args=(read_fd,), daemon=True, name=f"mcp stderr {self.name}"
        )
        self._thread.start()
        return self._writer

    def _read(self, fd: int) -> None:
        with os.fdopen(fd, "rb") as pipe:
            for raw in pipe:
                line = raw.decode("utf-8", "replace").rstrip()
                if not line:
                    continue
                line = scrub(line, self.secrets)
                if len(line) > LINE_LIMIT:
                    line = line[:LINE_LIMIT] + "…"
                self.lines.append(line)
                log.info("MCP server %s (stderr): %s", self.name, line)

    async def close(self) -> None:
        """Close our copy of the write end and wait (briefly) for the last lines."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, DRAIN_S)

    def explain(self, message: str) -> str:
        """``message`` with the last stderr line, when the server said anything."""
        if not self.lines:
            return message
        return f"{message} (its stderr: {self.lines[-1]})"
