"""The process's secrets, held outside ``os.environ``.

``capture()`` (at start-up, in both ``pi-lsp`` and ``pi-lsp run``) moves every secret-looking
variable (``env_secrets.is_secret``) out of ``os.environ`` into this module, wipes it from the
start-up environment block and makes the process undumpable (``harden``). From then on
``environ()`` is the whole environment as the user gave it (for key look-ups and for variables
the user explicitly allows through to commands), ``os.environ`` holds no secret for a child to
inherit or read, and ``secret_values()`` lists every value session files must never contain.
``mark_secret(name)`` adds a variable named by a setting (``apiKeyEnv``) that does not look
like a secret; ``remember_value`` adds a value read from elsewhere (a key passed in options).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Mapping

from . import harden
from .env_secrets import is_secret

MIN_SECRET_LENGTH = 8
"""Shorter values are not treated as secrets (``TOKEN=1`` would redact every ``1``)."""

_IN_PROCESS = re.compile(r"_PROXY$", re.IGNORECASE)
"""Kept in ``os.environ`` for our own HTTP client (an authenticated proxy's URL holds a
password): still wiped from ``/proc/self/environ`` and scrubbed from commands."""

_lock = threading.Lock()
_held: dict[str, str] = {}
_marked: set[str] = set()
_values: set[str] = set()
_version = 0


def _take(names: Iterable[str]) -> list[str]:
    taken: list[str] = []
    for name in names:
        value = os.environ.get(name)
        if value is None:
            continue
        _held[name] = value
        del os.environ[name]
        taken.append(name)
    return taken


def capture(*, harden_process: bool = True) -> list[str]:
    """Move the secrets out of ``os.environ``; returns the names moved (never values)."""
    global _version
    with _lock:
        found = [k for k, v in os.environ.items() if is_secret(k, v)]
        _take([k for k in found if not _IN_PROCESS.search(k)])
        _version += 1
    if harden_process:
        harden.wipe_environ_block(found)
        harden.make_undumpable()
    return found


def mark_secret(name: str, *, harden_process: bool = True) -> None:
    """Treat ``name`` as a secret from now on (moved out of ``os.environ`` if there)."""
    global _version
    with _lock:
        if name in _marked:
            return
        _marked.add(name)
        taken = _take([name])
        _version += 1
    if harden_process and taken:
        harden.wipe_environ_block(taken)


def remember_value(value: str | None) -> None:
    """A secret value from elsewhere (e.g. a key given in options) to keep out of files."""
    global _version
    if not value or len(value.strip()) < MIN_SECRET_LENGTH:
        return
    with _lock:
        if value not in _values:
            _values.add(value)
            _version += 1


def environ() -> dict[str, str]:
    """The environment as the user gave it: ``os.environ`` plus the secrets held here."""
    with _lock:
        return {**os.environ, **_held}


def get(name: str) -> str | None:
    with _lock:
        held = _held.get(name)
    return held if held is not None else os.environ.get(name)


def secret_names() -> frozenset[str]:
    """Variables held here or marked: always removed from commands unless allowed."""
    with _lock:
        return frozenset(_held) | frozenset(_marked)


def version() -> int:
    """Changes whenever the set of secrets grows (so callers can cache derived data)."""
    return _version


def secret_values(env: Mapping[str, str] | None = None) -> set[str]:
    """Every value to keep out of files: secret variables of ``env`` (default ``environ()``),
    the held and marked ones, and remembered values (stripped copies too)."""
    source = environ() if env is None else env
    with _lock:
        names = set(_held) | _marked
        found = set(_values)
        found.update(v for k, v in _held.items())
    for name, value in source.items():
        if name in names or is_secret(name, value):
            found.add(value)
    out: set[str] = set()
    for value in found:
        for v in (value, value.strip()):
            if len(v) >= MIN_SECRET_LENGTH:
                out.add(v)
    return out


def reset_for_tests() -> None:
    """Give everything held back to ``os.environ`` and forget marks (tests only)."""
    global _version
    with _lock:
        os.environ.update(_held)
        _held.clear()
        _marked.clear()
        _values.clear()
        _version += 1
