"""A session's mode (``plan`` | ``act``), its todo list and its questions to the user.

``PlanStateMixin`` is part of ``AgentSession``. The mode decides the agent's tool list and
system prompt (``tools.plan_mode``: in ``plan`` no ``write``/``edit``, no tool not marked
read-only, ``bash`` only for proven read-only commands; the prompt says so); a run started in
``plan`` keeps that tool list to its end, a later run (and every follow-up continuation) gets
the mode as it is then. Switching to ``act`` after a run in ``plan`` delivers a follow-up
telling the model to carry out its plan (a new run when idle, a queued follow-up otherwise).

The session is the ``todo`` tool's ``TodoBoard`` and the ``ask`` tool's ``Asker`` (it hands
the question to ``ask_handler``, which the front end sets). Mode and todo list are
``custom`` entries (``pi-lsp.mode``, ``pi-lsp.todo``) in the session file, so resume restores
them; custom entries never reach the model. Each change is told to the listeners as a
``mode_update`` / ``todo_update`` event. Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from inspect import isawaitable
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from pydantic import TypeAdapter, ValidationError

from ..agent.types import AgentTool, BeforeToolCallContext, BeforeToolCallResult
from ..ai import AbortSignal
from ..tools.ask import AskAnswer, AskParams, AskTool
from ..tools.bash import BashTool
from ..tools.common import ToolError
from ..tools.lsp import ReadOnlyLspTool
from ..tools.plan_mode import (
    ACT_FOLLOW_UP,
    PLAN_MODE_PROMPT,
    PlanModeBashTool,
    is_read_only,
    plan_mode_tools,
    plan_refusal,
)
from ..tools.todo import TodoItem, TodoTool
from .entries import CustomEntry, SessionEntry
from .events import ModeUpdateEvent, SessionEvent, TodoUpdateEvent

if TYPE_CHECKING:
    from ..agent import Agent
    from .session_file import SessionFile

Mode: TypeAlias = Literal["plan", "act"]
MODES: tuple[Mode, ...] = ("plan", "act")
MODE_ENTRY_TYPE = "pi-lsp.mode"
TODO_ENTRY_TYPE = "pi-lsp.todo"
NO_ASKER = (
    "This front end cannot put questions to the user. Decide yourself, and say in your "
    "answer what you assumed."
)
AskHandler: TypeAlias = Callable[[str, AskParams, AbortSignal | None], Awaitable[AskAnswer | None]]
_todo_list = TypeAdapter(list[TodoItem])


def saved_plan_state(branch: Sequence[SessionEntry]) -> tuple[Mode | None, list[TodoItem]]:
    """The mode and todo list the last such entries on ``branch`` hold."""
    mode: Mode | None = None
    todos: list[TodoItem] | None = None
    for entry in reversed(branch):
        if not isinstance(entry, CustomEntry) or not isinstance(entry.data, dict):
            continue
        if mode is None and entry.custom_type == MODE_ENTRY_TYPE:
            value = entry.data.get("mode")
            mode = value if value in MODES else None
        elif todos is None and entry.custom_type == TODO_ENTRY_TYPE:
            try:
                todos = _todo_list.validate_python(entry.data.get("items"))
            except ValidationError:
                todos = []
        if mode is not None and todos is not None:
            break
    return mode, todos or []


class PlanStateMixin:
    """Mode, todo list and questions of an ``AgentSession`` (see the module docstring)."""

    agent: Agent
    _tree: SessionFile
    ask_handler: AskHandler | None
    _mode: Mode
    _todos: list[TodoItem]
    _planned: bool
    _act_tools: list[AgentTool[Any]] | None
    _base_prompt: str | None

    if TYPE_CHECKING:

        def _record(self, append: Callable[..., str | None], *args: Any) -> str | None: ...
        def _notify(self, event: SessionEvent) -> None: ...
        def prompt(self, input: Any, images: Any = ()) -> Any: ...
        @property
        def is_running(self) -> bool: ...

    def _init_plan_state(self) -> None:
        self.ask_handler = None
        self._act_tools = None
        self._base_prompt = None
        mode, self._todos = saved_plan_state(self._tree.get_branch())
        self._mode = mode or "act"
        self._planned = self._mode == "plan"
        self._apply_mode()
        self._guard_tool_calls()

    # ------------------------------------------------------------------ mode

    @property
    def mode(self) -> Mode:
        return self._mode

    def has_saved_mode(self) -> bool:
        return saved_plan_state(self._tree.get_branch())[0] is not None

    def set_default_mode(self, mode: Mode) -> None:
        """A new session's mode from the settings (not recorded; a saved mode wins)."""
        if mode in MODES and not self.has_saved_mode() and mode != self._mode:
            self._mode = mode
            self._apply_mode()
            self._notify(ModeUpdateEvent(mode))

    def set_mode(self, mode: Mode, deliver: Callable[[str], object] | None = None) -> bool:
        """Switch the session's mode (recorded in the file, told to the listeners). Returns
        whether a follow-up asking the model to carry out its plan was delivered: switching
        to ``act`` after a run in ``plan``. ``deliver`` is the front end's way to send that
        text (default: a new run when idle, a queued follow-up otherwise)."""
        if mode not in MODES:
            raise ValueError(f"Unknown mode: {mode!r} (expected 'plan' or 'act')")
        if mode == self._mode:
            return False
        self._mode = mode
        self._record(self._tree.append_custom, MODE_ENTRY_TYPE, {"mode": mode})
        self._apply_mode()
        self._notify(ModeUpdateEvent(mode))
        if mode == "plan":
            return False
        planned, self._planned = self._planned, False
        if not planned:
            return False
        if deliver is not None:
            deliver(ACT_FOLLOW_UP)
        else:
            self._carry_out_plan()
        return True

    def _carry_out_plan(self) -> None:
        """Deliver ``ACT_FOLLOW_UP``: queued while a run goes on, else a new run."""
        if self.is_running:
            self.agent.follow_up(ACT_FOLLOW_UP)
        else:
            self.prompt(ACT_FOLLOW_UP)

    def _mode_before_run(self) -> None:
        """At the start of each run: the tool list and prompt follow the mode as it is now
        (tools added since are filtered too)."""
        self._apply_mode()
        if self._mode == "plan":
            self._planned = True

    def _apply_mode(self) -> None:
        state = self.agent.state
        if self._mode == "plan":
            if self._act_tools is None:
                self._act_tools = list(state.tools)
            else:  # others changed the list while planning (MCP tools each run): follow them
                self._act_tools = _merged(self._act_tools, state.tools)
            state.tools = plan_mode_tools(self._act_tools)
            if not state.system_prompt.endswith(PLAN_MODE_PROMPT):
                self._base_prompt = state.system_prompt
                state.system_prompt = f"{state.system_prompt}\n\n{PLAN_MODE_PROMPT}"
            return
        if self._act_tools is not None:
            state.tools, self._act_tools = _merged(self._act_tools, state.tools), None
        if self._base_prompt is not None and state.system_prompt.endswith(PLAN_MODE_PROMPT):
            state.system_prompt = self._base_prompt
        self._base_prompt = None

    def set_system_prompt(self, text: str) -> None:
        """The session's base system prompt from the next model call on (its resources were
        reloaded); plan mode's text is added to it again while planning."""
        self.agent.state.system_prompt = text
        self._base_prompt = None
        self._apply_mode()

    def add_session_tools(self, *, ask: bool = True, extra: Sequence[AgentTool[Any]] = ()) -> None:
        """Give the agent the ``todo`` tool (and ``ask``, and ``extra``: the ``task`` tool)
        bound to this session."""
        tools: list[AgentTool[Any]] = [TodoTool(self)]
        if ask:
            tools.append(AskTool(self))
        tools.extend(extra)
        names = {t.name for t in tools}
        state = self.agent.state
        state.tools = [t for t in state.tools if t.name not in names] + tools
        if self._act_tools is not None:  # planning: the act list gets them too
            self._act_tools = [t for t in self._act_tools if t.name not in names] + tools
        self._apply_mode()

    def _guard_tool_calls(self) -> None:
        """Put a plan-mode check in front of the agent's ``before_tool_call`` (the front
        end's permission prompt): a run that started in act mode and was switched to plan
        mode cannot write either — its tool list was fixed when it started."""
        inner = self.agent.before_tool_call

        async def guarded(
            ctx: BeforeToolCallContext, signal: AbortSignal | None
        ) -> BeforeToolCallResult | None:
            if self._mode == "plan":
                reason = _plan_mode_block(ctx)
                if reason is not None:
                    return BeforeToolCallResult(block=True, reason=reason)
            if inner is None:
                return None
            result = inner(ctx, signal)
            if isawaitable(result):
                result = await result
            return result

        self.agent.before_tool_call = guarded
        self.agent.missing_tool_text = self._missing_tool_text

    def _missing_tool_text(self, name: str) -> str | None:
        """A call to a tool plan mode took out of the list (write, edit, an MCP tool that is
        not read-only) is told why, not pi's bare "Tool write not found"."""
        if self._mode != "plan" or self._act_tools is None:
            return None
        if not any(t.name == name for t in self._act_tools):
            return None
        return (
            f"Not run: this session is in plan mode, where {name} is not available (plan "
            "mode has only tools that cannot change files). Describe the change in your plan "
            "instead; the user switches to act mode to carry it out."
        )

    # ------------------------------------------------------------------ todo

    @property
    def todos(self) -> list[TodoItem]:
        return list(self._todos)

    def set_todos(self, items: list[TodoItem]) -> None:
        """The ``todo`` tool's whole new list: stored, then told as ``todo_update``."""
        self._todos = list(items)
        data = {"items": [item.model_dump() for item in items]}
        self._record(self._tree.append_custom, TODO_ENTRY_TYPE, data)
        self._notify(TodoUpdateEvent(list(items)))

    # ------------------------------------------------------------------ ask

    async def ask(
        self, tool_call_id: str, params: AskParams, signal: AbortSignal | None
    ) -> AskAnswer | None:
        handler = self.ask_handler
        if handler is None:
            raise ToolError(NO_ASKER)
        return await handler(tool_call_id, params, signal)


