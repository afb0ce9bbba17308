"""Issue 28 over ACP: the todo list as ``plan`` updates (live and on ``session/load``), plan/act
as the ``mode`` config option (plan mode's tool list, the carry-out follow-up on switching to
act: inside the next ``session/prompt``, under both client profiles), and the ``ask`` tool
through ``session/request_permission`` (a client without elicitation) and
``elicitation/create`` (a client advertising form elicitation). The agent is served in the
test's process against the scripted model server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from acp.schema import (
    AcceptElicitationResponse,
    ClientCapabilities,
    DeclineElicitationResponse,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
)

from pi_lsp.tools.ask import DISMISSED
from pi_lsp.tools.plan_mode import ACT_FOLLOW_UP, PLAN_MODE_PROMPT
from tests.lsp.openai_sse import response, text_events, tool_events
from tests.support.http_server import ScriptedHTTPServer

from .harness import Profile, Recorder, in_process

pytestmark = pytest.mark.timeout(90)

TODOS = [
    {"id": "1", "content": "Read the parser", "status": "completed"},
    {"id": "2", "content": "Fix the bug", "status": "in_progress"},
    {"id": "3", "content": "Add a test", "status": "pending"},
]
QUESTION = {
    "question": "Which database?",
    "options": [
        {"label": "SQLite", "description": "a file, no server"},
        {"label": "Postgres"},
    ],
    "allowFreeText": True,
}


def _option(options: list[Any], option_id: str) -> Any:
    return next(getattr(o, "root", o) for o in options if getattr(o, "root", o).id == option_id)


def _result_text(updates: list[Any]) -> tuple[str | None, str]:
    """The final status of a tool call and its content's text."""
    status = [u.status for u in updates if u.status is not None][-1]
    content = [u.content for u in updates if u.content][-1]
    return status, "".join(getattr(c.content, "text", "") for c in content)


def _tool_result(request_json: Any) -> str:
    """The text of the last tool message the model was sent."""
    tool = [m for m in request_json["messages"] if m["role"] == "tool"][-1]
    content = tool["content"]
    return content if isinstance(content, str) else json.dumps(content)


async def test_todo_updates_are_plan_updates_live_and_on_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    later = [{**item, "status": "completed"} for item in TODOS]
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(tool_events([("todo", {"todos": TODOS})])))
        srv.enqueue(response(tool_events([("todo", {"todos": later})])))
        srv.enqueue(response(text_events("All done.")))
        async with in_process(tmp_path, srv.url, monkeypatch, "--yes") as agent:
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "fix it") == "end_turn"
            plans = agent.client.of("plan", sid)
        assert [[(e.content, e.status, e.priority) for e in p.entries] for p in plans] == [
            [(t["content"], t["status"], "medium") for t in TODOS],
            [(t["content"], "completed", "medium") for t in TODOS],
        ]

        async with in_process(tmp_path, srv.url, monkeypatch) as again:
            await again.init()
            await again.conn.load_session(cwd=str(agent.cwd), session_id=sid, mcp_servers=[])
            order = again.validator.updates_then_response("session/load")
            assert "update:plan" in order
            assert order.index("update:plan") < order.index("response")
            (replayed,) = again.client.of("plan", sid)
            assert [(e.content, e.status) for e in replayed.entries] == [
                (t["content"], "completed") for t in TODOS
            ]


async def test_a_session_without_todos_sends_no_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("Hi.")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "hello") == "end_turn"
            assert agent.client.of("plan", sid) == []


