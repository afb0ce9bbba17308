"""The one place an ACP session's agent session is made: ``pi-lsp acp``'s flags as a
``RunConfig`` and ``runtime.create_agent_session`` over the session's workspace.

``run_config`` is the ACP front end's one mapping into the runtime (the same flags, with the
same meaning, as ``pi-lsp run``'s: ``runtime/provider_args.py``); ``provision`` checks it once
at start-up, so a missing key is a clear line on stderr and exit status 2 rather than an
editor that shows nothing. ``open_session`` makes one session (new, or resumed from its JSONL
file) over a ``DiskWorkspace`` the caller may wrap (the client's ``fs/*``). This is the only
module of ``acp/`` that touches the tools package (tests/test_layers.py).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..ai.types import Model
from ..runtime import (
    ConfigError,
    ConfiguredSession,
    FauxScriptError,
    McpServerConfig,
    MissingKeyError,
    NoProviderError,
    PermissionsConfig,
    RunConfig,
    SessionOptions,
    check_config,
    create_agent_session,
    language_servers,
    offered_models,
    saved_trust,
)
from ..runtime.provider_args import provider_fields
from ..sessions import SessionFile, SessionNotFoundError, SessionStore
from ..tools.disk_workspace import DiskWorkspace
from ..tools.workspace import Workspace


class UsageError(Exception):
    """Bad arguments or configuration: printed as one line on stderr, exit status 2."""


class SessionBusyError(Exception):
    """The session to resume is open in another process (it holds the file's lock)."""


def run_config(args: argparse.Namespace) -> RunConfig:
    """The command line's flags as a ``RunConfig`` (this front end's one mapping)."""
    return RunConfig(
        **provider_fields(args),
        faux_demo=args.provider == "faux" and not args.faux_script,
        permissions=PermissionsConfig(bash="allow" if args.yes else "ask"),
    )


def usage_text(error: ConfigError) -> str:
    if isinstance(error, NoProviderError):
        return (
            "no model provider configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass "
            "--provider openai-compatible --base-url URL for a local server"
        )
    if isinstance(error, MissingKeyError):
        return (
            f"no API key for {error.provider}: set {error.variable} in the environment "
            "(or name another variable with --api-key-env)"
        )
    if isinstance(error, FauxScriptError):
        return f"--faux-script {error.path}: {error.reason}"
    return str(error.detail).replace("baseUrl setting", "--base-url")


@dataclass(slots=True)
class Provision:
    """The process's configuration, checked."""

    config: RunConfig
    save: bool = True
    models: list[Model] = field(default_factory=list)
    """What ``session/set_config_option`` offers: the configured model first, then the
    other models of its provider and the custom ones."""

    @property
    def bash_mode(self) -> str:
        return self.config.permissions.bash


def provision(args: argparse.Namespace) -> Provision:
    """Check the flags now (``UsageError`` says what to fix)."""
    config = run_config(args)
    try:
        choice = check_config(config, need_key=True)
    except ConfigError as exc:
        raise UsageError(usage_text(exc)) from None
    current = choice.model
    same = [
        m for m in offered_models(config) if m.provider == current.provider and m.id != current.id
    ]
    return Provision(config=config, save=not args.no_save, models=[current, *same])


@dataclass(slots=True)
class OpenedSession:
    """An agent session and its workspace; ``close`` releases all the session owns."""

    session: ConfiguredSession
    workspace: Workspace
    mcp: Any = None
    """The session's MCP servers (``pi_lsp.mcp.hub.McpHub``), stopped with it."""
    lsp: Any = None
    """The language servers of its ``lsp`` tool (``langserv.ServerPool``), stopped with it."""

    async def close(self) -> None:
        self.session.kill_processes()
        if self.mcp is not None:
            await self.mcp.aclose()
        if self.lsp is not None:
            await self.lsp.aclose()
        self.session.close()
        await self.session.aclose()


def store_for(cwd: Path) -> SessionStore:
    """The sessions of ``cwd``; their fsyncs run on the process's worker thread (a write is
    in the file at once), never on the loop that serves the client and the children."""
    from ..sessions.fsync_worker import background_fsync

    return SessionStore.for_workspace(cwd, sync=background_fsync())


def open_file(prov: Provision, cwd: Path, resume: str | None = None) -> SessionFile | None:
    """A new session's file in ``cwd`` (``None`` with ``--no-save``), or the saved session
    ``resume``'s (``SessionNotFoundError``; ``SessionBusyError`` when another process has it
    open: nothing is written, unlike the other front ends' fork, since an ACP client cannot
    be told it got a copy). The session's id is the file's."""
    store = store_for(cwd)
    if resume is not None:
        file = store.open(resume)
        if not file.acquire_lock():
            raise SessionBusyError(resume)
        return file
    return store.create() if prov.save else None


def session_config(prov: Provision, mcp_servers: Sequence[McpServerConfig] = ()) -> RunConfig:
    """The process's config with the client's MCP servers after the configured ones."""
    config = prov.config
    if mcp_servers:
        config = config.model_copy(update={"mcp_servers": (*config.mcp_servers, *mcp_servers)})
    return config


def open_session(
    config: RunConfig,
    cwd: Path,
    *,
    file: SessionFile | None,
    resume: bool,
    options: SessionOptions,
    wrap_workspace: Callable[[Workspace], Workspace] = lambda ws: ws,
    roots: Sequence[str] = (),
    mcp: Any = None,
) -> OpenedSession:
    """The agent session over ``file`` (from ``open_file``) in one call: ``options`` carry
    its id, the permission checks, the ``ask`` handler (``acp/questions.py``) and the MCP
    tools' before-run hook; ``mcp`` is the hub it closes."""
    workspace = wrap_workspace(DiskWorkspace([cwd, *roots]))
    lsp = None
    if options.code_intel is None:  # the lsp tool's servers; the project's only if trusted
        trusted = saved_trust(cwd, config.resources).load_project
        lsp = language_servers(workspace, trusted=trusted, resources=config.resources)
        options = replace(options, code_intel=lsp)
    session = create_agent_session(config, workspace, file=file, resume=resume, options=options)
    return OpenedSession(session, workspace, mcp, lsp)


__all__ = [
    "OpenedSession",
    "Provision",
    "SessionBusyError",
    "SessionNotFoundError",
    "UsageError",
    "open_file",
    "open_session",
    "provision",
    "run_config",
    "session_config",
    "store_for",
]
