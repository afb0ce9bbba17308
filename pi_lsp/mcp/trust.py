"""Whether a workspace's project servers (``.mcp.json``) may run, remembered per workspace.

A project file runs commands from the repository, so the first time they would start the
user is asked (allow / deny) through the front end's permission prompt; the answer is kept in
one JSON file in the user's data directory (never in the repository), keyed by a hash of
everything in the entry that changes what runs or what runs unasked (``fingerprint``): a
changed ``.mcp.json`` server — its command line, ``env``, ``headers`` or ``alwaysAllow`` — is
asked about again.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Literal

from ..resources.decision_file import DecisionFile
from .config import McpServerConfig

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
        self._file = DecisionFile[Decision](path, "servers", ("allow", "deny"), "MCP trust")
        self.path = path

    def decision(self, server: McpServerConfig) -> Decision | None:
        return self._file.read().get(fingerprint(server))

    def remember(self, servers: list[McpServerConfig], decision: Decision) -> None:
        def edit(decisions: dict[str, Decision]) -> None:
            for server in servers:
                decisions[fingerprint(server)] = decision

        self._file.change(edit)

    def forget(self, servers: list[McpServerConfig]) -> None:
        def edit(decisions: dict[str, Decision]) -> None:
            for server in servers:
                decisions.pop(fingerprint(server), None)

        self._file.change(edit)
