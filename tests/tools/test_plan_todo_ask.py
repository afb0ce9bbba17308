"""The plan-mode tool list, the todo tool and the ask tool, against a real workspace."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from pi_lsp.ai import AbortSignal
from pi_lsp.tools import DiskWorkspace, ToolError, create_coding_tools
from pi_lsp.tools.ask import DISMISSED, AskAnswer, AskParams, AskTool
from pi_lsp.tools.bash import BashTool
from pi_lsp.tools.plan_mode import PlanModeBashTool, plan_mode_tools
from pi_lsp.tools.todo import TodoItem, TodoTool

from .conftest import call, text


def test_plan_mode_keeps_only_read_only_tools_and_a_guarded_bash(ws: DiskWorkspace) -> None:
    tools = [*create_coding_tools(ws), TodoTool(_Board()), AskTool(_Asker(None))]
    planned = plan_mode_tools(tools)
    assert [t.name for t in planned] == [
        *("read", "bash", "grep", "find", "ls", "bash_output", "todo", "ask")
    ]
    bash = planned[1]
    assert isinstance(bash, PlanModeBashTool)
    assert isinstance(bash.inner, BashTool)
    assert "PLAN MODE" in bash.to_tool().description
    assert "PLAN MODE" not in tools[1].to_tool().description
    assert plan_mode_tools(planned) == planned  # idempotent: no bash wrapped twice


def test_plan_mode_drops_tools_not_marked_read_only(ws: DiskWorkspace) -> None:
    class Writes(TodoTool):
        name = "mcp__db__drop"
        read_only = False

    class Reads(TodoTool):
        name = "mcp__db__query"

    names = [t.name for t in plan_mode_tools([Writes(_Board()), Reads(_Board())])]
    assert names == ["mcp__db__query"]


async def test_plan_mode_bash_refuses_before_running_and_runs_reads(
    ws: DiskWorkspace, root: Path
) -> None:
    (root / "a.txt").write_text("hello\n")
    (bash,) = [t for t in plan_mode_tools(create_coding_tools(ws)) if t.name == "bash"]
    with pytest.raises(ToolError, match=r"plan mode.*rm is not on the read-only list"):
        await call(bash, {"command": "cat a.txt && rm a.txt"})
    with pytest.raises(ToolError, match="redirection to a file"):
        await call(bash, {"command": "echo x > b.txt"})
    assert (root / "a.txt").exists()
    assert not (root / "b.txt").exists()
    assert text(await call(bash, {"command": "cat a.txt | wc -l"})).strip() == "1"


def test_plan_mode_bash_shares_the_inner_options(ws: DiskWorkspace) -> None:
    inner = BashTool(ws)
    wrapped = PlanModeBashTool(inner)
    wrapped.options = replace(wrapped.options, env_allow=frozenset({"X"}))
    assert inner.options.env_allow == frozenset({"X"})


class _Board:
    def __init__(self) -> None:
        self.lists: list[list[TodoItem]] = []

    def set_todos(self, items: list[TodoItem]) -> None:
        self.lists.append(items)


async def test_todo_replaces_the_whole_list() -> None:
    board = _Board()
    tool = TodoTool(board)
    items = [
        {"id": "1", "content": "Read the parser", "status": "completed"},
        {"id": "2", "content": "Fix the bug", "status": "in_progress"},
        {"id": "3", "content": "Add a test", "status": "pending"},
    ]
    result = await call(tool, {"todos": items})
    assert text(result) == (
        "Todo list updated (1/3 completed):\n[x] Read the parser\n[~] Fix the bug\n[ ] Add a test"
    )
    assert result.details == {"todos": items}
    assert [i.status for i in board.lists[-1]] == ["completed", "in_progress", "pending"]
    assert text(await call(tool, {"todos": []})) == "Todo list cleared."
    assert board.lists[-1] == []


@pytest.mark.parametrize(
    ("todos", "error"),
    [
        (
            [
                {"id": "1", "content": "a", "status": "in_progress"},
                {"id": "2", "content": "b", "status": "in_progress"},
            ],
            "At most one todo may be in_progress",
        ),
        (
            [
                {"id": "1", "content": "a", "status": "pending"},
                {"id": "1", "content": "b", "status": "pending"},
            ],
            "ids must be unique; repeated: 1",
        ),
    ],
)
async def test_todo_refuses_bad_lists(todos: list[dict[str, str]], error: str) -> None:
    board = _Board()
    with pytest.raises(ToolError, match=error):
        await call(TodoTool(board), {"todos": todos})
    assert board.lists == []


def test_todo_status_is_checked() -> None:
    with pytest.raises(ValidationError):
        TodoTool.parameters.model_validate(
            {"todos": [{"id": "1", "content": "a", "status": "done"}]}
        )


class _Asker:
    def __init__(self, answer: AskAnswer | None) -> None:
        self.answer = answer
        self.asked: list[AskParams] = []

    async def ask(
        self, tool_call_id: str, params: AskParams, signal: AbortSignal | None
    ) -> AskAnswer | None:
        self.asked.append(params)
        return self.answer


QUESTION: dict[str, Any] = {
    "question": "Which database?",
    "options": [{"label": "SQLite", "description": "one file"}, {"label": "Postgres"}],
}


async def test_ask_returns_the_answer_as_the_result() -> None:
    asker = _Asker(AskAnswer(("Postgres",), "version 16 please"))
    result = await call(AskTool(asker), {**QUESTION, "allowFreeText": True})
    assert text(result) == 'The user chose "Postgres".\nThe user wrote: version 16 please'
    assert asker.asked[0].allow_free_text
    assert not asker.asked[0].multi_select
    assert result.details == {"answers": ["Postgres"], "text": "version 16 please"}


async def test_ask_says_when_free_text_was_unavailable() -> None:
    asker = _Asker(AskAnswer(("SQLite",), free_text_unavailable=True))
    result = await call(AskTool(asker), {**QUESTION, "allowFreeText": True})
    assert "could only offer the listed choices" in text(result)


async def test_a_dismissed_question_is_an_error_result() -> None:
    with pytest.raises(ToolError) as info:
        await call(AskTool(_Asker(None)), QUESTION)
    assert str(info.value) == DISMISSED


async def test_single_select_keeps_one_label_and_unknown_labels_become_text() -> None:
    asker = _Asker(AskAnswer(("SQLite", "Postgres", "MySQL")))
    result = await call(AskTool(asker), QUESTION)
    assert result.details == {"answers": ["SQLite"], "text": "MySQL"}


@pytest.mark.parametrize(
    "options",
    [
        [{"label": "only one"}],
        [{"label": str(i)} for i in range(7)],
        [{"label": "same"}, {"label": "same"}],
    ],
)
def test_ask_options_are_validated(options: list[dict[str, str]]) -> None:
    with pytest.raises(ValidationError):
        AskTool.parameters.model_validate({"question": "q?", "options": options})


def test_ask_schema_uses_camel_case() -> None:
    schema = AskTool(_Asker(None)).to_tool().parameters
    assert set(schema["properties"]) == {"question", "options", "allowFreeText", "multiSelect"}
    assert schema["properties"]["options"]["minItems"] == 2


def test_plan_mode_keeps_mcp_tools_annotated_read_only() -> None:
    from types import SimpleNamespace

    from pi_lsp.mcp.server import ListedTool
    from pi_lsp.mcp.tools import make_tool

    server: Any = SimpleNamespace(name="db")
    reads = make_tool(
        server, ListedTool("query", "Run a query", {}, read_only=True), "mcp__db__query"
    )
    writes = make_tool(
        server, ListedTool("drop", "Drop a table", {}, read_only=False), "mcp__db__drop"
    )
    assert [t.name for t in plan_mode_tools([reads, writes])] == ["mcp__db__query"]
