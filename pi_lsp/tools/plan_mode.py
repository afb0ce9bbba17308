"""Plan mode's tool list: what the model keeps when the session plans (docs/tools.md#plan-mode).

``plan_mode_tools(tools)`` keeps the tools marked ``read_only`` (read, grep, find, ls, todo,
ask, MCP tools annotated read-only) and ``bash`` wrapped in ``PlanModeBashTool``, which
refuses — before any permission prompt — every command ``security.read_only_commands``
cannot prove read-only. ``write``, ``edit`` and every other tool are simply absent, so the
restriction does not depend on the model obeying the prompt. Must not import above tools/.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from ..agent.types import AgentTool
from ..security.plan_git import GIT_GUARD, git_environment
from ..security.read_only_commands import check_read_only
from .bash import BashOptions, BashTool
from .common import ToolError
from .lsp import LspTool
from .workspace import Workspace

PLAN_MODE_PROMPT = (
    "The session is in PLAN MODE. You cannot change anything: the write and edit tools are "
    "not available, and bash runs only read-only commands (ls, cat, head, tail, wc, grep, rg, "
    "find without -exec/-delete, git status/log/diff/show/blame, …; every part of a "
    "compound command must qualify, and nothing may be redirected to a file). Investigate "
    "with read, grep, find, ls and those commands, ask the user where a decision is theirs, "
    "then write a concise, numbered plan of the changes you would make (files, functions, "
    "tests) and keep it in the todo list. Do not try to work around plan mode. The user "
    "switches to act mode when the plan is approved."
)

ACT_FOLLOW_UP = (
    "The user approved your plan and switched the session to act mode: the write and edit "
    "tools are available again and bash runs any command. Carry out the plan now, step by "
    "step, keeping the todo list up to date."
)


def is_read_only(tool: AgentTool[Any]) -> bool:
    """Whether plan mode keeps ``tool`` as it is (its ``read_only`` attribute is true)."""
    return getattr(tool, "read_only", False) is True


def plan_refusal(command: str) -> str | None:
    """The error text for a command plan mode does not run (``None``: it may run)."""
    verdict = check_read_only(command)
    if verdict.allowed:
        return None
    return (
        f"Not run: the session is in plan mode, where bash runs only commands proven "
        f"read-only, and {verdict.reason}. Use read, grep, find or ls, or a read-only "
        "command (ls, cat, head, tail, wc, grep, rg, find without -exec/-delete, git "
        "status/log/diff/show/blame), and put the change in your plan instead: the user "
        "switches to act mode to carry it out."
    )


class PlanModeBashTool(BashTool):
    """``bash`` in plan mode: the same tool (options, process registry) with a check first.

    The check runs in ``prepare_arguments``, before validation and before the front end's
    permission prompt, so the user is never asked about a command that will not run. The
    command runs with git's configured programs switched off (``security.plan_git``)."""

    description: ClassVar[str] = (
        BashTool.description + " PLAN MODE: only read-only commands run (ls, cat, head, tail, "
        "wc, grep, rg, find without -exec/-delete, git status/log/diff/show/blame, …)."
    )
    prompt_snippet: ClassVar[str] = "Run read-only bash commands (plan mode)"

    def __init__(self, inner: BashTool):  # no super().__init__: state lives in ``inner``
        self.inner = inner

    @property
    def workspace(self) -> Workspace:
        return self.inner.workspace

    @workspace.setter
    def workspace(self, value: Workspace) -> None:
        self.inner.workspace = value

    @property
    def options(self) -> BashOptions:
        return self.inner.options

    @options.setter
    def options(self, value: BashOptions) -> None:
        self.inner.options = value

    def environment(self) -> dict[str, str]:
        return git_environment(self.inner.environment())

    async def argv(self, command: str, cwd: Path) -> list[str]:
        return await self.inner.argv(GIT_GUARD + command, cwd)

    def prepare_arguments(self, args: Any) -> Any:
        args = self.inner.prepare_arguments(args)
        command = args.get("command") if isinstance(args, dict) else None
        if isinstance(command, str):
            refusal = plan_refusal(command)
            if refusal is not None:
                raise ToolError(refusal)
        return args


def plan_mode_tools(tools: Sequence[AgentTool[Any]]) -> list[AgentTool[Any]]:
    """The tools of a session in plan mode (see the module docstring); idempotent."""
    kept: list[AgentTool[Any]] = []
    for tool in tools:
        if isinstance(tool, PlanModeBashTool) or is_read_only(tool):
            kept.append(tool)
        elif isinstance(tool, LspTool):  # every operation but rename
            kept.append(tool.read_only_view())
        elif isinstance(tool, BashTool):
            kept.append(PlanModeBashTool(tool))
    return kept
