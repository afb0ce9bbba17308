"""``RunConfig``: what a front end asks of an agent session, before anything is resolved.

Front-end neutral and frozen. Each front end has one small mapping into it (the language
server's settings: ``lsp/host/agent_setup.py``; ``pi-lsp run``'s flags: ``cli/run.py``; the
ACP adapter's session parameters), and ``runtime.create_agent_session`` is the one place that
turns it into a provider, a model, a key variable, a stream and tools. Names are the
settings' own, in snake case; ``None`` means "the default" everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict

from ..ai.thinking_levels import AgentThinkingLevel
from ..mcp.config import McpPermission
from ..mcp.config import McpServerConfig as McpServerConfig  # the one model: pi_lsp/mcp
from ..resources import ResourceOptions as ResourceOptions  # the one model: pi_lsp/resources

BashMode = Literal["ask", "allow", "deny", "sandbox"]
QueueMode = Literal["one-at-a-time", "all"]
ToolExecution = Literal["parallel", "sequential"]
EditsMode = Literal["apply", "confirm"]
InputKind = Literal["text", "image"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CustomModelConfig(_Frozen):
    """A model the catalog does not know (a local server's), selectable by its id."""

    id: str
    provider: str = "openai-compatible"
    name: str | None = None
    base_url: str | None = None
    api: str | None = None
    """The wire API when not the provider's own (``openai-responses`` …)."""
    context_window: int | None = None
    max_tokens: int | None = None
    reasoning: bool = False
    input: tuple[InputKind, ...] = ("text",)
    cost: Mapping[str, float] | None = None
    """$ per million tokens: ``{input, output, cacheRead, cacheWrite}``."""


class PermissionsConfig(_Frozen):
    bash: BashMode = "ask"
    """How ``bash`` commands are allowed; the front end's permission prompt applies it,
    ``sandbox`` also makes the runtime run commands inside bubblewrap."""
    network: bool = False
    """``bash: "sandbox"`` only: sandboxed commands may use the network."""
    env_allow: tuple[str, ...] = ()
    """Environment variables passed to commands although they look like secrets."""
    mcp: McpPermission = "ask"
    """MCP tool calls: asked like ``bash`` unless ``allow`` / ``deny`` /
    ``readOnlyWithoutAsking`` (tools annotated read-only run unasked)."""


class RunConfig(_Frozen):
    """Everything about a session's runs that a user can configure."""

    provider: str | None = None
    """``None``: the first of anthropic, openai, google whose key is in the environment."""
    model: str | None = None
    """``None``: the provider's default model."""
    base_url: str | None = None
    api: str | None = None
    """The wire API when not the provider's or model's own: ``openai-completions``,
    ``openai-responses``, ``anthropic-messages`` or ``google-generative-ai``."""
    api_key_env: str | None = None
    """The variable the configured provider's key is read from (default: the provider's)."""
    thinking: AgentThinkingLevel | None = None
    """``None``: the session's own level (restored from its file, else ``off``)."""
    tool_execution: ToolExecution = "parallel"
    steering_mode: QueueMode = "one-at-a-time"
    follow_up_mode: QueueMode = "one-at-a-time"
    permissions: PermissionsConfig = PermissionsConfig()
    edits: EditsMode = "apply"
    """Whether the agent's edits apply at once or wait for the user (the workspace's job)."""
    context_window: int | None = None
    max_tokens: int | None = None
    """Cap on the tokens of one answer (``None``: the model's)."""
    system_prompt_append: str | None = None
    read_timeout: float | None = None
    """Seconds without data from the provider before a request fails (``None``: 600)."""
    background_limit: int = 4
    """Live background processes (``bash {background: true}``) per session."""
    faux_script: str | None = None
    """Path of a faux provider script (``provider: "faux"``: demos and tests)."""
    faux_demo: bool = False
    """``provider: "faux"`` plays the built-in offline demo's script (``pi-lsp run --demo``)."""
    custom_models: tuple[CustomModelConfig, ...] = ()
    mcp_servers: tuple[McpServerConfig, ...] = ()
    default_mode: Literal["plan", "act"] = "act"
    """The mode of a new session (docs/tools.md#plan-mode); a resumed one keeps its own."""
    resources: ResourceOptions = ResourceOptions()
    """The project's context files, skills and prompt templates (docs/context.md): which
    load, extra paths, ``SYSTEM.md`` overrides, Claude Code compatibility, trust policy."""
