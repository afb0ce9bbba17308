"""Decisions kept in one JSON file of the user's data directory (never in the repository):
``{"version": 1, SECTION: {key: decision}}``. The project trust (``resources/trust.py``) and
the ``.mcp.json`` server trust (``mcp/trust.py``) both keep theirs this way.

An unreadable file counts as empty (the user is asked again, a warning is logged); a
decision that is not one of the allowed values is ignored; a change is read, made and
written under one lock, and written atomically (a temporary file renamed) and private
(0600, its directory 0700).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Generic, TypeVar

log = logging.getLogger(__name__)
D = TypeVar("D", bound=str)


class DecisionFile(Generic[D]):
    """The decisions under ``section`` of the file at ``path``, each one of ``allowed``;
    ``what`` names them in the log (``"project trust"``)."""

    def __init__(self, path: Path, section: str, allowed: Collection[D], what: str) -> None:
        self.path = path
        self._section = section
        self._allowed = allowed
        self._what = what
        self._lock = threading.Lock()

    def read(self) -> dict[str, D]:
        with self._lock:
            return self._read()

    def change(self, edit: Callable[[dict[str, D]], object]) -> None:
        """Read the decisions, let ``edit`` change them in place, write them back."""
        with self._lock:
            decisions = self._read()
            edit(decisions)
            self._write(decisions)

    def _read(self) -> dict[str, D]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("%s file %s unreadable (%s): asking again", self._what, self.path, exc)
            return {}
        decisions = data.get(self._section, {}) if isinstance(data, dict) else {}
        if not isinstance(decisions, dict):
            return {}
        return {k: v for k, v in decisions.items() if v in self._allowed}

    def _write(self, decisions: dict[str, D]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        prefix = "." + self._what.lower().replace(" ", "-") + "-"
        fd, tmp = tempfile.mkstemp(prefix=prefix, dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"version": 1, self._section: decisions}, f, indent=1)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
