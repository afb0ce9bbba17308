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
from typing import TYPE_CHECKING, Any

from ..ai import AssistantMessage, Model, StreamOptions
from ..ai.env_keys import get_env_api_key
from ..ai.http import new_http_client
from ..runtime import api_key_variable, default_provider
from ..runtime.event_loop import run as run_event_loop
from ..security import vault
from ..sessions import SessionNotFoundError, SessionStore
from ..sessions.agent_session import AgentSession
from .args import build_parser
from .output import BashPermission, JsonPrinter, TerminalPrinter
from .prefetch import Prefetch

if TYPE_CHECKING:
    import httpx

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
KEYLESS_PROVIDERS = frozenset(("openai-compatible", "ollama"))
"""Local OpenAI-compatible servers usually need no key."""


class UsageError(Exception):
    """Bad arguments or configuration: printed as one line, exit status 2."""


@dataclass(slots=True)
class Plan:
    """Everything the run needs, resolved from the arguments and the environment."""

    prompt: str
    cwd: Path
    model: Model
    stream_fn: Any = None
    get_api_key: Callable[[str], str | None] | None = None
    api_key_env: str | None = None
    secrets: list[str] = field(default_factory=list)
    allow_bash: bool = False
    save: bool = True
    resume: str | None = None
    thinking: str | None = None
    json: bool = False
    banner: list[str] = field(default_factory=list)
    max_tokens: int | None = None
    read_timeout: float | None = None
    prefetch: Prefetch | None = None
    """The first request sent at spawn (``cli.prefetch``), for a fresh session only."""


def plan_run(args: argparse.Namespace) -> Plan:
    """Resolve the mode, directory, model and key (``UsageError`` says what to fix)."""
    common: dict[str, Any] = {
        "thinking": args.thinking,
        "json": args.json,
        "resume": args.resume,
        "save": not args.no_save,
        "max_tokens": args.max_tokens,
        "read_timeout": args.read_timeout,
    }
    if args.demo or (args.provider == "faux" and not args.faux_script):
        from ..ai.providers.faux import FAUX_MODEL, FauxProvider
        from ..demo import DEMO_PROMPT, copy_project, demo_script

        project = copy_project()
        return Plan(
            prompt=args.prompt or DEMO_PROMPT,
            cwd=project,
            model=FAUX_MODEL.model_copy(deep=True),
            stream_fn=FauxProvider(demo_script()).stream,
            allow_bash=True,
            **{**common, "save": False, "resume": None},
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
    if args.faux_script:
        from ..ai.providers.faux import FAUX_MODEL, FauxProvider, FauxScript

        try:
            script = FauxScript.load(args.faux_script)
        except (OSError, ValueError) as exc:
            raise UsageError(f"--faux-script {args.faux_script}: {exc}") from None
        return Plan(
            prompt=args.prompt,
            cwd=cwd,
            model=FAUX_MODEL.model_copy(deep=True),
            stream_fn=FauxProvider(script).stream,
            allow_bash=args.yes,
            **common,
        )
    from ..ai.models import resolve_model

    provider = args.provider or default_provider()
    if provider is None:
        raise UsageError(
            "no model provider configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass "
            "--provider openai-compatible --base-url URL for a local server; or try the "
            "offline demo: pi-lsp run --demo"
        )
    try:
        model = resolve_model(
            provider,
            args.model,
            args.base_url,
            context_window=args.context_window,
            max_tokens=args.max_tokens,
        )
    except ValueError as exc:
        raise UsageError(str(exc).replace("baseUrl setting", "--base-url")) from None
    key_env = args.api_key_env
    if key_env:  # redacted from session files and kept from commands, like the server does
        vault.mark_secret(key_env)
    key = get_env_api_key(provider, api_key_env=key_env)
    vault.remember_value(key)
    if key is None and provider not in KEYLESS_PROVIDERS:
        raise UsageError(
            f"no API key for {provider}: set {api_key_variable(provider, key_env)} in the "
            "environment "
            "(or name another variable with --api-key-env), or try the offline demo: "
            "pi-lsp run --demo"
        )

    def get_api_key(name: str) -> str | None:
        return get_env_api_key(name, api_key_env=key_env)

    return Plan(
        prompt=args.prompt,
        cwd=cwd,
        model=model,
        get_api_key=get_api_key,
        api_key_env=key_env,
        secrets=[key] if key else [],
        allow_bash=args.yes,
        **common,
    )


def _answering_early(
    prefetch: Prefetch,
) -> Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport]:
    """The client's transport wrapper that serves the early request's response."""
    from .prefetch_transport import PrefetchTransport

    return lambda inner: PrefetchTransport(inner, prefetch)


