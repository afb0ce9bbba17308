"""The ``pi`` settings: model, validation key by key, and the merge order of
docs/protocol.md#1-start-up-and-settings.

Sources, later wins: defaults ← ``initializationOptions.pi`` ← ``workspace/configuration``
section ``pi`` (re-read on ``didChangeConfiguration``). Each key is validated on its own: a
bad value is reported (``SettingProblem``) and the previous value kept; unknown keys are
listed so the caller can log them. Pure: no pygls, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from ..ai.models import APIS, PROVIDERS
from ..ai.thinking import AgentThinkingLevel
from ..mcp.config import McpPermission

ThinkingSetting = AgentThinkingLevel  # the one definition: ai/thinking.py
BashPermission = Literal["ask", "allow", "deny", "sandbox"]
InputKind = Literal["text", "image"]

DEFAULT_UPDATES_PER_SECOND = 60
MIN_UPDATES_PER_SECOND = 10  # so merging never spans more than ~100 ms
MAX_UPDATES_PER_SECOND = 1000


class _Model(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        validate_assignment=True,
        extra="ignore",
        frozen=False,
    )


class Permissions(_Model):
    bash: BashPermission = "ask"
    network: bool = False
    """``bash: "sandbox"`` only: let sandboxed commands use the network."""
    env_allow: list[str] = Field(default_factory=list)
    """Environment variables passed to commands although they look like secrets."""
    mcp: McpPermission = "ask"
    """MCP tool calls: ask (unless the server's ``alwaysAllow`` names the tool),
    ``readOnlyWithoutAsking`` (tools annotated read-only run unasked), ``allow``, ``deny``."""

    @field_validator("env_allow")
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        for name in value:
            if not name or "=" in name or "\0" in name:
                raise ValueError(f"not an environment variable name: {name!r}")
        return value


def _check_api(value: str | None) -> str | None:
    if value is not None and value not in APIS:
        raise ValueError(f"unknown api; expected one of {', '.join(APIS)}")
    return value


class CustomModel(_Model):
    """One entry of the ``models`` setting: a model the catalog does not know (a local
    server's), offered by ``pi/models`` and selectable with ``pi/setModel``."""

    id: str = Field(min_length=1)
    provider: str = "openai-compatible"
    name: str | None = None
    base_url: str | None = None
    api: str | None = None
    """The wire API (``openai-responses`` …) when not the provider's own."""
    context_window: int | None = Field(default=None, gt=0)
    max_tokens: int | None = Field(default=None, gt=0)
    reasoning: bool = False
    input: list[InputKind] = Field(default_factory=lambda: list[InputKind](["text"]))
    cost: dict[str, float] | None = None
    """$ per million tokens: ``{input, output, cacheRead, cacheWrite}``."""

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, value: str) -> str:
        if value not in PROVIDERS:
            raise ValueError(f"unknown provider; expected one of {', '.join(PROVIDERS)}")
        return value

    @field_validator("api")
    @classmethod
    def _known_api(cls, value: str | None) -> str | None:
        return _check_api(value)


class ClientFeatures(_Model):
    """``initializationOptions.pi.clientCapabilities``: ``pi/*`` features the client handles."""

    events: bool = False
    """The client renders ``pi/event``; without it the final answer of each run is sent as
    ``window/showMessage`` with a Markdown transcript (docs/protocol.md#12-plain-clients)."""
    save_documents: bool = False
    """The client answers ``pi/saveDocuments {uris}`` (so the server never writes buffers)."""
    diagnostics: bool = False
    """The client forwards ``pi/diagnostics`` for files the agent touched
    (docs/protocol.md#diagnostics-after-an-edit-94)."""
    max_updates_per_second: int = Field(
        default=DEFAULT_UPDATES_PER_SECOND, ge=1, le=MAX_UPDATES_PER_SECOND
    )
    """Budget of ``message_update`` notifications per session (clamped to 10…1000)."""
    request_permission: bool = False
    """The client answers ``pi/requestPermission`` (docs/protocol.md#8-permissions-that-stick)
    instead of a message box."""
    ask: bool = False
    """The client answers ``pi/ask`` (the ``ask`` tool's questions) instead of a message box
    without free text."""
    compact_events: bool = False
    """``turn_end`` / ``agent_end`` name the messages the client already received (the ``seq``
    of their ``message_end``) instead of repeating them."""
    subagents: bool = False
    """The client shows ``task`` children: their events stream as ``pi/event`` under the
    child's ``sessionId`` with ``parentSessionId`` (docs/protocol.md#subagents)."""
    lsp_query: bool = False
    """The client answers ``pi/lspQuery`` from its own language servers (the ``lsp`` tool's
    Backend A, docs/protocol.md#lsp-query)."""

    @property
    def update_interval(self) -> float:
        return 1.0 / max(MIN_UPDATES_PER_SECOND, self.max_updates_per_second)

    @property
    def update_budget_declared(self) -> bool:
        """The client named its budget: merges follow it (no adaptive widening)."""
        return "max_updates_per_second" in self.model_fields_set


class Settings(_Model):
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api: str | None = None
    """The wire API to speak when not the provider's or model's own (a llama.cpp server
    speaks openai-completions, openai-responses and anthropic-messages)."""

    @field_validator("api")
    @classmethod
    def _known_api(cls, value: str | None) -> str | None:
        return _check_api(value)

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, value: str | None) -> str | None:
        if value is not None and value not in PROVIDERS:
            raise ValueError(f"unknown provider; expected one of {', '.join(PROVIDERS)}")
        return value

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("expected an http:// or https:// URL")
        return value

    api_key_env: str | None = None
    thinking_level: ThinkingSetting = "off"
    tool_execution: Literal["parallel", "sequential"] = "parallel"
    steering_mode: Literal["one-at-a-time", "all"] = "one-at-a-time"
    follow_up_mode: Literal["one-at-a-time", "all"] = "one-at-a-time"
    permissions: Permissions = Field(default_factory=Permissions)
    edits: Literal["apply", "confirm"] = "apply"
    default_mode: Literal["plan", "act"] = "act"
    """The mode of a new session (docs/tools.md#plan-mode); ``pi/setMode`` changes one."""
    faux_script: str | None = None
    """Path to a faux provider JSON script (``provider: "faux"``; demos and editor tests)."""
    follow_edits: bool = False
    """Show each edited file with ``window/showDocument`` (``takeFocus: false``)."""
    system_prompt_append: str | None = None
    """Extra text appended to the coding-agent system prompt."""
    context_window: int | None = Field(default=None, ge=256)
    """The configured model's context window in tokens (default: the catalog's, or 128000):
    drives compaction and ``pi/state.contextWindow`` (a small local model's real window)."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Cap on the tokens of one answer (sent as ``max_tokens``; default: the model's)."""
    read_timeout: float | None = Field(default=None, gt=0)
    """Seconds without any data from the provider before a request fails (default 600)."""
    background_limit: int = Field(default=4, ge=1, le=64)
    """Live background processes (``bash {background: true}``) per session."""
    models: list[CustomModel] = Field(default_factory=list)
    """Custom models (local servers) offered by ``pi/models`` besides the catalog."""
    context_files: bool = True
    """Load the project's context files (``AGENTS.md``, ``CLAUDE.md``…); ``false``: none, as
    ``pi-lsp run --no-context-files`` (docs/context.md)."""
    skills: bool = True
    """Discover skills; ``false``: none, as ``--no-skills``."""
    prompt_templates: bool = True
    """Load prompt templates; ``false``: none, as ``--no-prompt-templates``."""
    mcp_servers: dict[str, Any] = Field(default_factory=dict)
    """MCP servers in Claude Code's ``mcpServers`` shape; they override ``.mcp.json`` and the
    user's ``~/.config/mcp/mcp.json`` by name (pi_lsp/mcp/config.py)."""


