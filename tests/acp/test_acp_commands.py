"""The project's commands and context in an ACP client (issue 37): ``available_commands_update``
lists the builtins, the prompt templates and the skills after ``session/new`` / ``load`` /
``resume`` and after a reload; ``/context`` answers with what was loaded and ``/reload`` loads
again, neither calling the model; project trust is asked as a permission request at the first
prompt, once per directory. Served in the test's process, as both client profiles where what
they show differs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.openai_sse import response, text_events
from tests.resources.trees import skill, write
from tests.support.http_server import Pause, ScriptedHTTPServer

from .harness import FULL, Profile, in_process

pytestmark = pytest.mark.timeout(90)


def _home(tmp_path: Path, monkeypatch: Any) -> Path:
    """An empty home and agent dir with one user template and one user skill."""
    home = tmp_path / "home"
    agent_dir = home / ".pi" / "agent"
    write(agent_dir / "prompts" / "review.md", "---\nargument-hint: FILE\n---\nReview $1.\n")
    skill(agent_dir / "skills", "release", "Cut a release")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir))
    return agent_dir


def _names(update: Any) -> list[str]:
    return [c.name for c in update.available_commands]


async def test_commands_after_new_and_the_template_expands(
    tmp_path: Path, monkeypatch: Any
) -> None:
    _home(tmp_path, monkeypatch)
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("ok")))
        async with in_process(tmp_path, srv.url, monkeypatch, profile=FULL) as agent:
            await agent.init()
            sid = await agent.new()
            await agent.client.wait_for(lambda: bool(agent.client.of("available_commands_update")))
            update = agent.client.of("available_commands_update", sid)[0]
            assert _names(update) == [
                "compact",
                "context",
                "export",
                "reload",
                "review",
                "skill:release",
            ]
            review = update.available_commands[4]
            assert review.input is not None
            assert review.input.root.hint == "FILE"
            assert await agent.prompt(sid, "/review a.py") == "end_turn"
        last = srv.requests[0].json["messages"][-1]
    content = last["content"] if isinstance(last["content"], str) else last["content"][0]["text"]
    assert content == "Review a.py."


async def test_context_and_reload_answer_without_the_model(
    tmp_path: Path, monkeypatch: Any, profile: Profile
) -> None:
    agent_dir = _home(tmp_path, monkeypatch)
    write(tmp_path / "work" / "AGENTS.md", "Run make check.\n")
    async with ScriptedHTTPServer() as srv:
        async with in_process(tmp_path, srv.url, monkeypatch, profile=profile) as agent:
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "/context") == "end_turn"
            shown = agent.client.text(sid)
            assert str((tmp_path / "work" / "AGENTS.md").resolve()) in shown
            assert "`release`" in shown
            assert "`/review`" in shown
            write(agent_dir / "prompts" / "fix.md", "Fix $@.\n")
            before = len(agent.client.of("available_commands_update", sid))
            assert await agent.prompt(sid, "/reload") == "end_turn"
            # shown by both profiles: it went out before the prompt's response
            updates = agent.client.of("available_commands_update", sid)
            assert len(updates) == before + 1
            assert "fix" in _names(updates[-1])
            assert "Reloaded." in agent.client.text(sid)
        assert srv.requests == []  # no model call


async def test_an_unknown_command_is_sent_as_typed_with_a_notice(
    tmp_path: Path, monkeypatch: Any
) -> None:
    _home(tmp_path, monkeypatch)
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("ok")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "/nosuch thing") == "end_turn"
            assert "nosuch" in agent.client.text(sid).split("ok")[0]
        last = srv.requests[0].json["messages"][-1]
    content = last["content"] if isinstance(last["content"], str) else last["content"][0]["text"]
    assert content == "/nosuch thing"


async def test_commands_after_load_and_resume(tmp_path: Path, monkeypatch: Any) -> None:
    _home(tmp_path, monkeypatch)
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("ok")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "hello") == "end_turn"
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            await agent.conn.load_session(cwd=str(agent.cwd), session_id=sid, mcp_servers=[])
            await agent.client.wait_for(
                lambda: bool(agent.client.of("available_commands_update", sid))
            )
            kinds = agent.validator.updates_then_response("session/load")
            # after the response has gone out
            assert kinds.index("response") < kinds.index("update:available_commands_update")
            loaded = agent.client.of("available_commands_update", sid)
            assert "skill:release" in _names(loaded[-1])
            await agent.conn.resume_session(cwd=str(agent.cwd), session_id=sid, mcp_servers=[])
            await agent.client.wait_for(
                lambda: len(agent.client.of("available_commands_update", sid)) == 2
            )


def _project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    write(work / "AGENTS.md", "Project rules.\n")
    write(work / ".pi" / "prompts" / "ship.md", "Ship $1 now.\n")
    return work


def _last_user_text(srv: ScriptedHTTPServer, index: int) -> str:
    last = srv.requests[index].json["messages"][-1]
    return last["content"] if isinstance(last["content"], str) else last["content"][0]["text"]


@pytest.mark.parametrize(
    ("choice", "expanded"), [("allow_always", True), ("allow_once", True), ("reject_always", False)]
)
async def test_project_trust_is_asked_once_before_the_first_prompt(
    tmp_path: Path, monkeypatch: Any, profile: Profile, choice: str, expanded: bool
) -> None:
    _home(tmp_path, monkeypatch)
    work = _project(tmp_path)
    async with ScriptedHTTPServer() as srv:
        for _ in range(2):
            srv.enqueue(response(text_events("ok")))
        async with in_process(tmp_path, srv.url, monkeypatch, profile=profile) as agent:
            agent.client.answer = lambda req: choice
            await agent.init()
            first = await agent.new()
            second = await agent.new()
            assert await agent.prompt(first, "/ship v1") == "end_turn"
            asked = agent.client.permission_requests
            assert len(asked) == 1
            assert asked[0].tool_call.title == f"Trust project files in {work.resolve()}?"
            assert {o.kind for o in asked[0].options} == {
                "allow_always",
                "allow_once",
                "reject_always",
            }
            assert await agent.prompt(second, "/ship v2") == "end_turn"
            assert len(agent.client.permission_requests) == 1  # once per directory
            if not expanded:
                assert await agent.prompt(second, "/context") == "end_turn"
                shown = agent.client.text(second)
                assert "Project trust: untrusted" in shown
                assert str(work.resolve() / ".pi" / "prompts") in shown
            else:  # the trusted template is offered now
                names = _names(agent.client.of("available_commands_update", first)[-1])
                assert "ship" in names
        system = srv.requests[0].json["messages"][0]["content"]
    assert "Project rules." in system  # context files load either way
    for index, version in ((0, "v1"), (1, "v2")):
        text = _last_user_text(srv, index)
        assert text == (f"Ship {version} now.\n" if expanded else f"/ship {version}")


async def test_context_during_a_turn_waits_for_it_and_never_reaches_the_model(
    tmp_path: Path, monkeypatch: Any
) -> None:
    _home(tmp_path, monkeypatch)
    gate = Pause(asyncio.Event())
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("first answer", pieces=4), gate=gate, gate_after=2))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            sid = await agent.new()
            first = asyncio.ensure_future(agent.prompt(sid, "one"))
            await agent.client.wait_for(lambda: bool(agent.client.of("agent_message_chunk", sid)))
            second = asyncio.ensure_future(agent.prompt(sid, "/context"))
            gate.event.set()
            assert await asyncio.wait_for(first, 30) == "end_turn"
            assert await asyncio.wait_for(second, 30) == "end_turn"
            shown = agent.client.text(sid)
            assert shown.index("first answer") < shown.index("Context for")
        assert len(srv.requests) == 1  # /context was not queued for the model
