"""Settings → an agent's model, provider stream, API key lookup, modes and tools.

``AgentSetup.configure`` is applied before every run, so a settings change reaches idle
sessions at their next prompt (a run in progress keeps its model, as Pi does). ``faux`` with
``fauxScript`` gives each session its own ``FauxProvider`` playing that script.
Errors the user must fix raise ``SetupError`` with a message naming the setting.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import httpx

from ..agent import Agent
from ..ai import Model, StreamOptions
from ..ai.env_keys import PROVIDER_ENV_KEYS
from ..ai.events import RetryInfo
from ..ai.http import new_http_client
from ..ai.models import resolve_model
from ..ai.providers.faux import FauxProvider, FauxScript
from ..tools import (
    BashOptions,
    BashTool,
    ProcessRegistry,
    Workspace,
    build_system_prompt,
    create_coding_tools,
)
from .settings import Settings

NO_PROVIDER = (
    "pi has no provider configured: set the `pi.provider` setting (openai, anthropic, "
    "openai-compatible, ollama, openrouter, groq or faux) in your editor's LSP settings."
)


class SetupError(Exception):
    """A setting prevents starting a run; the message tells the user which one."""


def default_provider(env: dict[str, str] | None = None) -> str | None:
    """With no ``pi.provider``: the first provider whose key is in the environment."""
    source = os.environ if env is None else env
    for provider in ("anthropic", "openai"):
        if any(source.get(name, "").strip() for name in PROVIDER_ENV_KEYS[provider]):
            return provider
    return None


def model_for(settings: Settings) -> Model:
    provider = settings.provider or default_provider()
    if provider is None:
        raise SetupError(NO_PROVIDER)
    try:
        return resolve_model(
            provider,
            settings.model,
            settings.base_url,
            context_window=settings.context_window,
            max_tokens=settings.max_tokens,
        )
    except ValueError as exc:
        raise SetupError(f"pi settings: {exc}") from None


@dataclass(slots=True)
class _Faux:
    path: str
    provider: FauxProvider


class AgentSetup:
    """Per-session agent configuration (owns that session's faux provider, if any)."""

    def __init__(
        self,
        workspace: Workspace,
        settings: Callable[[], Settings],
        on_retry: Callable[[RetryInfo], object],
    ) -> None:
        self.workspace = workspace
        self._settings = settings
        self._on_retry = on_retry
        self.registry = ProcessRegistry()
        self._faux: _Faux | None = None
        self._http: httpx.AsyncClient | None = None

    def http_client(self) -> httpx.AsyncClient:
        """The session's long-lived provider client (created in the running loop on first use),
        so every turn reuses the connection instead of a new TLS handshake."""
        if self._http is None or self._http.is_closed:
            self._http = new_http_client()
        return self._http

    def new_agent(self, before_tool_call: Any) -> Agent:
        settings = self._settings()
        extra = frozenset({settings.api_key_env}) if settings.api_key_env else frozenset()
        tools = create_coding_tools(
            self.workspace,
            bash=BashOptions(process_registry=self.registry, extra_secret_env=extra),
        )
        agent = Agent(
            system_prompt=build_system_prompt(
                self.workspace, tools, extra=settings.system_prompt_append
            ),
            tools=tools,
            before_tool_call=before_tool_call,
            stream_options=StreamOptions(on_retry=self._on_retry, http_client=self.http_client()),
        )
        return agent

    def configure(self, agent: Agent) -> None:
        """Apply the current settings to ``agent`` before a run (``SetupError`` if unusable)."""
        settings = self._settings()
        model = model_for(settings)
        agent.state.model = model
        agent.state.thinking_level = settings.thinking_level
        agent.steering_mode = settings.steering_mode
        agent.follow_up_mode = settings.follow_up_mode
        agent.tool_execution = settings.tool_execution
        agent.stream_fn = self._stream_fn(settings, model)
        key_env = settings.api_key_env
        base = agent.stream_options or StreamOptions(
            on_retry=self._on_retry, http_client=self.http_client()
        )
        timeout_ms = int(settings.read_timeout * 1000) if settings.read_timeout else None
        if (base.api_key_env, base.timeout_ms, base.max_tokens) != (
            key_env, timeout_ms, settings.max_tokens
        ):  # the provider reads the key (and names it if missing)
            agent.stream_options = replace(
                base, api_key_env=key_env, timeout_ms=timeout_ms, max_tokens=settings.max_tokens
            )
        secrets = frozenset({key_env}) if key_env else frozenset()
        for tool in agent.state.tools:
            if isinstance(tool, BashTool) and tool.options.extra_secret_env != secrets:
                tool.options = replace(tool.options, extra_secret_env=secrets)

    def _stream_fn(self, settings: Settings, model: Model) -> Any:
        if model.api != "faux" or not settings.faux_script:
            return None
        path = settings.faux_script
        if self._faux is None or self._faux.path != path:
            try:
                script = FauxScript.load(path)
            except (OSError, ValueError) as exc:
                raise SetupError(
                    f"pi settings: cannot load `pi.fauxScript` {path}: {exc}"
                ) from None
            self._faux = _Faux(path, FauxProvider(script))
        return self._faux.provider.stream