SETTING_KEYS: frozenset[str] = frozenset(
    (f.alias or name) for name, f in Settings.model_fields.items()
)
_ALIAS_TO_FIELD = {(f.alias or name): name for name, f in Settings.model_fields.items()}
_PERMISSION_KEYS = {(f.alias or n): n for n, f in Permissions.model_fields.items()}
_CLIENT_KEYS = {(f.alias or n): n for n, f in ClientFeatures.model_fields.items()}


@dataclass(slots=True)
class SettingProblem:
    key: str
    """Dotted key as the user wrote it, e.g. ``pi.permissions.bash``."""
    message: str


@dataclass(slots=True)
class MergeResult:
    settings: Settings
    problems: list[SettingProblem] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    return str(err.get("msg", "invalid value"))


def _assign(
    target: BaseModel, name: str, value: Any, key: str, problems: list[SettingProblem]
) -> None:
    try:
        setattr(target, name, value)
    except ValidationError as exc:
        problems.append(SettingProblem(key, f"{_first_error(exc)} (got {value!r})"))


def merge_settings(base: Settings, raw: Any, *, prefix: str = "pi") -> MergeResult:
    """``base`` overlaid with ``raw`` (a ``pi`` settings object), key by key."""
    result = MergeResult(base.model_copy(deep=True))
    if raw is None:
        return result
    if not isinstance(raw, dict):
        result.problems.append(SettingProblem(prefix, f"expected an object, got {raw!r}"))
        return result
    for key, value in raw.items():
        if key == "clientCapabilities":
            continue  # handled by client_features(); not a setting
        name = _ALIAS_TO_FIELD.get(key)
        if name is None:
            result.unknown.append(f"{prefix}.{key}")
            continue
        if name == "permissions":
            _merge_permissions(result, value, f"{prefix}.{key}")
            continue
        _assign(result.settings, name, value, f"{prefix}.{key}", result.problems)
    return result


