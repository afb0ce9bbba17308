"""The ``todo`` tool: the model keeps a visible checklist of its work
(docs/tools.md#todo-todos-id-content-status).

The model writes the whole list each time (``{todos: [{id, content, status}]}``); at most one
item is ``in_progress`` and ids are unique. The list goes to a ``TodoBoard`` the front end's
session supplies (it stores it in the session file and tells the clients), as the other tools
go to their ``Workspace``. Must not import anything above tools/.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ..agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from ..ai import AbortSignal
from .common import ToolError, ToolParams, text_result

TodoStatus = Literal["pending", "in_progress", "completed"]
_MARKS: dict[str, str] = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}


class TodoItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str = Field(min_length=1, description="Stable id of the item (e.g. '1', '2')")
    content: str = Field(min_length=1, description="What to do, one short imperative line")
    status: TodoStatus = Field(description="pending, in_progress (at most one) or completed")


class TodoParams(ToolParams):
    todos: list[TodoItem] = Field(description="The whole list, in order (replaces the old one)")


class TodoBoard(Protocol):
    """Where the list lives (the session): keeps it and tells whoever shows it."""

    def set_todos(self, items: list[TodoItem]) -> None: ...


def check_todos(items: list[TodoItem]) -> None:
    """Raise ``ToolError`` unless ids are unique and at most one item is in progress."""
    ids = [item.id for item in items]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ToolError(f"Todo ids must be unique; repeated: {', '.join(duplicates)}")
    active = [item.id for item in items if item.status == "in_progress"]
    if len(active) > 1:
        raise ToolError(
            f"At most one todo may be in_progress (got {', '.join(active)}): finish one "
            "(completed) before starting the next."
        )


def render_todos(items: list[TodoItem]) -> str:
    """The list as a plain checklist: ``[x] done``, ``[~] doing``, ``[ ] to do``."""
    return "\n".join(f"{_MARKS[item.status]} {item.content}" for item in items)


def todos_wire(items: list[TodoItem]) -> list[dict[str, Any]]:
    return [item.model_dump() for item in items]


class TodoTool(AgentTool[TodoParams]):
    name: ClassVar[str] = "todo"
    label: ClassVar[str] = "todo"
    description: ClassVar[str] = (
        "Keep a short todo list the user sees while you work. Send the WHOLE list every time "
        "(it replaces the previous one); each item has an id, a one-line content and a status "
        "(pending, in_progress, completed). Use it for multi-step work (three or more steps, "
        "or when the user gives several tasks): write the list before you start, mark exactly "
        "one item in_progress while you work on it, and mark it completed as soon as it is "
        "done. Do not use it for a single quick step, for a one-line answer or for purely "
        "conversational replies."
    )
    parameters: ClassVar[type[TodoParams]] = TodoParams
    read_only: ClassVar[bool] = True
    prompt_snippet: ClassVar[str] = "Keep the user's visible todo list of multi-step work"
    prompt_guidelines: ClassVar[tuple[str, ...]] = (
        "Use todo for multi-step tasks, keeping one item in_progress; skip it for simple ones",
    )

    def __init__(self, board: TodoBoard):
        self.board = board

    async def execute(
        self,
        tool_call_id: str,
        params: TodoParams,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        items = list(params.todos)
        check_todos(items)
        self.board.set_todos(items)
        if not items:
            return text_result("Todo list cleared.", {"todos": []})
        done = sum(item.status == "completed" for item in items)
        text = f"Todo list updated ({done}/{len(items)} completed):\n{render_todos(items)}"
        return text_result(text, {"todos": todos_wire(items)})
