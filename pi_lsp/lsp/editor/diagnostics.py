"""Diagnostics the client forwards (``pi/diagnostics``,
docs/protocol.md#diagnostics-after-an-edit-94), and the bounded wait after an edit for those of the
edited version.

Only clients declaring ``clientCapabilities.diagnostics`` are waited for. A report for an older
version than the one asked for is ignored. The wait ends early once a report for the new
version has arrived and no further report came for ``SETTLE`` seconds; it never lasts longer
than ``WAIT``.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

WAIT = 1.5
SETTLE = 0.25


@dataclass(slots=True)
class _Report:
    version: int | None
    diagnostics: list[dict[str, Any]]
    received: float


@dataclass(slots=True)
class DiagnosticsStore:
    _latest: dict[str, _Report] = field(default_factory=dict)
    _events: dict[str, asyncio.Event] = field(default_factory=dict)

    def report(self, uri: str, version: int | None, diagnostics: list[dict[str, Any]]) -> None:
        key = unquote(uri)
        old = self._latest.get(key)
        if (
            old is not None
            and version is not None
            and old.version is not None
            and version < old.version
        ):
            return  # an older version's diagnostics: stale
        self._latest[key] = _Report(version, diagnostics, time.monotonic())
        event = self._events.pop(key, None)
        if event is not None:
            event.set()

    def current(self, uri: str) -> list[dict[str, Any]]:
        report = self._latest.get(unquote(uri))
        return list(report.diagnostics) if report is not None else []

    async def after_edit(self, uri: str, base_version: int | None) -> list[dict[str, Any]]:
        """Diagnostics for a version newer than ``base_version`` (a report without a version
        counts when it arrives after the call), once they settle; ``[]`` if none came."""
        key = unquote(uri)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT
        since = time.monotonic()

        def fresh() -> _Report | None:
            r = self._latest.get(key)
            if r is None:
                return None
            if r.version is not None and base_version is not None:
                return r if r.version > base_version else None
            return r if r.received >= since else None

        while fresh() is None:
            if not await self._wait(key, deadline - loop.time()) and loop.time() >= deadline:
                return []
        while await self._wait(key, min(SETTLE, deadline - loop.time())):
            pass  # another report came: wait for quiet again
        report = fresh()
        return list(report.diagnostics) if report is not None else []

    async def _wait(self, key: str, seconds: float) -> bool:
        """True when a report for ``key`` arrived within ``seconds``."""
        if seconds <= 0:
            return False
        event = self._events.setdefault(key, asyncio.Event())
        try:
            await asyncio.wait_for(event.wait(), seconds)
        except TimeoutError:
            return False
        return True


def describe(diagnostics: list[dict[str, Any]], lines: set[int]) -> str | None:
    """The errors and warnings on ``lines`` (0-based) for the model, or ``None``."""
    names = {1: "error", 2: "warning"}
    out: list[str] = []
    for d in diagnostics:
        severity = d.get("severity", 1)
        try:
            line = int(d["range"]["start"]["line"])
        except (KeyError, TypeError, ValueError):
            continue
        if severity not in names or line not in lines:
            continue
        source = f" [{d['source']}]" if d.get("source") else ""
        out.append(f"- line {line + 1}: {names[severity]}{source}: {d.get('message', '')}")
    if not out:
        return None
    return "The editor reports on the lines you changed:\n" + "\n".join(out[:20])
