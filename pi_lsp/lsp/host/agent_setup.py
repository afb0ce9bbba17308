"""Settings → an agent's model, provider stream, API key lookup, modes and tools.

``AgentSetup.configure`` is applied before every run, so a settings change reaches idle
sessions at their next prompt (a run in progress keeps its model, as Pi does). ``faux`` with
``fauxScript`` gives each session its own ``FauxProvider`` playing that script.
Errors the user must fix raise ``SetupError`` with a message naming the setting.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

import httpx

from ...agent import Agent
from ...ai import Model, ModelCost, StreamOptions
from ...ai.events import RetryInfo
from ...ai.http import new_http_client
from ...ai.models import default_model_id, is_catalog_model, list_models, resolve_model
from ...ai.providers.faux import FAUX_MODEL, FauxProvider, FauxScript
from ...runtime import build_agent, default_provider
from ...security import vault
from ...security.sandbox import Bubblewrap
from ...tools import (
    BashSandbox,
    BashTool,
    ProcessRegistry,
    Workspace,
)
from ..settings import BashPermission, CustomModel, Settings, ThinkingSetting

NO_PROVIDER = (
    "pi has no provider configured: set the `pi.provider` setting (openai, anthropic, google, "
    "openai-compatible, ollama, openrouter, groq or faux) in your editor's LSP settings."
)


class SandboxSource(Protocol):
    sandbox: Bubblewrap

    def effective_mode(self, mode: BashPermission) -> BashPermission: ...


class SetupError(Exception):
    """A setting prevents starting a run; the message tells the user which one."""


FREE_MODEL_IDS = frozenset(("openai-compatible", "ollama"))
"""Providers whose servers take any model id (a local server's own names)."""


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """A resolved model, and the output cap to send with each request (``None``: the
    provider's default)."""

    model: Model
    max_tokens: int | None = None


def model_for(settings: Settings) -> Model:
    return configured_model(settings).model


def configured_model(settings: Settings) -> ModelChoice:
    """The model the settings name, with a matching ``models`` entry and the
    ``contextWindow`` / ``maxTokens`` overrides applied."""
    provider = settings.provider or default_provider()
    if provider is None:
        raise SetupError(NO_PROVIDER)
    try:
        model = resolve_model(provider, settings.model, settings.base_url, api=settings.api)
    except ValueError as exc:
        raise SetupError(f"pi settings: {exc}") from None
    choice = ModelChoice(model)
    custom = _custom(settings, model.provider, model.id)
    if custom is not None:
        choice = _apply_custom(model, custom)
    if settings.context_window is not None:
        choice.model.context_window = settings.context_window
    if settings.max_tokens is not None:
        choice.model.max_tokens = settings.max_tokens
        choice = ModelChoice(choice.model, settings.max_tokens)
    return choice


def choose_model(settings: Settings, provider: str, model_id: str) -> ModelChoice:
    """The model ``pi/setModel`` asks for: a ``models`` entry, the configured model, any id
    on an OpenAI-compatible server, else a catalog id. ``SetupError`` names what is wrong."""
    configured_provider = settings.provider or default_provider()
    if provider == configured_provider and model_id == _configured_id(settings, provider):
        return configured_model(settings)
    base_url = settings.base_url if provider == configured_provider else None
    api = settings.api if provider == configured_provider else None
    custom = _custom(settings, provider, model_id)
    if custom is not None:
        try:
            model = resolve_model(
                provider, model_id, custom.base_url or base_url, api=custom.api or api
            )
        except ValueError as exc:
            raise SetupError(f"pi/setModel: {exc}") from None
        return _apply_custom(model, custom)
    if provider not in FREE_MODEL_IDS and not is_catalog_model(provider, model_id):
        raise SetupError(
            f"Unknown model {model_id!r} for provider {provider!r}: pick one of pi/models "
            "or add it to the `pi.models` setting"
        )
    try:
        return ModelChoice(resolve_model(provider, model_id, base_url, api=api))
    except ValueError as exc:
        raise SetupError(f"pi/setModel: {exc}") from None


def offered_models(settings: Settings) -> list[Model]:
    """``pi/models``: the catalog, the custom ``models`` and the configured model."""
    models = list_models()
    seen = {(m.provider, m.id) for m in models}
    extra: list[Model] = []
    for custom in settings.models:
        try:
            extra.append(choose_model(settings, custom.provider, custom.id).model)
        except SetupError:
            continue
    with contextlib.suppress(SetupError):
        extra.append(configured_model(settings).model)
    for model in extra:
        key = (model.provider, model.id)
        if key in seen:  # the configured/custom limits win over the catalog's
            models = [model if (m.provider, m.id) == key else m for m in models]
        else:
            seen.add(key)
            models.append(model)
    return models


def _configured_id(settings: Settings, provider: str) -> str:
    if provider == "faux":
        return FAUX_MODEL.id
    return (settings.model or "").strip() or default_model_id(provider)


def _custom(settings: Settings, provider: str, model_id: str) -> CustomModel | None:
    for custom in settings.models:
        if custom.provider == provider and custom.id == model_id:
            return custom
    return None


def _apply_custom(model: Model, custom: CustomModel) -> ModelChoice:
    model.name = custom.name or model.name
    if custom.context_window is not None:
        model.context_window = custom.context_window
    if custom.max_tokens is not None:
        model.max_tokens = custom.max_tokens
    model.reasoning = custom.reasoning or model.reasoning
    model.input = list(custom.input)
    if custom.cost is not None:
        model.cost = ModelCost.model_validate(custom.cost)
    return ModelChoice(model, custom.max_tokens)


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
        *,
        sandbox: SandboxSource | None = None,
    ) -> None:
        self.workspace = workspace
        self._sandbox = sandbox
        self._settings = settings
        self.retry_listener: Callable[[RetryInfo], object] | None = None
        """Told about each provider retry (the hosted session that owns this setup)."""
        self.registry = ProcessRegistry()
        self._faux: _Faux | None = None
        self._http: httpx.AsyncClient | None = None
        self.choice: tuple[str, str] | None = None
        """``(provider, model id)`` chosen for this session with ``pi/setModel``: it keeps
        that model whatever the settings say (re-resolved against them before each run)."""
        self.choice_thinking: ThinkingSetting | None = None

    def http_client(self) -> httpx.AsyncClient:
        """The session's long-lived provider client (created in the running loop on first use),
        so every turn reuses the connection instead of a new TLS handshake."""
        if self._http is None or self._http.is_closed:
            self._http = new_http_client()
        return self._http

    def _on_retry(self, info: RetryInfo) -> None:
        if self.retry_listener is not None:
            self.retry_listener(info)

    async def aclose(self) -> None:
        """Close the provider client (its pooled connections); a later run opens a new one."""
        client, self._http = self._http, None
        if client is not None and not client.is_closed:
            await client.aclose()

    def new_agent(self, before_tool_call: Any) -> Agent:
        settings = self._settings()
        return build_agent(
            self.workspace,
            registry=self.registry,
            api_key_env=settings.api_key_env,
            system_prompt_append=settings.system_prompt_append,
            before_tool_call=before_tool_call,
            stream_options=StreamOptions(on_retry=self._on_retry, http_client=self.http_client()),
        )

    def configure(self, agent: Agent) -> None:
        """Apply the current settings to ``agent`` before a run (``SetupError`` if unusable)."""
        settings = self._settings()
        choice = self.resolve(settings)
        model = choice.model
        agent.state.model = model
        agent.state.thinking_level = self.choice_thinking or settings.thinking_level
        agent.steering_mode = settings.steering_mode
        agent.follow_up_mode = settings.follow_up_mode
        agent.tool_execution = settings.tool_execution
        agent.stream_fn = self._stream_fn(settings, model)
        if settings.api_key_env:  # out of os.environ, out of commands and out of session files
            vault.mark_secret(settings.api_key_env)
        # the key setting names the configured provider's key; another provider uses its own
        same_provider = model.provider == (settings.provider or default_provider())
        key_env = settings.api_key_env if same_provider else None
        base = agent.stream_options or StreamOptions(
            on_retry=self._on_retry, http_client=self.http_client()
        )
        timeout_ms = int(settings.read_timeout * 1000) if settings.read_timeout else None
        if (base.api_key_env, base.timeout_ms, base.max_tokens) != (
            key_env,
            timeout_ms,
            choice.max_tokens,
        ):  # the provider reads the key (and names it if missing)
            agent.stream_options = replace(
                base, api_key_env=key_env, timeout_ms=timeout_ms, max_tokens=choice.max_tokens
            )
        secrets = frozenset({settings.api_key_env}) if settings.api_key_env else frozenset()
        perms = settings.permissions
        sandbox = None
        if self._sandbox is not None and self._sandbox.effective_mode(perms.bash) == "sandbox":
            sandbox = BashSandbox(self._sandbox.sandbox, network=perms.network)
        for tool in agent.state.tools:
            if isinstance(tool, BashTool):
                tool.options = replace(
                    tool.options,
                    extra_secret_env=secrets,
                    env_allow=frozenset(perms.env_allow),
                    sandbox=sandbox,
                )

    def settings(self) -> Settings:
        return self._settings()

    def resolve(self, settings: Settings | None = None) -> ModelChoice:
        """This session's model: its own choice, else the configured one."""
        settings = settings or self._settings()
        if self.choice is not None:
            return choose_model(settings, *self.choice)
        return configured_model(settings)

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
