"""Whether a workspace's project servers (``.mcp.json``) may run, remembered per workspace.

A project file runs commands from the repository, so the first time they would start the
user is asked (allow / deny) through the front end's permission prompt; the answer is kept in
one JSON file in the user's data directory (never in the repository), keyed by a hash of
everything in the entry that changes what runs or what runs unasked (``fingerprint``): a
changed ``.mcp.json`` server — its command line, ``env``, ``headers`` or ``alwaysAllow`` — is
asked about again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Literal

from .config import McpServerConfig

log = logging.getLogger(__name__)
Decision = Literal["allow", "deny"]


def fingerprint(server: McpServerConfig) -> str:
    """What the decision is about: everything that changes what runs or what runs unasked —
    the name, transport, command, args, url, cwd, the ``env`` (``PYTHONPATH``,
    ``NODE_OPTIONS``, ``LD_PRELOAD``, ``BASH_ENV`` … make the same command run other code),
    the ``headers`` and ``alwaysAllow`` (the tools called without a question). Values are
    compared as expanded (a changed ``${VAR}`` asks again too). Not ``timeout``,
    ``disabled`` or ``eager``: they change neither."""
    what: list[object] = [
        *(server.name, server.transport, server.command, list(server.args)),
        *(server.url, server.cwd),
    ]
    if server.env or server.headers or server.always_allow:  # else the key of old decisions
        what.append(
            {
                "env": sorted(server.env.items()),
                "headers": sorted((k.lower(), v) for k, v in server.headers.items()),
                "alwaysAllow": sorted(set(server.always_allow)),
            }
        )
    return hashlib.sha256(json.dumps(what).encode()).hexdigest()[:24]


class TrustStore:
    """The decisions of one workspace, in ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def _read(self) -> dict[str, Decision]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("MCP trust file %s unreadable (%s): asking again", self.path, exc)
            return {}
        decisions = data.get("servers", {}) if isinstance(data, dict) else {}
        if not isinstance(decisions, dict):
            return {}
        return {k: v for k, v in decisions.items() if v in ("allow", "deny")}

    def decision(self, server: McpServerConfig) -> Decision | None:
        with self._lock:
            return self._read().get(fingerprint(server))

    def remember(self, servers: list[McpServerConfig], decision: Decision) -> None:
        with self._lock:
            decisions = self._read()
            for server in servers:
                decisions[fingerprint(server)] = decision
            self._write(decisions)

    def forget(self, servers: list[McpServerConfig]) -> None:
        with self._lock:
            decisions = self._read()
            for server in servers:
                decisions.pop(fingerprint(server), None)
            self._write(decisions)

    def _write(self, decisions: dict[str, Decision]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=".mcp-trust-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"version": 1, "servers": decisions}, f, indent=1)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
