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
from typing import Any

from ..ai import AssistantMessage, Model, StreamOptions
from ..ai.env_keys import get_env_api_key
from ..ai.http import new_http_client
from ..ai.thinking import THINKING_LEVELS
from ..runtime import api_key_variable, default_provider
from ..runtime.event_loop import run as run_event_loop
from ..security import vault
from ..sessions import SessionNotFoundError, SessionStore
from ..sessions.agent_session import AgentSession
from .output import BashPermission, JsonPrinter, TerminalPrinter

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
KEYLESS_PROVIDERS = frozenset(("openai-compatible", "ollama"))
"""Local OpenAI-compatible servers usually need no key."""
THINKING = THINKING_LEVELS


class UsageError(Exception):
    """Bad arguments or configuration: printed as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pi-lsp run",
        description="Run one agent trace headless in a directory and print it as it streams.",
    )
    p.add_argument("prompt", nargs="?", help="what the agent should do (optional with --demo)")
    p.add_argument("--cwd", default=".", help="the project directory (default: the current one)")
    p.add_argument("--provider", help="openai, anthropic, openai-compatible, ollama, … or faux")
    p.add_argument("--model", help="model id (default: the provider's default model)")
    p.add_argument("--base-url", help="server URL, e.g. http://127.0.0.1:8080/v1")
    p.add_argument("--api-key-env", metavar="NAME", help="environment variable holding the key")
    p.add_argument("--thinking", choices=THINKING, help="thinking level (default: off)")
    p.add_argument("-y", "--yes", action="store_true", help="run shell commands without asking")
    p.add_argument("--json", action="store_true", help="print the pi/event stream as JSON lines")
    p.add_argument("--demo", action="store_true", help="the scripted offline demo (no key needed)")
    p.add_argument("--faux-script", metavar="FILE", help="play a scripted faux model (JSON)")
    p.add_argument("--resume", metavar="SESSION_ID", help="continue a saved session of --cwd")
    p.add_argument(
        "--context-window",
        type=int,
        metavar="TOKENS",
        help="the model's context window (default: known models' own, else 128000)",
    )
    p.add_argument(
        "--max-tokens", type=int, metavar="TOKENS", help="cap on the tokens of one answer"
    )
    p.add_argument(
        "--read-timeout",
        type=float,
        metavar="SECONDS",
        help="fail a request after this long without data (default 600)",
    )
    p.add_argument("--no-save", action="store_true", help="do not save the session")
    return p


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
    http = new_http_client()  # one connection to the provider for the whole run
    agent.stream_options = StreamOptions(
        on_retry=printer.on_retry,
        http_client=http,
        max_tokens=plan.max_tokens,
        timeout_ms=int(plan.read_timeout * 1000) if plan.read_timeout else None,
    )
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


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    logging.basicConfig(level=logging.WARNING, format="pi-lsp: %(levelname)s: %(message)s")
    try:
        plan = plan_run(args)
    except UsageError as exc:
        print(f"pi-lsp run: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return run_event_loop(execute(plan))
    except KeyboardInterrupt:  # Ctrl-C before the handler was installed
        return EXIT_INTERRUPTED
