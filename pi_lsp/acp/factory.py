"""The one place an ACP session's agent is made: provider set-up and ``AgentSession``.

Until ``runtime.create_agent_session`` exists this module builds sessions the way
``pi-lsp run`` does (``runtime.build_agent`` + ``AgentSession``, docs/architecture.md); it is
the only module of ``acp/`` that touches the tools, the providers' model catalog or the HTTP
client, so moving to the runtime's factory changes this file alone (tests/test_layers.py).

``Provision`` is resolved once per process from the command line (the same flags and
environment variables as ``pi-lsp run``); ``open_session`` makes one ``AgentSession`` (new or
resumed from its JSONL file) over a workspace the caller may wrap (the client's ``fs/*``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..ai import Model, StreamOptions
from ..ai.env_keys import get_env_api_key
from ..ai.http import new_http_client
from ..ai.models import list_models, resolve_model
from ..runtime import api_key_variable, default_provider
from ..security import vault
from ..sessions import SessionNotFoundError, SessionStore
from ..sessions.agent_session import AgentSession
from ..tools import DiskWorkspace, ProcessRegistry, Workspace

KEYLESS_PROVIDERS = frozenset(("openai-compatible", "ollama", "faux"))


class UsageError(Exception):
    """Bad arguments or configuration: printed as one line on stderr, exit status 2."""


@dataclass(slots=True)
class Provision:
    model: Model
    stream_fn: Any = None
    get_api_key: Callable[[str], str | None] | None = None
    api_key_env: str | None = None
    thinking: str | None = None
    max_tokens: int | None = None
    read_timeout: float | None = None
    allow_bash: bool = False
    save: bool = True
    models: list[Model] = field(default_factory=list)
    """What ``session/set_config_option`` offers: the configured model first."""


def provision(args: argparse.Namespace) -> Provision:
    """Resolve the provider, model and key (``UsageError`` says what to fix)."""
    common: dict[str, Any] = {
        "thinking": args.thinking,
        "max_tokens": args.max_tokens,
        "read_timeout": args.read_timeout,
        "allow_bash": args.yes,
        "save": not args.no_save,
    }
    if args.faux_script or args.provider == "faux":
        from ..ai.models import FAUX_MODEL
        from ..ai.providers.faux import FauxProvider, FauxScript

        if args.faux_script:
            try:
                script = FauxScript.load(args.faux_script)
            except (OSError, ValueError) as exc:
                raise UsageError(f"--faux-script {args.faux_script}: {exc}") from None
        else:
            from ..demo import demo_script

            script = demo_script()
        model = FAUX_MODEL.model_copy(deep=True)
        return Provision(
            model=model, stream_fn=FauxProvider(script).stream, models=[model], **common
        )
    provider = args.provider or default_provider()
    if provider is None:
        raise UsageError(
            "no model provider configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass "
            "--provider openai-compatible --base-url URL for a local server"
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
    if key_env:
        vault.mark_secret(key_env)
    key = get_env_api_key(provider, api_key_env=key_env)
    vault.remember_value(key)
    if key is None and provider not in KEYLESS_PROVIDERS:
        raise UsageError(
            f"no API key for {provider}: set {api_key_variable(provider, key_env)} in the "
            "environment (or name another variable with --api-key-env)"
        )

    def get_api_key(name: str) -> str | None:
        return get_env_api_key(name, api_key_env=key_env)

    others = [m for m in list_models(provider) if m.id != model.id]
    return Provision(
        model=model,
        get_api_key=get_api_key,
        api_key_env=key_env,
        models=[model, *others],
        **common,
    )


@dataclass(slots=True)
class OpenedSession:
    """An ``AgentSession`` and what it owns; ``close`` releases all of it."""

    session: AgentSession
    workspace: Workspace
    registry: ProcessRegistry
    http: Any
    forked_from: str | None = None
    """Set when the session was open elsewhere and this is a copy (``open_for_writing``)."""

    async def close(self) -> None:
        self.registry.kill_all()
        self.session.close()
        await self.http.aclose()


def store_for(cwd: Path) -> SessionStore:
    return SessionStore.for_workspace(cwd)


def open_session(
    prov: Provision,
    cwd: Path,
    *,
    before_tool_call: Any,
    wrap_workspace: Callable[[Workspace], Workspace] = lambda ws: ws,
    resume: str | None = None,
    roots: Sequence[str] = (),
    on_retry: Any = None,
) -> OpenedSession:
    """A new session in ``cwd``, or the saved session ``resume`` (``SessionNotFoundError``).
    The model, thinking level and queues of a resumed session come back from its file."""
    from ..runtime import build_agent

    registry = ProcessRegistry()
    workspace = wrap_workspace(DiskWorkspace([cwd, *roots]))
    agent = build_agent(
        workspace,
        registry=registry,
        api_key_env=prov.api_key_env,
        model=prov.model.model_copy(deep=True),
        stream_fn=prov.stream_fn,
        get_api_key=prov.get_api_key,
        before_tool_call=before_tool_call,
    )
    store = store_for(cwd)
    forked_from = None
    if resume is not None:
        file, forked_from = store.open_for_writing(resume)
        session = AgentSession.resume(agent, file, resolve_model=_resolver(prov))
    else:
        session = AgentSession(agent, store.create() if prov.save else None)
        if prov.thinking:
            session.set_thinking_level(prov.thinking)
    http = new_http_client()
    agent.stream_options = StreamOptions(
        on_retry=on_retry,
        http_client=http,
        max_tokens=prov.max_tokens,
        timeout_ms=int(prov.read_timeout * 1000) if prov.read_timeout else None,
    )
    return OpenedSession(session, workspace, registry, http, forked_from)


def _resolver(prov: Provision) -> Callable[[str, str], Model | None]:
    def resolve(provider: str, model_id: str) -> Model | None:
        for model in prov.models:
            if (model.provider, model.id) == (provider, model_id):
                return model.model_copy(deep=True)
        return None

    return resolve


__all__ = [
    "OpenedSession",
    "Provision",
    "SessionNotFoundError",
    "UsageError",
    "open_session",
    "provision",
    "store_for",
]
