"""``pi-lsp run``: one headless agent trace in a directory, printed as it streams.

``pi-lsp run "PROMPT" [--cwd DIR] [--provider P --model M --base-url URL --api-key-env NAME]
[--thinking LEVEL] [--yes] [--json] [--resume ID]``; ``--demo`` (or ``--provider faux``)
plays the scripted offline demo in a temporary copy of the example project;
``--faux-script FILE`` plays a faux script in ``--cwd``. The session is saved like the
server's (``PI_LSP_DATA_DIR`` / ``$XDG_DATA_HOME/pi-lsp/sessions/…``).

Exit status: 0 done, 1 the model request failed, 2 bad usage or configuration, 130 Ctrl-C.
The first Ctrl-C aborts the run cleanly; a second kills running commands and exits at once.
The CLI layer: may import every layer below it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..ai import AssistantMessage
from ..runtime.event_loop import run as run_event_loop
from ..sessions import SessionNotFoundError, SessionStore
from ..sessions.events import ResourceNoticeEvent, ResourcesUpdateEvent
from ..sessions.fsync_worker import background_fsync, drain_background_fsync
from .args import build_parser
from .output import BashPermission, JsonPrinter, TerminalPrinter
from .prefetch import Prefetch
from .terminal_status import TerminalStatus

if TYPE_CHECKING:
    import httpx

    from ..resources import ProjectResources
    from ..runtime import ConfigError, ResourceOptions, RunConfig

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """Bad arguments or configuration: printed as one line, exit status 2."""


@dataclass(slots=True)
class Plan:
    """The run: its ``RunConfig`` (checked) and what only the command line decides."""

    prompt: str
    cwd: Path
    config: RunConfig
    scripted: bool = False
    """A faux model plays the answers (no request leaves the machine)."""
    allow_bash: bool = False
    save: bool = True
    resume: str | None = None
    json: bool = False
    banner: list[str] = field(default_factory=list)
    prefetch: Prefetch | None = None
    """The first request sent at spawn (``cli.prefetch``), for a fresh session only."""
    mcp_config: Path | None = None
    """``--mcp-config FILE``: MCP servers besides the project's and the user's."""
    terminal_status: bool = True
    """Title and bell on a question and at the end (``--no-terminal-status``: off)."""


def run_config(args: argparse.Namespace, *, demo: bool = False) -> RunConfig:
    """The command line's flags as a ``RunConfig`` (the CLI's one mapping)."""
    from ..runtime import PermissionsConfig, RunConfig
    from ..runtime.provider_args import provider_fields

    config = RunConfig(
        **provider_fields(args),
        permissions=PermissionsConfig(bash="allow" if args.yes or demo else "ask"),
        default_mode="plan" if args.plan else "act",
        resources=resource_options(args),
    )
    if demo:  # the scripted offline demo, whatever else the flags say
        return config.model_copy(
            update={"provider": "faux", "model": None, "faux_script": None, "faux_demo": True}
        )
    return config


def resource_options(args: argparse.Namespace) -> ResourceOptions:
    """Pi's context/skills/templates flags as ``ResourceOptions`` (docs/context.md)."""
    from ..runtime import ResourceOptions

    return ResourceOptions(
        context_files=not args.no_context_files,
        skills=not args.no_skills,
        prompt_templates=not args.no_prompt_templates,
        extra_skill_paths=tuple(args.skill),
        extra_template_paths=tuple(args.prompt_template),
        system_prompt=args.system_prompt,
        append_system_prompt=args.append_system_prompt,
        claude_compat=not args.no_claude_compat,
        trust="always" if args.approve else "never" if args.no_approve else "ask",
    )


