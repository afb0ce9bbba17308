"""The event loop the front ends run on: uvloop where it is installed, else asyncio's own.

uvloop is a dependency wherever it has wheels (Linux, macOS: ``sys_platform != 'win32'`` in
pyproject.toml), so it is the default loop there; elsewhere (Windows) the front ends run on
asyncio's loop, on which everything works too. uvloop's C loop roughly halves the scheduling
cost of every streamed chunk (docs/performance.md#agent-loop). ``PI_LSP_EVENT_LOOP`` picks
one: ``auto`` (the default: uvloop if importable), ``uvloop`` (warns and falls back when it
is missing) or ``asyncio``.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
ENV_VAR = "PI_LSP_EVENT_LOOP"
CHOICES = ("auto", "uvloop", "asyncio")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's ``new_event_loop`` when chosen and importable; ``None`` means asyncio's."""
    choice = os.environ.get(ENV_VAR, "auto").strip().lower() or "auto"
    if choice not in CHOICES:
        log.warning("%s=%r is not one of %s; using auto", ENV_VAR, choice, ", ".join(CHOICES))
        choice = "auto"
    if choice == "asyncio":
        return None
    try:
        uvloop = importlib.import_module("uvloop")  # absent on Windows: imported by name
    except ImportError:
        if choice == "uvloop":
            log.warning("%s=uvloop but uvloop is not installed; using asyncio", ENV_VAR)
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def loop_name(loop: asyncio.AbstractEventLoop) -> str:
    """``uvloop`` or ``asyncio`` (for logs and ``--version``-style reports)."""
    return "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio"


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on the chosen loop."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