async def execute(plan: Plan) -> int:
    """Run the plan; returns the exit status."""
    from ..runtime import build_agent
    from ..tools import DiskWorkspace, ProcessRegistry

    registry = ProcessRegistry()
    workspace = DiskWorkspace([plan.cwd])
    terminal = TerminalPrinter()
    for line in plan.banner:
        terminal.notice(line)
    permission = BashPermission(allow_all=plan.allow_bash, interactive=sys.stdin.isatty())
    agent = build_agent(
        workspace,
        registry=registry,
        api_key_env=plan.api_key_env,
        model=plan.model,
        stream_fn=plan.stream_fn,
        get_api_key=plan.get_api_key,
        before_tool_call=permission,
    )
    store = SessionStore.for_workspace(plan.cwd)  # redacts every secret the vault knows
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
        session = AgentSession.resume(agent, file)
    else:
        session = AgentSession(agent, store.create() if plan.save else None)
    if plan.thinking:
        agent.state.thinking_level = plan.thinking  # type: ignore[assignment]
    printer: TerminalPrinter | JsonPrinter = (
        JsonPrinter(session.session_id) if plan.json else terminal
    )
    wrap = None if plan.prefetch is None else _answering_early(plan.prefetch)
    http = new_http_client(wrap)  # one connection to the provider for the whole run
    agent.stream_options = StreamOptions(
        on_retry=printer.on_retry,
        http_client=http,
        max_tokens=plan.max_tokens,
        timeout_ms=int(plan.read_timeout * 1000) if plan.read_timeout else None,
    )
    session.add_session_tools(ask=False)  # nobody to answer questions in a script
    session.subscribe(printer)

    interrupts = 0

    def on_sigint() -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts == 1:
            terminal.notice("^C aborting… (Ctrl-C again kills running commands at once)")
            session.abort()
            return
        registry.kill_all()
        terminal.notice("^C killed running commands")
        sys.stdout.flush()
        os._exit(EXIT_INTERRUPTED)

    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, on_sigint)
    try:
        await session.prompt(plan.prompt)
        await session.wait_for_idle()
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        registry.kill_all()  # background jobs a command left behind end with the run
        await http.aclose()
    if not plan.json:
        terminal.notice(terminal.summary())
    if session.file is not None and session.file.is_persisted:
        terminal.notice(f"session {session.session_id} saved: {session.file.path}")
    if interrupts:
        return EXIT_INTERRUPTED
    last = next(
        (m for m in reversed(agent.state.messages) if isinstance(m, AssistantMessage)), None
    )
    if last is not None and last.stop_reason == "error":
        return EXIT_FAILED
    return EXIT_OK


def main(argv: Sequence[str], prefetch: Prefetch | None = None) -> int:
    """``prefetch``: what ``cli.prefetch.start`` sent at spawn for these arguments."""
    args = build_parser().parse_args(list(argv))
    logging.basicConfig(level=logging.WARNING, format="pi-lsp: %(levelname)s: %(message)s")
    try:
        plan = plan_run(args)
    except UsageError as exc:
        print(f"pi-lsp run: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if plan.stream_fn is None and not plan.resume:  # a fresh session with a real provider
        plan.prefetch = prefetch
    elif prefetch is not None:
        prefetch.discard()
    try:
        return run_event_loop(execute(plan))
    except KeyboardInterrupt:  # Ctrl-C before the handler was installed
        return EXIT_INTERRUPTED