def show_resources(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """``--show-context`` / ``--list-commands``: what a run in ``--cwd`` would load (trust as
    decided before, or by ``--approve`` / ``--no-approve``; nothing is asked), as JSON."""
    import json

    from ..runtime import load_project_resources, saved_trust

    cwd = Path(args.cwd).expanduser().resolve()
    if not cwd.is_dir():
        print(f"pi-lsp run: --cwd {args.cwd}: not a directory", file=sys.stderr)
        return EXIT_USAGE
    options = resource_options(args)
    trusted = saved_trust(cwd, options).load_project
    project = load_project_resources(cwd, options, trusted=trusted)
    if args.list_commands:
        data: object = {
            "commands": [c.model_dump(by_alias=True, exclude_none=True) for c in project.commands()]
        }
    else:
        data = project.payload().model_dump(by_alias=True, mode="json")
    out.write(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return EXIT_OK


def usage_text(error: ConfigError) -> str:
    """A ``ConfigError`` in the command line's terms."""
    from ..runtime import FauxScriptError, MissingKeyError, NoProviderError

    demo = "or try the offline demo: pi-lsp run --demo"
    if isinstance(error, NoProviderError):
        return (
            "no model provider configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY or "
            "GEMINI_API_KEY, or pass "
            f"--provider openai-compatible --base-url URL for a local server; {demo}"
        )
    if isinstance(error, MissingKeyError):
        return (
            f"no API key for {error.provider}: set {error.variable} in the environment "
            f"(or name another variable with --api-key-env), {demo}"
        )
    if isinstance(error, FauxScriptError):
        return f"--faux-script {error.path}: {error.reason}"
    return error.detail.replace("baseUrl setting", "--base-url")


def plan_run(args: argparse.Namespace) -> Plan:
    """Resolve the mode, directory, model and key (``UsageError`` says what to fix)."""
    from ..runtime import ConfigError, check_config

    demo = args.demo or (args.provider == "faux" and not args.faux_script)
    config = run_config(args, demo=demo)
    if demo:
        from ..demo import DEMO_PROMPT, copy_project

        project = copy_project()
        return Plan(
            prompt=args.prompt or DEMO_PROMPT,
            cwd=project,
            config=config,
            scripted=True,
            allow_bash=True,
            save=False,
            json=args.json,
            terminal_status=not (args.no_terminal_status or args.json),
            banner=[
                f"demo: a scripted model working in a temporary copy of the example project: "
                f"{project}",
                "demo: its shell command is part of the script and runs without asking",
            ],
        )
    if not args.prompt:
        raise UsageError('a prompt is required: pi-lsp run "what to do" (or try --demo)')
    cwd = Path(args.cwd).expanduser().resolve()
    if not cwd.is_dir():
        raise UsageError(f"--cwd {args.cwd}: not a directory")
    try:
        choice = check_config(config, need_key=True)
    except ConfigError as exc:
        raise UsageError(usage_text(exc)) from None
    mcp_config = Path(args.mcp_config).expanduser().resolve() if args.mcp_config else None
    if mcp_config is not None and not mcp_config.is_file():
        raise UsageError(f"--mcp-config {args.mcp_config}: no such file")
    return Plan(
        prompt=args.prompt,
        cwd=cwd,
        config=config,
        scripted=choice.model.api == "faux",
        allow_bash=args.yes,
        save=not args.no_save,
        resume=args.resume,
        json=args.json,
        mcp_config=mcp_config,
        terminal_status=not (args.no_terminal_status or args.json),
    )


def _answering_early(
    prefetch: Prefetch,
) -> Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport]:
    """The client's transport wrapper that serves the early request's response."""
    from .prefetch_transport import PrefetchTransport

    return lambda inner: PrefetchTransport(inner, prefetch)


async def execute(plan: Plan) -> int:
    """Run the plan; returns the exit status."""
    from ..runtime import SessionOptions, create_agent_session
    from ..tools.disk_workspace import DiskWorkspace

    workspace = DiskWorkspace([plan.cwd])
    terminal = TerminalPrinter()
    for line in plan.banner:
        terminal.notice(line)
    status = TerminalStatus(enabled=plan.terminal_status)
    permission = BashPermission(
        allow_all=plan.allow_bash, interactive=sys.stdin.isatty(), status=status
    )
    # redacts every secret the vault knows; the fsyncs run on a worker thread (each write is
    # in the file at once, so a kill -9 loses nothing more): parallel children never queue
    # behind each other's disk syncs on the event loop. Drained before the run returns.
    store = SessionStore.for_workspace(plan.cwd, sync=background_fsync())
    file = None
    if plan.resume:
        try:
            file, locked_original = store.open_for_writing(plan.resume)
        except SessionNotFoundError as exc:
            terminal.notice(f"pi-lsp run: {exc} (in {store.directory})")
            return EXIT_USAGE
        if locked_original is not None:
            terminal.notice(
                f"session {locked_original} is open elsewhere (an editor or another run): "
                f"continuing in a copy, session {file.session_id}"
            )
    elif plan.save:
        file = store.create()
    wrap = None if plan.prefetch is None else _answering_early(plan.prefetch)
    resources = await _project_resources(plan, workspace.cwd, permission, terminal)
    from .mcp_setup import attach_mcp

    mcp = attach_mcp(plan.cwd, plan.mcp_config, permission, terminal.notice)
    from ..runtime import language_servers

    lsp = language_servers(  # the lsp tool's servers (docs/tools.md#lsp); project's if trusted
        workspace,
        trusted=resources.trusted,
        resources=plan.config.resources,
        notify=terminal.notice,
    )
    session = create_agent_session(  # one connection to the provider for the whole run
        plan.config,
        workspace,
        file=file,
        resume=file is not None and plan.resume is not None,
        keep_saved_model=False,  # the command line's flags say which model
        options=SessionOptions(
            permissions=(permission,) if mcp is None else (permission, mcp.check),
            http_transport=wrap,
            before_run=() if mcp is None else (mcp.before_run,),
            resources=resources,
            child_permissions=lambda agent, child_id: (
                permission.for_child(agent, child_id),
                *(() if mcp is None else (mcp.child_check(agent, child_id),)),
            ),
            code_intel=lsp,
        ),
    )
    if plan.config.default_mode == "plan" and session.mode != "plan":  # --plan on a resume
        session.set_mode("plan")
    printer: TerminalPrinter | JsonPrinter = (
        JsonPrinter(session.session_id) if plan.json else terminal
    )
    session.subscribe(printer)
    if session.subagents is not None:  # task children: indented lines / their own JSON lines
        session.subagents.subscribe(printer.child)
    if plan.json and session.project_resources is not None:  # what was loaded, first
        printer(ResourcesUpdateEvent(session.project_resources.payload()))
    session.subscribe(
        lambda e: (
            terminal.notice(f"pi-lsp run: warning: {e.message}")
            if isinstance(e, ResourceNoticeEvent)
            else None
        )
    )

    interrupts = 0

    def on_sigint() -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts == 1:
            terminal.notice("^C aborting… (Ctrl-C again kills running commands at once)")
            session.abort()
            return
        session.kill_processes()
        terminal.notice("^C killed running commands")
        sys.stdout.flush()
        drain_background_fsync()
        os._exit(EXIT_INTERRUPTED)

    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, on_sigint)
    status.start()
    try:
        await session.prompt(plan.prompt)
        await session.wait_for_idle()
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        live = session.jobs.live()
        session.kill_processes()  # background jobs a command left behind end with the run
        if live:
            names = ", ".join(f"{job.id} ({job.command[:40]})" for job in live)
            terminal.notice(f"stopped {len(live)} background process(es) at exit: {names}")
        status.done()
        status.restore()
        if mcp is not None:
            await mcp.hub.aclose()
        if lsp is not None:
            await lsp.aclose()
        await session.aclose()
        drain_background_fsync()  # the session files are on disk when the run returns
    if not plan.json:
        terminal.notice(terminal.summary())
    if session.file is not None and session.file.is_persisted:
        terminal.notice(f"session {session.session_id} saved: {session.file.path}")
    if interrupts:
        return EXIT_INTERRUPTED
    last = next((m for m in reversed(session.messages) if isinstance(m, AssistantMessage)), None)
    if last is not None and last.stop_reason == "error":
        return EXIT_FAILED
    return EXIT_OK