async def test_plan_mode_option_hides_write_and_act_carries_out_the_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(tool_events([("write", {"path": "x.txt", "content": "no\n"})])))
        srv.enqueue(response(text_events("Plan: write x.txt.")))
        srv.enqueue(response(text_events("Carrying it out.")))
        async with in_process(tmp_path, srv.url, monkeypatch, "--yes") as agent:
            await agent.init()
            res = await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[])
            sid = res.session_id
            mode = _option(res.config_options, "mode")
            assert (mode.current_value, mode.category) == ("act", "mode")
            assert [o.value for o in mode.options] == ["act", "plan"]

            changed = await agent.conn.set_config_option(
                config_id="mode", session_id=sid, value="plan"
            )
            assert _option(changed.config_options, "mode").current_value == "plan"
            await agent.client.wait_for(
                lambda: any(
                    _option(u.config_options, "mode").current_value == "plan"
                    for u in agent.client.of("config_option_update", sid)
                )
            )
            assert await agent.prompt(sid, "plan it") == "end_turn"
            assert not (agent.cwd / "x.txt").exists()
            first = srv.requests[0].json
            assert "write" not in [t["function"]["name"] for t in first["tools"]]
            assert PLAN_MODE_PROMPT in first["messages"][0]["content"]
            assert "plan mode, where write is not available" in _tool_result(srv.requests[1].json)

            changed = await agent.conn.set_config_option(
                config_id="mode", session_id=sid, value="act"
            )
            assert _option(changed.config_options, "mode").current_value == "act"
            # the carry-out follow-up goes with the next prompt
            assert await agent.prompt(sid, "go") == "end_turn"
            assert "Carrying it out." in agent.client.text(sid)
            third = srv.requests[2].json
            assert "write" in [t["function"]["name"] for t in third["tools"]]
            assert ACT_FOLLOW_UP in json.dumps(third["messages"][-1])

            with pytest.raises(RequestError) as bad:
                await agent.conn.set_config_option(config_id="mode", session_id=sid, value="x")
            assert "unknown mode" in str(bad.value.data)


async def test_switching_to_act_carries_out_the_plan_inside_the_next_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, profile: Profile
) -> None:
    """The carry-out ran at once, as a turn no ``session/prompt`` waited for: a client that
    drops updates outside a prompt (CodeCompanion) saw none of it and never answered its
    permission question. Now the switch is announced in, and carried out by, the next
    prompt: the model gets the carry-out instruction and then what the user typed."""
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("Plan: run echo.")))
        srv.enqueue(response(tool_events([("bash", {"command": "echo carried-out"})])))
        srv.enqueue(response(text_events("Carried out.")))
        srv.enqueue(response(text_events("A turn of its own.")))
        async with in_process(tmp_path, srv.url, monkeypatch, profile=profile) as agent:
            await agent.init()
            sid = await agent.new()
            await agent.conn.set_config_option(config_id="mode", session_id=sid, value="plan")
            assert await agent.prompt(sid, "plan it") == "end_turn"
            await agent.conn.set_config_option(config_id="mode", session_id=sid, value="act")
            assert await asyncio.wait_for(agent.prompt(sid, "go ahead"), 30) == "end_turn"
            sent = json.dumps(srv.requests[1].json["messages"][-1])
            assert ACT_FOLLOW_UP in sent
            assert "go ahead" in sent  # one user message: the instruction, then the prompt
            assert sent.index(ACT_FOLLOW_UP[:40]) < sent.index("go ahead")
            shown = agent.client.text(sid)
            assert "carrying out the plan" in shown
            assert shown.endswith("Carried out.")
            assert "carried-out" in agent.client.shown_output("call_0_bash")
            assert len(agent.client.permission_requests) == 1  # asked and answered
            assert agent.client.unanswered == []
            turn = {"agent_message_chunk", "user_message_chunk", "tool_call", "usage_update"}
            assert not {u.update.session_update for u in agent.client.dropped} & turn
            assert len(srv.requests) == 3


