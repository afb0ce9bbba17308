"""``RunConfig`` → provider, model, output cap, key variable and scripted stream.

The only resolution code of the package (a test checks that no front end resolves): which
provider when none is configured, which model (a custom entry, the catalog's, or any id a
local server takes), the ``context_window`` / ``max_tokens`` overrides, the key's variable,
and the faux provider's script. Errors are ``ConfigError`` subclasses that name the
``RunConfig`` field to fix; each front end words them in its own terms (a setting, a flag).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from ..ai import Model, ModelCost
from ..ai.env_keys import get_env_api_key, requires_api_key
from ..ai.models import FAUX_MODEL, default_model_id, is_catalog_model, list_models, resolve_model
from ..security import vault
from .config import CustomModelConfig, RunConfig
from .providers import api_key_variable, default_provider

FREE_MODEL_IDS = frozenset(("openai-compatible", "ollama"))
"""Providers whose servers take any model id (a local server's own names)."""


class ConfigError(Exception):
    """A ``RunConfig`` that cannot start a run. ``field`` names the field to fix and
    ``detail`` says what is wrong with it (the front end adds its own name for the field)."""

    def __init__(self, field: str, detail: str) -> None:
        super().__init__(detail)
        self.field = field
        self.detail = detail


class NoProviderError(ConfigError):
    """No provider configured and no known provider's key in the environment."""

    def __init__(self) -> None:
        super().__init__("provider", "no model provider configured")


class MissingKeyError(ConfigError):
    """The provider needs a key and its variable is not set."""

    def __init__(self, provider: str, variable: str) -> None:
        super().__init__("api_key_env", f"no API key for {provider}: set {variable}")
        self.provider = provider
        self.variable = variable


class UnknownModelError(ConfigError):
    """A model id neither the catalog nor ``custom_models`` knows, for a provider that
    does not take any id."""

    def __init__(self, provider: str, model_id: str) -> None:
        super().__init__("model", f"unknown model {model_id!r} for provider {provider!r}")
        self.provider = provider
        self.model_id = model_id


class FauxScriptError(ConfigError):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__("faux_script", f"cannot load {path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """A resolved model, and the output cap to send with each request (``None``: the
    provider's default)."""

    model: Model
    max_tokens: int | None = None


def configured_provider(config: RunConfig) -> str | None:
    return config.provider or default_provider()


def configured_model(config: RunConfig) -> ModelChoice:
    """The model ``config`` names, with a matching custom entry and the
    ``context_window`` / ``max_tokens`` overrides applied."""
    provider = configured_provider(config)
    if provider is None:
        raise NoProviderError()
    model = _resolve(provider, config.model, config.base_url, config.api)
    choice = ModelChoice(model)
    custom = _custom(config, model.provider, model.id)
    if custom is not None:
        choice = _apply_custom(model, custom)
    if config.context_window is not None:
        choice.model.context_window = config.context_window
    if config.max_tokens is not None:
        choice.model.max_tokens = config.max_tokens
        choice = ModelChoice(choice.model, config.max_tokens)
    return choice


def choose_model(config: RunConfig, provider: str, model_id: str) -> ModelChoice:
    """A model a user picks by id (``pi/setModel``, an ACP model switch): a custom entry,
    the configured model, any id on an OpenAI-compatible server, else a catalog id."""
    configured = configured_provider(config)
    if provider == configured and model_id == _configured_id(config, provider):
        return configured_model(config)
    base_url = config.base_url if provider == configured else None
    api = config.api if provider == configured else None
    custom = _custom(config, provider, model_id)
    if custom is not None:
        model = _resolve(provider, model_id, custom.base_url or base_url, custom.api or api)
        return _apply_custom(model, custom)
    if provider not in FREE_MODEL_IDS and not is_catalog_model(provider, model_id):
        raise UnknownModelError(provider, model_id)
    return ModelChoice(_resolve(provider, model_id, base_url, api))


def offered_models(config: RunConfig) -> list[Model]:
    """The catalog, the custom models and the configured model (the configured and custom
    limits win over the catalog's)."""
    models = list_models()
    seen = {(m.provider, m.id) for m in models}
    extra: list[Model] = []
    for custom in config.custom_models:
        try:
            extra.append(choose_model(config, custom.provider, custom.id).model)
        except ConfigError:
            continue
    with contextlib.suppress(ConfigError):
        extra.append(configured_model(config).model)
    for model in extra:
        key = (model.provider, model.id)
        if key in seen:
            models = [model if (m.provider, m.id) == key else m for m in models]
        else:
            seen.add(key)
            models.append(model)
    return models


def key_variable_for(config: RunConfig, model: Model) -> str | None:
    """The configured key variable, for the configured provider only (another provider a
    user switched to reads its own)."""
    if not config.api_key_env:
        return None
    return config.api_key_env if model.provider == configured_provider(config) else None


def protect_key(config: RunConfig, model: Model) -> str | None:
    """Keep the key out of commands, logs and session files: its variable leaves
    ``os.environ`` (the vault keeps it) and its value is redacted. Returns the key."""
    if config.api_key_env:
        vault.mark_secret(config.api_key_env)
    key = get_env_api_key(model.provider, api_key_env=key_variable_for(config, model))
    vault.remember_value(key)
    return key


def require_key(config: RunConfig, model: Model) -> None:
    """``MissingKeyError`` when ``model``'s provider needs a key that is not set."""
    key = protect_key(config, model)
    if key is None and requires_api_key(model.provider) and model.api != "faux":
        variable = api_key_variable(model.provider, key_variable_for(config, model))
        raise MissingKeyError(model.provider, variable)


def check_config(config: RunConfig, *, need_key: bool = False) -> ModelChoice:
    """Resolve ``config`` now (``ConfigError`` says what to fix): the model, the faux
    script, and with ``need_key`` the provider's key."""
    choice = configured_model(config)
    if need_key:
        require_key(config, choice.model)
    else:
        protect_key(config, choice.model)
    faux_script(config)
    return choice


def faux_script(config: RunConfig) -> Any:
    """The faux provider's script ``config`` names (``None``: the registry's default faux)."""
    if config.faux_demo:
        from ..demo import demo_script

        return demo_script()
    if not config.faux_script:
        return None
    from ..ai.providers.faux import FauxScript

    try:
        return FauxScript.load(config.faux_script)
    except (OSError, ValueError) as exc:
        raise FauxScriptError(config.faux_script, str(exc)) from None


def _resolve(
    provider: str, model_id: str | None, base_url: str | None, api: str | None = None
) -> Model:
    try:
        return resolve_model(provider, model_id, base_url, api=api)
    except ValueError as exc:
        text = str(exc)
        field = (
            "base_url"
            if "baseUrl" in text
            else "api"
            if text.startswith("Unknown api")
            else "provider"
        )
        raise ConfigError(field, text) from None


def _configured_id(config: RunConfig, provider: str) -> str:
    if provider == "faux":
        return FAUX_MODEL.id
    return (config.model or "").strip() or default_model_id(provider)


def _custom(config: RunConfig, provider: str, model_id: str) -> CustomModelConfig | None:
    for custom in config.custom_models:
        if custom.provider == provider and custom.id == model_id:
            return custom
    return None


def _apply_custom(model: Model, custom: CustomModelConfig) -> ModelChoice:
    model.name = custom.name or model.name
    if custom.context_window is not None:
        model.context_window = custom.context_window
    if custom.max_tokens is not None:
        model.max_tokens = custom.max_tokens
    model.reasoning = custom.reasoning or model.reasoning
    model.input = list(custom.input)
    if custom.cost is not None:
        model.cost = ModelCost.model_validate(dict(custom.cost))
    return ModelChoice(model, custom.max_tokens)