async def _project_resources(
    plan: Plan, cwd: Path, permission: BashPermission, terminal: TerminalPrinter
) -> ProjectResources:
    """The project's resources, asking on the terminal whether to trust its own files when
    that is not decided (``--approve`` / ``--no-approve``, a saved answer); without a
    terminal they are skipped, said once on stderr."""
    from ..runtime import ask_project_trust, load_project_resources
    from .mcp_setup import terminal_trust_ask

    options = plan.config.resources
    ask = terminal_trust_ask(permission) if permission.interactive else None
    outcome = await ask_project_trust(cwd, options, ask)
    if not outcome.trusted and outcome.source == "no-one-to-ask":
        terminal.notice(
            "pi-lsp run: not a terminal: the project's own files were not loaded (pass "
            "--approve to trust them): " + ", ".join(outcome.needs_trust)
        )
    return load_project_resources(cwd, options, trusted=outcome.load_project)


def main(argv: Sequence[str], prefetch: Prefetch | None = None) -> int:
    """``prefetch``: what ``cli.prefetch.start`` sent at spawn for these arguments."""
    args = build_parser().parse_args(list(argv))
    logging.basicConfig(level=logging.WARNING, format="pi-lsp: %(levelname)s: %(message)s")
    if args.show_context or args.list_commands:
        if prefetch is not None:
            prefetch.discard()
        return show_resources(args)
    try:
        plan = plan_run(args)
    except UsageError as exc:
        print(f"pi-lsp run: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not plan.scripted and not plan.resume:  # a fresh session with a real provider
        plan.prefetch = prefetch
    elif prefetch is not None:
        prefetch.discard()
    try:
        return run_event_loop(execute(plan))
    except KeyboardInterrupt:  # Ctrl-C before the handler was installed
        return EXIT_INTERRUPTED