async def test_back_to_plan_before_the_next_prompt_carries_nothing_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("Plan: nothing much.")))
        srv.enqueue(response(text_events("Still planning.")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            sid = await agent.new()
            await agent.conn.set_config_option(config_id="mode", session_id=sid, value="plan")
            assert await agent.prompt(sid, "plan it") == "end_turn"
            for mode in ("act", "plan"):
                await agent.conn.set_config_option(config_id="mode", session_id=sid, value=mode)
            assert await agent.prompt(sid, "more detail") == "end_turn"
            assert ACT_FOLLOW_UP not in json.dumps(srv.requests[1].json["messages"])
            assert "carrying out" not in agent.client.text(sid)


async def test_ask_through_request_permission(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(tool_events([("ask", QUESTION)])))
        srv.enqueue(response(text_events("Postgres it is.")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            agent.client.answer = lambda req: "choice-1"
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "set up storage") == "end_turn"
            (asked,) = agent.client.permission_requests
            status, shown = _result_text(agent.client.tool_updates("call_0_ask"))
        assert asked.tool_call.tool_call_id == "call_0_ask"
        assert asked.tool_call.title == "Which database?"
        assert [(o.option_id, o.name, o.kind) for o in asked.options] == [
            ("choice-0", "SQLite — a file, no server", "allow_once"),
            ("choice-1", "Postgres", "allow_once"),
            ("dismiss", "Dismiss", "reject_once"),
        ]
        assert status == "completed"
        assert 'The user chose "Postgres".' in shown
        assert "not a free-text answer" in shown  # the client could only offer the choices
        assert 'The user chose "Postgres".' in _tool_result(srv.requests[1].json)


@pytest.mark.parametrize("answer", ["dismiss", "cancelled"])
async def test_ask_dismissed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: str) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(tool_events([("ask", QUESTION)])))
        srv.enqueue(response(text_events("I will pick SQLite then.")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            agent.client.answer = lambda req: answer
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "set up storage") == "end_turn"
            status, shown = _result_text(agent.client.tool_updates("call_0_ask"))
            assert "I will pick SQLite then." in agent.client.text(sid)
        assert status == "failed"
        assert DISMISSED in shown
        assert DISMISSED in _tool_result(srv.requests[1].json)


class ElicitingClient(Recorder):
    """A client that advertises form elicitation and answers with ``reply``."""

    def __init__(self, reply: Any) -> None:
        super().__init__()
        self.reply = reply
        self.elicitations: list[tuple[str, Any]] = []

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        self.elicitations.append((message, mode))
        return self.reply


ELICITING = ClientCapabilities(
    elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities())
)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            AcceptElicitationResponse(
                action="accept", content={"answer": "SQLite", "text": "with WAL"}
            ),
            'The user chose "SQLite".\nThe user wrote: with WAL',
        ),
        (DeclineElicitationResponse(action="decline"), DISMISSED),
    ],
)
async def test_ask_through_elicitation_when_advertised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: Any, expected: str
) -> None:
    client = ElicitingClient(reply)
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(tool_events([("ask", QUESTION)])))
        srv.enqueue(response(text_events("ok")))
        async with in_process(
            tmp_path, srv.url, monkeypatch, client=client, unstable=True
        ) as agent:
            await agent.init(ELICITING)
            sid = await agent.new()
            assert await agent.prompt(sid, "set up storage") == "end_turn"
    assert client.permission_requests == []
    ((message, mode),) = client.elicitations
    assert message == "Which database?"
    root = getattr(mode, "root", mode)
    assert (root.session_id, root.tool_call_id) == (sid, "call_0_ask")
    schema = root.requested_schema.model_dump(by_alias=True, exclude_none=True)
    answer = schema["properties"]["answer"]
    assert [o["const"] for o in answer["oneOf"]] == ["SQLite", "Postgres"]
    assert "text" in schema["properties"]
    assert expected in _tool_result(srv.requests[1].json)


async def test_cancel_withdraws_a_waiting_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(tool_events([("ask", QUESTION)])))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            never: asyncio.Future[str] = asyncio.get_running_loop().create_future()
            agent.client.answer = lambda req: never
            await agent.init()
            sid = await agent.new()
            turn = asyncio.ensure_future(agent.prompt(sid, "set up storage"))
            await agent.client.wait_for(lambda: bool(agent.client.permission_requests))
            await agent.conn.cancel(session_id=sid)
            assert await turn == "cancelled"
            never.set_result("choice-0")  # a late answer changes nothing
    assert len(srv.requests) == 1
