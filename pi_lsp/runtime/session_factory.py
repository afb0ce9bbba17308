"""``create_agent_session``: the one way a front end gets an agent session.

``create_agent_session(config, workspace, file=…, options=SessionOptions(…))`` — one call,
with everything the front end adds (its permission checks, ``ask``, sandbox, transport,
before-run hooks, and the session id it made first) — resolves the
``RunConfig`` (``resolve.py``), builds the agent (``assemble.build_agent``: the coding tools
over the front end's workspace, the bash tool's process registry and secret-free environment,
the system prompt), and returns a ``ConfiguredSession``: an ``AgentSession`` that owns what it
was built with (its provider HTTP client, its process registry, its faux provider) and
closes them in ``aclose``. A front end keeps the session and
passes a new ``RunConfig`` to ``configure`` when its settings change.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from ..agent._hooks import resolve
from ..agent.types import BeforeToolCall, BeforeToolCallContext, BeforeToolCallResult
from ..ai import AbortSignal, StreamOptions
from ..ai.thinking_levels import THINKING_LEVELS, AgentThinkingLevel
from ..resources import ProjectResources, Resources
from ..sessions import SessionFile
from ..sessions.agent_session import AgentSession
from ..sessions.paths import uuid7
from ..sessions.plan_state import AskHandler
from ..sessions.run_settings import RunSettings
from ..tools import BashSandbox, BashTool, ProcessRegistry, Workspace
from ..tools.background import BackgroundJobs
from ..tools.code_intel import CodeIntel
from ..tools.factory import bind_session
from ..tools.prompt import build_system_prompt
from ..tools.read_areas import ReadAreas
from .assemble import build_agent
from .config import BashMode, RunConfig
from .resolve import (
    ConfigError,
    ModelChoice,
    choose_model,
    configured_model,
    faux_script,
    key_variable_for,
    protect_key,
)

if TYPE_CHECKING:
    import httpx

    from ..security.sandbox import Bubblewrap
    from ..subagents.runner import Subagents

TransportWrap = Callable[["httpx.AsyncBaseTransport"], "httpx.AsyncBaseTransport"]


class SandboxSource(Protocol):
    """Where ``bash: "sandbox"`` commands run (the language server's security context)."""

    sandbox: Bubblewrap

    def effective_mode(self, mode: BashMode) -> BashMode: ...


BeforeRun = Callable[["ConfiguredSession"], Awaitable[None]]
"""Awaited at the start of each prompted run, before the model is asked (an MCP toolset
starts its servers and puts their tools in the session there)."""


ChildPermissions = Callable[[str, str], Sequence[BeforeToolCall]]
"""``(agent name, child session id)`` → the child's permission checks."""


def new_session_id() -> str:
    """The id of a session that has no file (a file names its own: ``file.session_id``)."""
    return uuid7()


@dataclass(frozen=True, slots=True)
class SessionOptions:
    """Everything a front end adds to a session, given in the one ``create_agent_session``
    call: nothing is wired into the session after it is made."""

    session_id: str | None = None
    """The session's id, known before anything is built (the front end's asks carry it):
    the file's id when there is a file, else a new one (``new_session_id``)."""
    permissions: Sequence[BeforeToolCall] = ()
    """The front end's permission checks before each tool call, in order (the bash rules,
    then the MCP tools'); the first answer wins."""
    ask: AskHandler | None = None
    """Puts the ``ask`` tool's questions to the user (no ``ask`` tool without it)."""
    sandbox: SandboxSource | None = None
    """Where ``bash: "sandbox"`` commands run (bubblewrap)."""
    http_transport: TransportWrap | None = None
    """Wraps the provider client's transport (``pi-lsp run``'s early first request)."""
    before_run: Sequence[BeforeRun] = ()
    """Awaited in order at the start of each prompted run (a failure is logged)."""
    resources: ProjectResources | None = None
    """The project's context, skills and templates as the front end loaded them (after its
    trust question); ``None``: loaded for the workspace with the saved trust decision."""
    child_permissions: ChildPermissions | None = None
    """The permission checks of a ``task`` child (its agent's name, its session id): the
    front end's same rules with the questions attributed to the child (``BashRules.
    for_child``); ``None``: the children use ``permissions`` as they are."""
    subagents: bool = True
    """Give the session the ``task`` tool and its children (a child itself gets none)."""
    parent: ConfiguredSession | None = None
    """A ``task`` child's root session (``runtime/children.py``): the child plays the root's
    faux script (one script scripts the tree), set before the child is first configured."""
    code_intel: CodeIntel | None = None
    """Who answers the ``lsp`` tool (``language_servers(…)``: servers pi-lsp starts; the
    editor's own): the session gets the tool only with one. The front end closes it."""


SessionHooks = SessionOptions
"""The former name (it held only ``http_transport``)."""


def _first_answer(checks: Sequence[BeforeToolCall]) -> BeforeToolCall | None:
    if not checks:
        return None
    if len(checks) == 1:
        return checks[0]

    async def before_tool_call(
        ctx: BeforeToolCallContext, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        for check in checks:
            answer = await resolve(check(ctx, signal))
            if answer is not None:
                return answer
        return None

    return before_tool_call


def _before_run(session: ConfiguredSession, hooks: Sequence[BeforeRun]) -> Any:
    if not hooks:
        return None

    async def before_run() -> None:
        for hook in hooks:
            await hook(session)

    return before_run


def _refresh(options: SessionOptions) -> list[BeforeRun]:
    """The ``lsp`` tool's servers reload a changed configuration at each prompt, like the
    resources (``ServerPool.refresh``)."""
    refresh = getattr(options.code_intel, "refresh", None)
    if not callable(refresh):
        return []

    async def hook(session: ConfiguredSession) -> None:
        await refresh()

    return [hook]


def create_agent_session(
    config: RunConfig,
    workspace: Workspace,
    *,
    file: SessionFile | None = None,
    resume: bool = False,
    keep_saved_model: bool = True,
    options: SessionOptions | None = None,
) -> ConfiguredSession:
    """An agent session over ``workspace`` for ``config``, with what the front end adds
    (``options``: its id, permission checks, ``ask`` handler, sandbox, transport, before-run
    hooks).

    ``file``: the session file (``None``: in memory); with ``resume`` its messages, model,
    thinking level and queues are restored, and a model the user picked for this session
    (``select_model``) is kept when ``keep_saved_model``. The session gets the ``todo``
    tool, and the ``ask`` tool when the front end gives the ``ask`` handler; a new session
    starts in ``config.default_mode``, a resumed one in its own mode
    (docs/tools.md#plan-mode).

    A config that does not resolve does not stop the session from being made: the agent
    keeps its defaults and ``configure`` (which a front end calls before a run) raises the
    ``ConfigError``; ``check_config`` raises it up front.

    ``options.resources``: the project's context files, skills and templates
    (docs/context.md); by default they are loaded for the workspace's cwd with
    ``config.resources`` and the trust decided without asking
    (``project_context.saved_trust``) — a front end that can ask
    passes its own (``ask_project_trust`` + ``load_project_resources``) or calls
    ``settle_project_trust`` afterwards.
    """
    options = options or SessionOptions()
    if file is not None and options.session_id not in (None, file.session_id):
        raise ValueError(f"session id {options.session_id} is not the file's {file.session_id}")
    registry = ProcessRegistry()
    resources = options.resources or _default_resources(config, workspace)
    read_areas = ReadAreas()
    agent = build_agent(
        workspace,
        registry=registry,
        api_key_env=config.api_key_env,
        system_prompt_append=config.system_prompt_append,
        before_tool_call=_first_answer(options.permissions),
        resources=resources.current,
        read_areas=read_areas,
        code_intel=options.code_intel,
    )
    coding_tools = list(agent.state.tools)
    used = AgentSession.restore(agent, file) if resume and file is not None else None
    session = ConfiguredSession(
        agent,
        file,
        config=config,
        registry=registry,
        sandbox=options.sandbox,
        http_transport=options.http_transport,
        session_id=options.session_id,
    )
    session.ask_handler = options.ask
    session.before_run = _before_run(session, [*options.before_run, *_refresh(options)])
    session.add_session_tools(ask=options.ask is not None)

    def apply_resources(loaded: Resources) -> None:
        read_areas.set(s.base_dir for s in loaded.skills)
        prompt = build_system_prompt(
            workspace, coding_tools, extra=session.config.system_prompt_append, resources=loaded
        )
        session.set_system_prompt(prompt)

    session.attach_resources(resources, apply_resources)
    if options.subagents:
        from .children import attach_subagents

        attach_subagents(session, workspace, options, create_agent_session)
    if not resume:
        session.set_default_mode(config.default_mode)
    bind_session(agent.state.tools, session.session_id)
    saved = session.saved_model_choice() if resume and keep_saved_model else None
    if saved is not None:  # the session chose its own model: it keeps it
        session.model_choice = saved[0], saved[1]
        if saved[2] in THINKING_LEVELS:
            session.thinking_choice = saved[2]
    if options.parent is not None:
        session.share_faux(options.parent)
    try:
        session.configure()
    except ConfigError as exc:  # reported by the front end's configure
        session.config_error = exc
    else:  # the model is known only now
        session.log_model_change(used)
    return session


def _default_resources(config: RunConfig, workspace: Workspace) -> ProjectResources:
    from .project_context import load_project_resources, saved_trust

    options = config.resources
    try:
        trusted = saved_trust(workspace.cwd, options).load_project
    except Exception:  # nothing about the project may stop a session: untrusted
        trusted = False
    return load_project_resources(workspace.cwd, options, trusted=trusted)


class ConfiguredSession(AgentSession):
    """An ``AgentSession`` made by ``create_agent_session``: it owns its HTTP client, process
    registry and faux provider, and re-resolves its ``RunConfig`` in
    ``configure``."""

    def __init__(
        self,
        agent: Any,
        file: SessionFile | None,
        *,
        config: RunConfig,
        registry: ProcessRegistry,
        sandbox: SandboxSource | None = None,
        http_transport: TransportWrap | None = None,
        session_id: str | None = None,
    ) -> None:
        super().__init__(agent, file, session_id=session_id)
        self.config = config
        self.registry = registry
        self._sandbox = sandbox
        self._wrap = http_transport
        self._http: httpx.AsyncClient | None = None
        self._faux: tuple[str, Any] | None = None
        self.model_choice: tuple[str, str] | None = None
        """``(provider, model id)`` picked for this session (``select_model``): it keeps that
        model whatever the config says (re-resolved against the config before each run)."""
        self.thinking_choice: AgentThinkingLevel | None = None
        self._jobs: BackgroundJobs | None = None
        self.subagents: Subagents | None = None
        """The session's ``task`` children (``None`` for a child: depth 1)."""
        self.config_error: ConfigError | None = None
        """Why the configuration did not resolve when the session was made (``None``: it
        did, or it was not tried)."""

    def abort(self) -> None:
        """Abort the run; every ``task`` child first (their streams, commands, questions)."""
        if self.subagents is not None:
            self.subagents.abort_all()
        super().abort()

    def share_faux(self, parent: ConfiguredSession) -> None:
        """Play the parent's faux script (a ``task`` child: one script scripts the tree)."""
        if parent._faux is not None:
            self._faux = parent._faux

    # ------------------------------------------------------------------ resources

    def http_client(self) -> httpx.AsyncClient:
        """The session's long-lived provider client (made on first use), so every turn
        reuses the connection instead of a new TLS handshake."""
        if self._http is None or self._http.is_closed:
            from ..ai.http import new_http_client

            self._http = new_http_client(self._wrap)
        return self._http

    def kill_processes(self) -> None:
        """Kill every command the session's tools started (and what they left behind),
        background processes included, its ``task`` children's too."""
        if self.subagents is not None:
            for child in self.subagents.running():
                kill = getattr(child.session, "kill_processes", None)
                if kill is not None:
                    kill()
        self.registry.kill_all()

    @property
    def jobs(self) -> BackgroundJobs:
        """The session's background processes (``bash {background: true}``)."""
        if self._jobs is None:
            found = next(
                (t.options.jobs for t in self.agent.state.tools if isinstance(t, BashTool)), None
            )
            self._jobs = found if found is not None else BackgroundJobs()
        return self._jobs

    async def aclose(self) -> None:
        """Close the provider client (a later run opens a new one)."""
        client, self._http = self._http, None
        if client is not None and not client.is_closed:
            await client.aclose()

    # ------------------------------------------------------------------ configuration

    def resolve(self, config: RunConfig | None = None) -> ModelChoice:
        """This session's model: its own choice, else the configured one."""
        config = config or self.config
        if self.model_choice is not None:
            return choose_model(config, *self.model_choice)
        return configured_model(config)

    def configure(self, config: RunConfig | None = None) -> None:
        """Apply ``config`` (default: the current one) from the next run on; a run in
        progress keeps its model. ``ConfigError`` when it does not resolve (nothing changes)."""
        config = config or self.config
        choice = self.resolve(config)
        model = choice.model
        stream_fn = self._stream_fn(config) if model.api == "faux" else None
        protect_key(config, model)
        previous, self.config = self.config, config
        project = self.project_resources
        if project is not None and config.resources != previous.resources:
            project.options = config.resources  # loaded again, used from the next run on
            self.reload_resources()
        elif project is not None and config.system_prompt_append != previous.system_prompt_append:
            self.reload_resources()  # the system prompt is made again with the new text
        base = self.agent.stream_options or StreamOptions(on_retry=self.notify_retry)
        options = replace(
            base,
            http_client=self.http_client(),  # the same one while it is open
            api_key_env=key_variable_for(config, model),
            timeout_ms=int(config.read_timeout * 1000) if config.read_timeout else None,
            max_tokens=choice.max_tokens,
        )
        thinking = self.thinking_choice or config.thinking
        self.apply_settings(
            RunSettings(
                model=model,
                stream_options=options,
                thinking_level=thinking,
                stream_fn=stream_fn,
                tool_execution=config.tool_execution,
                steering_mode=config.steering_mode,
                follow_up_mode=config.follow_up_mode,
            )
        )
        self._configure_bash(config)

    def select_model(
        self,
        provider: str | None,
        model_id: str,
        thinking: str | None,
        *,
        config: RunConfig | None = None,
    ) -> None:
        """The user picks this session's model (and thinking level) against ``config``
        (default: the current one): used from its next model call, recorded in the file so a
        resumed session keeps it. ``ConfigError`` / ``ValueError`` when the model or level is
        not usable."""
        if config is not None:
            self.config = config
        provider = provider or self.model.provider
        choice = choose_model(self.config, provider, model_id)
        self.choose_model(choice.model, thinking)  # validates the level, records both
        self.model_choice = (provider, model_id)
        if thinking is not None:
            self.thinking_choice = thinking  # type: ignore[assignment]  # checked just above
        if not self.is_running:
            self.configure()

    def _stream_fn(self, config: RunConfig) -> Any:
        key = "<demo>" if config.faux_demo else config.faux_script
        if key is None:
            return None
        if self._faux is None or self._faux[0] != key:
            from ..ai.providers.faux import FauxProvider

            self._faux = (key, FauxProvider(faux_script(config)))
        return self._faux[1].stream

    def _configure_bash(self, config: RunConfig) -> None:
        perms = config.permissions
        secrets = frozenset({config.api_key_env}) if config.api_key_env else frozenset()
        sandbox = None
        if self._sandbox is not None and self._sandbox.effective_mode(perms.bash) == "sandbox":
            sandbox = BashSandbox(self._sandbox.sandbox, network=perms.network)
        for tool in self.agent.state.tools:
            if isinstance(tool, BashTool):
                tool.options.jobs.limit = config.background_limit
                tool.options = replace(
                    tool.options,
                    extra_secret_env=secrets,
                    env_allow=frozenset(perms.env_allow),
                    sandbox=sandbox,
                )
