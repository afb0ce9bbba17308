"""Turns under pressure, with the agent served in the test's process (``in_process``):
permission questions (all four answers and ``cancelled``), cancel during a tool and during a
question, a prompt (or a steer) during a run, a failing model, config options."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.openai_sse import error, response, text_events, tool_events
from tests.support.http_server import Pause, ScriptedHTTPServer

from .harness import Profile, in_process

pytestmark = pytest.mark.timeout(90)


def _bash(command: str, text: str = "") -> Any:
    return response(tool_events([("bash", {"command": command})], text=text))


def _tool_result(request_json: dict[str, Any]) -> str:
    return next(m["content"] for m in reversed(request_json["messages"]) if m["role"] == "tool")


@pytest.mark.parametrize("answer", ["allow_once", "allow_always", "reject_once", "reject_always"])
async def test_permission_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: str, profile: Profile
) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(_bash("ls -a"))
        srv.enqueue(_bash("ls -l"))
        srv.enqueue(response(text_events("Done.")))
        async with in_process(tmp_path, srv.url, monkeypatch, profile=profile) as agent:
            agent.client.answer = lambda req: answer
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "list twice") == "end_turn"  # the turn goes on
            asked = agent.client.permission_requests
            kinds = {o.kind for o in asked[0].options}
            assert kinds == {"allow_once", "allow_always", "reject_once", "reject_always"}
            assert asked[0].tool_call.tool_call_id == "call_0_bash"
            first, second = _tool_result(srv.requests[1].json), _tool_result(srv.requests[2].json)
            statuses = {
                call: [u.status for u in agent.client.tool_updates(call) if u.status][-1]
                for call in ("call_0_bash",)
            }
        if answer == "allow_once":
            assert len(asked) == 2
            assert "denied" not in first
            assert statuses["call_0_bash"] == "completed"
        elif answer == "allow_always":
            assert len(asked) == 1  # the rule "ls" covers the second command
            rules = list((tmp_path / "data").rglob("permissions/*.json"))
            assert rules
            assert '"ls"' in rules[0].read_text()
            assert "denied" not in second
        elif answer == "reject_once":
            assert len(asked) == 2
            assert "denied permission" in first
            assert "denied" in second
            assert statuses["call_0_bash"] == "failed"
        else:  # reject_always: the second "ls" is denied without asking
            assert len(asked) == 1
            assert "denied permission" in second


async def test_a_cancelled_permission_answer_ends_the_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(_bash("ls"))
        srv.enqueue(response(text_events("after")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            agent.client.answer = lambda req: "cancelled"
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "list") == "cancelled"
            assert await agent.prompt(sid, "next") == "end_turn"  # works at once


async def test_cancel_during_a_permission_question_withdraws_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    never: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(_bash("ls"))
        srv.enqueue(response(text_events("fresh turn")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            agent.client.answer = lambda req: never  # the user never answers
            await agent.init()
            sid = await agent.new()
            pending = asyncio.ensure_future(agent.prompt(sid, "list"))
            await agent.client.wait_for(lambda: bool(agent.client.permission_requests))
            await agent.conn.cancel(session_id=sid)
            assert await asyncio.wait_for(pending, 30) == "cancelled"
            assert len(srv.requests) == 1  # nothing ran, no turn after the stop
            assert await agent.prompt(sid, "again") == "end_turn"
            assert agent.client.text(sid).endswith("fresh turn")
            never.set_result("allow_once")


async def test_cancel_during_a_running_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, profile: Profile
) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(_bash("echo started; sleep 60"))
        srv.enqueue(response(text_events("next turn")))
        async with in_process(tmp_path, srv.url, monkeypatch, "--yes", profile=profile) as agent:
            await agent.init()
            sid = await agent.new()
            pending = asyncio.ensure_future(agent.prompt(sid, "wait"))
            # the output so far is shown while the command runs, in either client
            await agent.client.wait_for(
                lambda: "started" in agent.client.shown_output("call_0_bash")
            )
            await agent.conn.cancel(session_id=sid)
            assert await asyncio.wait_for(pending, 30) == "cancelled"
            last = [u.status for u in agent.client.tool_updates("call_0_bash") if u.status][-1]
            assert last == "failed"
            assert await agent.prompt(sid, "again") == "end_turn"


@pytest.mark.parametrize("deliver", [None, "steer"])
async def test_a_prompt_during_a_run_is_queued_with_a_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deliver: str | None
) -> None:
    gate = Pause(asyncio.Event())
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("first answer", pieces=4), gate=gate, gate_after=2))
        srv.enqueue(response(text_events("second answer")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            sid = await agent.new()
            first = asyncio.ensure_future(agent.prompt(sid, "one"))
            await agent.client.wait_for(lambda: bool(agent.client.of("agent_message_chunk", sid)))
            meta = {} if deliver is None else {"piLsp": {"deliver": deliver}}
            second = asyncio.ensure_future(agent.prompt(sid, "two", **meta))
            word = "Steering message 1" if deliver else "Queued as follow-up 1"
            await agent.client.wait_for(lambda: word in agent.client.text(sid))
            gate.event.set()
            assert await asyncio.wait_for(first, 30) == "end_turn"
            assert await asyncio.wait_for(second, 30) == "end_turn"
            assert agent.client.text(sid).endswith("second answer")
            assert agent.client.text(sid, "user_message_chunk") == "two"  # shown when delivered
            sent = [m["content"] for m in srv.requests[1].json["messages"] if m["role"] == "user"]
            assert json.dumps(sent).count("two") == 1


async def test_cancel_clears_queued_follow_ups_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Pause(asyncio.Event())
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("first answer", pieces=4), gate=gate, gate_after=2))
        srv.enqueue(response(text_events("after the stop")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            sid = await agent.new()
            first = asyncio.ensure_future(agent.prompt(sid, "one"))
            await agent.client.wait_for(lambda: bool(agent.client.of("agent_message_chunk", sid)))
            second = asyncio.ensure_future(agent.prompt(sid, "queued"))
            await agent.client.wait_for(lambda: "follow-up 1" in agent.client.text(sid))
            await agent.conn.cancel(session_id=sid)
            assert await asyncio.wait_for(first, 30) == "cancelled"
            assert await asyncio.wait_for(second, 30) == "cancelled"
            gate.event.set()
            assert await agent.prompt(sid, "three") == "end_turn"
            users = [m for m in srv.requests[-1].json["messages"] if m["role"] == "user"]
            assert "queued" not in json.dumps(users)  # never delivered after the stop


async def test_a_failing_model_is_an_agent_message_and_a_valid_stop_reason(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(error(400, "the model is unhappy"))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "hi") == "end_turn"
            assert "the model is unhappy" in agent.client.text(sid)


async def test_config_options_model_and_thinking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with ScriptedHTTPServer() as srv, in_process(tmp_path, srv.url, monkeypatch) as agent:
        await agent.init()
        res = await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[])
        ids = [o.root.id if hasattr(o, "root") else o.id for o in res.config_options]
        assert ids == ["model", "thinking", "mode"]
        changed = await agent.conn.set_config_option(
            config_id="thinking", session_id=res.session_id, value="high"
        )
        thinking = [o for o in changed.config_options if (getattr(o, "root", o)).id == "thinking"]
        assert getattr(thinking[0], "root", thinking[0]).current_value == "high"
        await agent.client.wait_for(lambda: bool(agent.client.of("config_option_update")))
        await agent.conn.set_session_mode(session_id=res.session_id, mode_id="low")
        await agent.client.wait_for(
            lambda: any(u.current_mode_id == "low" for u in agent.client.of("current_mode_update"))
        )


async def test_two_first_prompts_in_one_write_both_reach_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A double Enter on a new session: both prompts are written before the agent answers
    either. The first starts the turn (its title is sent meanwhile); the second is queued
    with a notice; both reach the model and the session file; neither vanishes."""
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("first answer")))
        srv.enqueue(response(text_events("second answer")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            sid = await agent.new()
            both = asyncio.gather(agent.prompt(sid, "one"), agent.prompt(sid, "two"))
            assert await asyncio.wait_for(both, 30) == ["end_turn", "end_turn"]
            assert "Queued as follow-up 1" in agent.client.text(sid)
            assert agent.client.text(sid).endswith("second answer")
            users = [
                [m["content"] for m in r.json["messages"] if m["role"] == "user"]
                for r in srv.requests
            ]
            assert "one" in json.dumps(users[0])
            assert "two" not in json.dumps(users[0])
            assert "two" in json.dumps(users[1])
            titles = [u.title for u in agent.client.of("session_info_update", sid)]
            assert titles == ["one"]
        stored = "".join(p.read_text() for p in (tmp_path / "data").rglob("*.jsonl"))
        assert '"one"' in stored
        assert '"two"' in stored


async def test_a_prompt_that_cannot_run_answers_an_error_not_end_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guarantee behind the race above: when a prompt's run cannot start (here the
    session is kept busy by a run ACP did not start), the client gets an error response."""
    from acp import RequestError

    from pi_lsp.acp.server import PiAcpAgent

    servers: list[PiAcpAgent] = []
    init = PiAcpAgent.__init__

    def keep(self: PiAcpAgent, prov: Any) -> None:
        init(self, prov)
        servers.append(self)

    monkeypatch.setattr(PiAcpAgent, "__init__", keep)
    gate = Pause(asyncio.Event())
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("elsewhere", pieces=4), gate=gate, gate_after=1))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            sid = await agent.new()
            other = servers[0].sessions[sid].session.prompt("started elsewhere")
            with pytest.raises(RequestError) as raised:
                await agent.prompt(sid, "lost?")
            assert "could not run" in json.dumps(raised.value.data)
            gate.event.set()
            await asyncio.wait_for(other, 30)


async def test_a_cancel_written_with_the_first_prompt_stops_it_before_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``session/prompt`` and ``session/cancel`` in one write on a new session: the cancel
    lands while the turn sends the title; the prompt answers ``cancelled`` and the model
    is never asked (the turn checks the cancel after its await)."""
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("should not be asked")))
        srv.enqueue(response(text_events("later")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            sid = await agent.new()
            both = asyncio.gather(agent.prompt(sid, "one"), agent.conn.cancel(session_id=sid))
            stop, _ = await asyncio.wait_for(both, 30)
            assert stop == "cancelled"
            assert await agent.prompt(sid, "two") == "end_turn"
            assert agent.client.text(sid) == "should not be asked"  # the first reply, to "two"
            assert len(srv.requests) == 1
