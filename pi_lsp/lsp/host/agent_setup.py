"""The language server's one mapping into the runtime: ``pi`` settings → ``RunConfig``, and
the runtime's ``ConfigError`` → a message naming the setting to fix (``SetupError``).

Resolution itself (provider, model, key, faux script) is ``runtime``'s; a session re-reads
the settings before every run, so a change reaches idle sessions at their next prompt (a run
in progress keeps its model, as Pi does).
"""

from __future__ import annotations

from ...ai import Model
from ...mcp.config import parse_servers
from ...runtime import (
    ConfigError,
    CustomModelConfig,
    FauxScriptError,
    NoProviderError,
    PermissionsConfig,
    ResourceOptions,
    RunConfig,
    UnknownModelError,
    configured_model,
)
from ...runtime import offered_models as runtime_offered_models
from ..settings import CustomModel, Settings

NO_PROVIDER = (
    "pi has no provider configured: set the `pi.provider` setting (openai, anthropic, google, "
    "openai-compatible, ollama, openrouter, groq or faux) in your editor's LSP settings."
)


class SetupError(Exception):
    """A setting prevents starting a run; the message tells the user which one."""


def run_config(settings: Settings) -> RunConfig:
    perms = settings.permissions
    return RunConfig(
        provider=settings.provider,
        model=settings.model,
        base_url=settings.base_url,
        api=settings.api,
        api_key_env=settings.api_key_env,
        thinking=settings.thinking_level,
        tool_execution=settings.tool_execution,
        steering_mode=settings.steering_mode,
        follow_up_mode=settings.follow_up_mode,
        permissions=PermissionsConfig(
            bash=perms.bash,
            network=perms.network,
            env_allow=tuple(perms.env_allow),
            mcp=perms.mcp,
        ),
        edits=settings.edits,
        context_window=settings.context_window,
        max_tokens=settings.max_tokens,
        system_prompt_append=settings.system_prompt_append,
        read_timeout=settings.read_timeout,
        background_limit=settings.background_limit,
        faux_script=settings.faux_script,
        custom_models=tuple(_custom(m) for m in settings.models),
        default_mode=settings.default_mode,
        mcp_servers=tuple(parse_servers(settings.mcp_servers, "settings", "pi.mcpServers").servers),
        resources=ResourceOptions(
            context_files=settings.context_files,
            skills=settings.skills,
            prompt_templates=settings.prompt_templates,
        ),
    )


def _custom(model: CustomModel) -> CustomModelConfig:
    return CustomModelConfig(
        id=model.id,
        provider=model.provider,
        name=model.name,
        base_url=model.base_url,
        api=model.api,
        context_window=model.context_window,
        max_tokens=model.max_tokens,
        reasoning=model.reasoning,
        input=tuple(model.input),
        cost=model.cost,
    )


def setup_error(error: ConfigError, prefix: str = "pi settings") -> SetupError:
    """``error`` in the settings' terms (``prefix``: where the bad value came from)."""
    if isinstance(error, NoProviderError):
        return SetupError(NO_PROVIDER)
    if isinstance(error, UnknownModelError):
        return SetupError(
            f"Unknown model {error.model_id!r} for provider {error.provider!r}: pick one of "
            "pi/models or add it to the `pi.models` setting"
        )
    if isinstance(error, FauxScriptError):
        return SetupError(f"pi settings: cannot load `pi.fauxScript` {error.path}: {error.reason}")
    return SetupError(f"{prefix}: {error.detail}")


def model_for(settings: Settings) -> Model:
    """The configured model (``SetupError`` when the settings name none that resolves)."""
    try:
        return configured_model(run_config(settings)).model
    except ConfigError as exc:
        raise setup_error(exc) from None


def offered_models(settings: Settings) -> list[Model]:
    """``pi/models``: the catalog, the custom ``models`` and the configured model."""
    return runtime_offered_models(run_config(settings))