def _plan_mode_block(ctx: BeforeToolCallContext) -> str | None:
    """Why plan mode refuses this call (``None``: it may run)."""
    name = ctx.tool_call.name
    tool = next((t for t in ctx.context.tools if t.name == name), None)
    if isinstance(tool, BashTool):
        return plan_refusal(str(getattr(ctx.args, "command", "")))
    if tool is not None and is_read_only(tool):
        return None
    return (
        f"Not run: the session was switched to plan mode, where {name} is not available. "
        "Describe the change in your plan instead; the user switches to act mode to carry it out."
    )


def _merged(act: list[AgentTool[Any]], shown: list[AgentTool[Any]]) -> list[AgentTool[Any]]:
    """The act-mode list after others changed the plan-mode list ``shown``: a tool plan mode
    shows stays only if it is still shown, a hidden one (write, edit, …) stays, tools added
    since join; one tool per name (the newest)."""
    views = PlanModeBashTool | ReadOnlyLspTool  # plan mode's views of an act-mode tool
    visible = {id(t.inner) if isinstance(t, views) else id(t) for t in shown}
    kept = [t for t in act if id(t) in visible or not plan_mode_tools([t])]
    known = {id(t) for t in kept}
    added = [t for t in shown if not isinstance(t, views) and id(t) not in known]
    tools = [*kept, *added]
    last = {t.name: i for i, t in enumerate(tools)}
    return [t for i, t in enumerate(tools) if last[t.name] == i]
