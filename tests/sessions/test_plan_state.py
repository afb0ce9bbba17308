"""A session's mode, todo list and questions over a real Agent, the real coding tools and the
faux provider: plan mode's tool list and refusals, the follow-up on switching to act, the
todo list in the session file across resume, and ask through the front end's handler."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.agent import Agent
from pi_lsp.ai import AbortSignal
from pi_lsp.ai.providers.faux import FAUX_MODEL, FauxProvider, FauxResponse
from pi_lsp.sessions import SessionStore
from pi_lsp.sessions.agent_session import AgentSession
from pi_lsp.tools import DiskWorkspace, build_system_prompt, create_coding_tools
from pi_lsp.tools.ask import DISMISSED, AskAnswer, AskParams
from pi_lsp.tools.plan_mode import ACT_FOLLOW_UP, PLAN_MODE_PROMPT


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("original\n")
    return ws


@pytest.fixture
def store(tmp_path: Path, root: Path) -> SessionStore:
    return SessionStore(tmp_path / "sessions", root)


def make(
    faux: FauxProvider, root: Path, store: SessionStore, session_id: str | None = None
) -> tuple[AgentSession, list[Any]]:
    ws = DiskWorkspace([root])
    tools = create_coding_tools(ws)
    agent = Agent(
        model=FAUX_MODEL,
        tools=tools,
        stream_fn=faux.stream,
        system_prompt=build_system_prompt(ws, tools),
    )
    if session_id is None:
        session = AgentSession(agent, store.create())
    else:
        session = AgentSession.resume(agent, store.open(session_id))
    session.add_session_tools()
    events: list[Any] = []
    session.subscribe(events.append)
    return session, events


def tool_ends(events: list[Any]) -> list[tuple[str, bool, str]]:
    return [
        (e.tool_name, e.is_error, e.result.content[0].text)
        for e in events
        if e.type == "tool_execution_end"
    ]


async def test_plan_mode_tool_list_and_refusals(root: Path, store: SessionStore) -> None:
    faux = FauxProvider(
        [
            FauxResponse.tool_calls(
                ("write", {"path": "a.txt", "content": "overwritten"}),
                ("edit", {"path": "a.txt", "edits": [{"oldText": "original", "newText": "x"}]}),
                ("bash", {"command": "cat a.txt && rm a.txt"}),
                ("bash", {"command": "grep -c original a.txt"}),
            ),
            FauxResponse.text("Plan: 1. change a.txt"),
        ]
    )
    session, events = make(faux, root, store)
    assert session.mode == "act"
    assert session.set_mode("plan") is False
    await session.prompt("plan the change")
    sent = faux.calls[0]
    assert [t.name for t in sent.tools or []] == [
        "read",
        "bash",
        "grep",
        "find",
        "ls",
        "bash_output",
        "todo",
        "ask",
    ]
    assert sent.system_prompt is not None
    assert sent.system_prompt.endswith(PLAN_MODE_PROMPT)
    ends = tool_ends(events)  # write and edit are not in the list, and the model is told why
    assert ends[0][:2] == ("write", True)
    assert "plan mode, where write is not available" in ends[0][2]
    assert ends[1][:2] == ("edit", True)
    assert "plan mode, where edit is not available" in ends[1][2]
    assert ends[2][0:2] == ("bash", True)
    assert "plan mode" in ends[2][2]
    assert "rm is not on the read-only list" in ends[2][2]
    assert ends[3][0:2] == ("bash", False)
    assert ends[3][2].strip() == "1"
    assert (root / "a.txt").read_text() == "original\n"


async def test_switching_to_act_delivers_the_follow_up_and_restores_the_tools(
    root: Path, store: SessionStore
) -> None:
    faux = FauxProvider([FauxResponse.text("1. edit a.txt"), FauxResponse.text("Done.")])
    session, events = make(faux, root, store)
    session.set_mode("plan")
    await session.prompt("plan it")
    assert session.set_mode("act") is True
    await session.wait_for_idle()
    second = faux.calls[1]
    assert [t.name for t in second.tools or []] == [
        *("read", "bash", "edit", "write", "grep", "find", "ls"),
        *("bash_output", "bash_kill", "todo", "ask"),
    ]
    assert second.system_prompt is not None
    assert PLAN_MODE_PROMPT not in second.system_prompt
    last_user = second.messages[-1]
    assert last_user.role == "user"
    assert last_user.content[0].text == ACT_FOLLOW_UP
    assert [e.mode for e in events if e.type == "mode_update"] == ["plan", "act"]
    # a second switch without a run in plan delivers nothing
    session.set_mode("plan")
    assert session.set_mode("act") is False


async def test_mode_and_todo_survive_resume_and_are_told_as_events(
    root: Path, store: SessionStore
) -> None:
    todos = [
        {"id": "1", "content": "Read", "status": "completed"},
        {"id": "2", "content": "Write", "status": "in_progress"},
    ]
    faux = FauxProvider(
        [FauxResponse.tool_calls(("todo", {"todos": todos})), FauxResponse.text("ok")]
    )
    session, events = make(faux, root, store)
    session.set_mode("plan")
    await session.prompt("go")
    updates = [e for e in events if e.type == "todo_update"]
    assert [[i.model_dump() for i in u.items] for u in updates] == [todos]
    ends = [e for e in events if e.type == "tool_execution_end"]
    # the list is told before the tool's end event
    assert events.index(updates[0]) < events.index(ends[0])
    session_id = session.session_id
    session.close()

    resumed, _ = make(FauxProvider([]), root, store, session_id)
    assert resumed.mode == "plan"
    assert [i.model_dump() for i in resumed.todos] == todos
    assert "write" not in [t.name for t in resumed.agent.state.tools]
    assert resumed.file is not None
    kinds = [json.loads(x).get("customType") for x in resumed.file.path.read_text().splitlines()]
    assert "pi-lsp.todo" in kinds
    assert "pi-lsp.mode" in kinds


async def test_default_mode_applies_to_new_sessions_only(root: Path, store: SessionStore) -> None:
    session, _ = make(FauxProvider([FauxResponse.text("ok")]), root, store)
    session.set_default_mode("plan")
    assert session.mode == "plan"
    session.set_mode("act")
    await session.prompt("hi")
    session_id = session.session_id
    session.close()
    resumed, _ = make(FauxProvider([]), root, store, session_id)
    resumed.set_default_mode("plan")
    assert resumed.mode == "act"


QUESTION = {"question": "Which?", "options": [{"label": "A"}, {"label": "B"}]}


async def test_ask_goes_to_the_front_end_handler(root: Path, store: SessionStore) -> None:
    faux = FauxProvider([FauxResponse.tool_calls(("ask", QUESTION)), FauxResponse.text("ok")])
    session, events = make(faux, root, store)
    asked: list[tuple[str, AskParams]] = []

    async def handler(call_id: str, params: AskParams, signal: AbortSignal | None) -> AskAnswer:
        asked.append((call_id, params))
        return AskAnswer(("B",))

    session.ask_handler = handler
    await session.prompt("ask me")
    assert asked[0][1].question == "Which?"
    assert tool_ends(events) == [("ask", False, 'The user chose "B".')]


async def test_ask_dismissed_and_without_a_handler(root: Path, store: SessionStore) -> None:
    faux = FauxProvider(
        [
            FauxResponse.tool_calls(("ask", QUESTION)),
            FauxResponse.text("ok"),
            FauxResponse.tool_calls(("ask", QUESTION)),
            FauxResponse.text("ok"),
        ]
    )
    session, events = make(faux, root, store)
    await session.prompt("ask me")  # no handler
    assert tool_ends(events)[0][1] is True
    assert "cannot put questions" in tool_ends(events)[0][2]

    async def dismiss(*_: Any) -> None:
        return None

    session.ask_handler = dismiss
    await session.prompt("again")
    assert tool_ends(events)[1] == ("ask", True, DISMISSED)


async def test_abort_while_asking_ends_the_run(root: Path, store: SessionStore) -> None:
    faux = FauxProvider([FauxResponse.tool_calls(("ask", QUESTION))])
    session, events = make(faux, root, store)
    waiting = asyncio.Event()

    async def handler(call_id: str, params: AskParams, signal: AbortSignal | None) -> None:
        waiting.set()
        assert signal is not None
        await signal.wait()
        return None

    session.ask_handler = handler
    task = session.prompt("ask")
    await waiting.wait()
    session.abort()
    await task
    assert tool_ends(events)[0][1] is True


async def test_switching_to_plan_during_a_run_blocks_its_next_writes(
    root: Path, store: SessionStore
) -> None:
    faux = FauxProvider(
        [
            FauxResponse.tool_calls(("ask", QUESTION)),
            FauxResponse.tool_calls(
                ("write", {"path": "a.txt", "content": "overwritten"}),
                ("bash", {"command": "rm a.txt"}),
                ("read", {"path": "a.txt"}),
            ),
            FauxResponse.text("ok"),
        ]
    )
    session, events = make(faux, root, store)

    async def switch_while_asked(*_: Any) -> AskAnswer:
        session.set_mode("plan")  # the user switches while the run goes on
        return AskAnswer(("A",))

    session.ask_handler = switch_while_asked
    await session.prompt("go")
    ends = tool_ends(events)
    assert [(name, error) for name, error, _ in ends] == [
        ("ask", False),
        ("write", True),
        ("bash", True),
        ("read", False),
    ]
    assert "switched to plan mode" in ends[1][2]
    assert "plan mode" in ends[2][2]
    assert (root / "a.txt").read_text() == "original\n"


async def test_tools_a_before_run_hook_adds_obey_plan_mode(root: Path, store: SessionStore) -> None:
    """The MCP toolset replaces its tools in the agent before every run: in plan mode only
    the read-only ones reach the model, and switching back gives the current ones, once."""
    from pi_lsp.tools.todo import TodoTool

    class Reads(TodoTool):
        name = "mcp__db__query"

    class Writes(TodoTool):
        name = "mcp__db__drop"
        read_only = False

    faux = FauxProvider([FauxResponse.text("1"), FauxResponse.text("2"), FauxResponse.text("3")])
    session, _ = make(faux, root, store)
    generation: list[int] = [0]

    async def before_run() -> None:  # what mcp/toolset does: drop the old ones, add new ones
        generation[0] += 1
        state = session.agent.state
        kept = [t for t in state.tools if not t.name.startswith("mcp__")]
        state.tools = [*kept, Reads(session), Writes(session)]

    session.before_run = before_run
    session.set_mode("plan")
    await session.prompt("one")
    await session.prompt("two")
    names = [t.name for t in faux.calls[1].tools or []]
    assert names.count("mcp__db__query") == 1
    assert "mcp__db__drop" not in names
    assert "write" not in names
    session.set_mode("act", deliver=lambda _: None)
    await session.prompt("three")
    names = [t.name for t in faux.calls[2].tools or []]
    assert names.count("mcp__db__query") == 1
    assert names.count("mcp__db__drop") == 1
    assert "write" in names
