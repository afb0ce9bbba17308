"""``pi-lsp run``'s MCP servers: ``.mcp.json`` in ``--cwd``, the user's
``~/.config/mcp/mcp.json`` and ``--mcp-config FILE`` (later wins by name).

Questions go to the terminal: the project servers' trust (``[y/N]``, remembered for the
workspace) and each call (``[y/N/s=session/a=always]``). ``--yes`` allows both for this run
(a trust given that way is not remembered); without a terminal and without ``--yes`` the
project's servers do not start and calls are denied, said once on stderr.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..ai import AbortSignal
from ..mcp.attach import McpAttachment, attach
from ..mcp.config import LoadedConfig, load, read_file
from ..runtime.permissions import Answer, Ask, Question
from ..security.rules import RuleStore
from ..sessions.paths import data_dir, workspace_key
from .output import BashPermission

CALL_KEYS = {"y": "allowOnce", "yes": "allowOnce", "s": "allowSession", "a": "allowAlways"}


def terminal_ask(permission: BashPermission) -> Ask:
    async def ask(question: Question, signal: AbortSignal | None) -> Answer:
        trust = question.tool == "mcp"
        keys = "[y/N]" if trust else "[y/N/s=this session/a=always here]"
        answer = await permission.ask_line(
            f"\n{question.title}\n{question.detail}\n{keys} ", signal
        )
        if trust:
            return Answer("allowAlways" if answer in ("y", "yes") else "deny")
        kind: Any = CALL_KEYS.get(answer, "deny")
        return Answer(kind)

    return ask


def terminal_trust_ask(permission: BashPermission) -> Ask:
    """The project trust question (docs/context.md#trust) on the terminal: ``y`` trusts and
    remembers, ``s`` trusts for this run, anything else does not trust (remembered)."""

    async def ask(question: Question, signal: AbortSignal | None) -> Answer:
        answer = await permission.ask_line(
            f"\n{question.title}\n{question.detail}\n[y=trust/N=do not/s=this run only] ",
            signal,
        )
        kinds: dict[str, Any] = {"y": "allowAlways", "yes": "allowAlways", "s": "allowSession"}
        return Answer(kinds.get(answer, "deny"))

    return ask


def attach_mcp(
    cwd: Path,
    extra: Path | None,
    permission: BashPermission,
    notice: Callable[[str], None],
) -> McpAttachment | None:
    """The MCP tools a session is built with (``None`` when no server is configured)."""
    layers: list[LoadedConfig] = [read_file(extra, "settings")] if extra else []
    loaded = load(cwd, layers)
    allow_all, interactive = permission.allow_all, permission.interactive
    if loaded.servers and not allow_all and not interactive:
        notice(
            "pi-lsp run: not a terminal: MCP tool calls are denied and the project's "
            ".mcp.json servers do not start unless trusted before (pass --yes to allow)"
        )

    async def trust_all(_: list[Any]) -> bool:
        return True

    key = workspace_key(cwd)
    return attach(
        loaded,
        ask=terminal_ask(permission) if interactive else None,
        trust_file=data_dir() / "mcp-trust" / f"{key}.json",
        rules=RuleStore(data_dir() / "permissions" / f"{key}.json", str(cwd)),
        permission=lambda: "allow" if allow_all else "ask",
        notify=notice,
        ask_trust=trust_all if allow_all else None,
        remember_trust=not allow_all,
    )