def _merge_permissions(result: MergeResult, value: Any, key: str) -> None:
    if not isinstance(value, dict):
        result.problems.append(SettingProblem(key, f"expected an object, got {value!r}"))
        return
    perms = result.settings.permissions.model_copy()
    for sub, sub_value in value.items():
        name = _PERMISSION_KEYS.get(sub)
        if name is None:
            result.unknown.append(f"{key}.{sub}")
            continue
        _assign(perms, name, sub_value, f"{key}.{sub}", result.problems)
    result.settings.permissions = perms


def client_features(init_options: Any) -> tuple[ClientFeatures, MergeResult]:
    """``clientCapabilities`` from ``initializationOptions.pi`` (bad values reported)."""
    features = ClientFeatures()
    report = MergeResult(Settings())
    raw = init_options.get("clientCapabilities") if isinstance(init_options, dict) else None
    if raw is None:
        return features, report
    key = "pi.clientCapabilities"
    if not isinstance(raw, dict):
        report.problems.append(SettingProblem(key, f"expected an object, got {raw!r}"))
        return features, report
    for sub, value in raw.items():
        name = _CLIENT_KEYS.get(sub)
        if name is None:
            report.unknown.append(f"{key}.{sub}")
            continue
        _assign(features, name, value, f"{key}.{sub}", report.problems)
    return features, report


def pi_section(init_options: Any) -> Any:
    """``initializationOptions.pi`` (``None`` when absent)."""
    if isinstance(init_options, dict):
        return init_options.get("pi")
    return None


def effective(base: Settings, previous: Settings, raw: Any) -> MergeResult:
    """Recompute from ``base`` (defaults + init options) with a new configuration object;
    a key with a bad value keeps its ``previous`` effective value."""
    result = merge_settings(base, raw)
    for problem in result.problems:
        parts = problem.key.split(".")[1:]
        if not parts:  # the whole section was not an object
            result.settings = previous.model_copy(deep=True)
            return result
        name = _ALIAS_TO_FIELD.get(parts[0])
        if name is None:
            continue
        if name != "permissions":
            setattr(result.settings, name, getattr(previous, name))
        elif len(parts) == 1:
            result.settings.permissions = previous.permissions.model_copy()
        elif parts[1] in _PERMISSION_KEYS:
            sub = _PERMISSION_KEYS[parts[1]]
            setattr(result.settings.permissions, sub, getattr(previous.permissions, sub))
    return result
