"""Building the coding tool set for a workspace (``create_coding_tools``).

Owns the tool names, their default order (read, bash, edit, write, grep, find, ls,
bash_output, bash_kill) and the
wiring of each tool to the workspace and the bash options. Must not import anything above
tools/.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..agent.types import AgentTool
from .bash import BashOptions, BashTool
from .bash_jobs import BashKillTool, BashOutputTool
from .edit import EditTool
from .find import FindTool
from .grep import GrepTool
from .grep_search import Backend
from .ls import LsTool
from .lsp import LspTool
from .read import ReadTool
from .read_areas import ReadAreas, with_read_areas
from .workspace import Workspace
from .write import WriteTool

ALL_TOOL_NAMES: tuple[str, ...] = (
    "read",
    "bash",
    "edit",
    "write",
    "grep",
    "find",
    "ls",
    "bash_output",
    "bash_kill",
)
READ_ONLY_TOOL_NAMES: tuple[str, ...] = ("read", "grep", "find", "ls")


def create_coding_tools(
    workspace: Workspace,
    *,
    bash: BashOptions | None = None,
    names: Sequence[str] | None = None,
    grep_backend: Backend = "auto",
    read_areas: ReadAreas | None = None,
) -> list[AgentTool[Any]]:
    """The coding tools over ``workspace``: all nine by default (the seven of Pi, then
    ``bash_output`` and ``bash_kill``, which share the bash tool's background processes),
    else ``names`` in the order given. Raises ``ValueError`` for an unknown name.
    ``read_areas``: directories outside the workspace that ``read``/``grep``/``find``/``ls``
    may read (the session's skills)."""
    bash_options = bash or BashOptions()
    reader = with_read_areas(workspace, read_areas)
    makers: dict[str, Callable[[], AgentTool[Any]]] = {
        "read": lambda: ReadTool(reader),
        "bash": lambda: BashTool(workspace, bash_options),
        "edit": lambda: EditTool(workspace),
        "write": lambda: WriteTool(workspace),
        "grep": lambda: GrepTool(reader, backend=grep_backend),
        "find": lambda: FindTool(reader),
        "ls": lambda: LsTool(reader),
        "bash_output": lambda: BashOutputTool(bash_options.jobs),
        "bash_kill": lambda: BashKillTool(bash_options.jobs),
    }
    wanted = list(ALL_TOOL_NAMES if names is None else names)
    unknown = [n for n in wanted if n not in makers]
    if unknown:
        raise ValueError(
            f"Unknown tool name(s): {', '.join(unknown)}. Available: {', '.join(ALL_TOOL_NAMES)}"
        )
    seen: set[str] = set()
    tools: list[AgentTool[Any]] = []
    for name in wanted:
        if name not in seen:
            seen.add(name)
            tools.append(makers[name]())
    return tools


def bind_session(tools: Sequence[AgentTool[Any]], session_id: str) -> None:
    """Tell the tools that change files which session calls them (their ``ToolCallContext``
    names it, for review hunks and checkpoints)."""
    for tool in tools:
        if isinstance(tool, EditTool | WriteTool | LspTool):
            tool.session_id = session_id
