"""``/review`` through the ACP SDK's client (docs/review.md#in-an-acp-client): on the fixture
repository with seeded defects, the scripted model's findings come back as a message, one
tool call per finding with its file location, and a plan entry per finding."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.lsp.openai_sse import response, text_events, tool_events
from tests.support.http_server import Pause, ScriptedHTTPServer
from tests.support.review_repo import DIV_LINE, EVAL_LINE, commit_all, make_review_repo

from .harness import in_process

pytestmark = pytest.mark.timeout(90)


def finding(path: str, line: int, title: str, severity: str) -> tuple[str, dict[str, object]]:
    args = {"path": path, "line": line, "severity": severity, "title": title, "body": "why"}
    return ("report_finding", args)


async def test_review_answers_with_locations_and_a_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = make_review_repo(tmp_path / "work")
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(
            response(
                tool_events(
                    [
                        finding("calc.py", DIV_LINE, "Division by zero", "error"),
                        finding("util.py", EVAL_LINE, "eval of input", "warning"),
                    ]
                )
            )
        )
        srv.enqueue(response(text_events("Two findings.")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            sid = await agent.new()
            await agent.client.wait_for(
                lambda: bool(agent.client.of("available_commands_update", sid))
            )
            commands = agent.client.of("available_commands_update", sid)
            assert "review" in [c.name for c in commands[-1].available_commands]
            assert await agent.prompt(sid, "/review") == "end_turn"
            text = agent.client.text(sid)
            calls = agent.client.of("tool_call", sid)
            plans = agent.client.of("plan", sid)
    assert "2 findings (1 error, 1 warning)" in text
    assert "`calc.py:5` Division by zero" in text
    assert "logo.png (binary)" in text
    assert [(c.title, c.status) for c in calls] == [
        (f"error: calc.py:{DIV_LINE} Division by zero", "completed"),
        (f"warning: util.py:{EVAL_LINE} eval of input", "completed"),
    ]
    assert [(loc.path, loc.line) for c in calls for loc in c.locations or []] == [
        (str(work / "calc.py"), DIV_LINE),
        (str(work / "util.py"), EVAL_LINE),
    ]
    (plan,) = plans
    assert [(e.content, e.priority, e.status) for e in plan.entries] == [
        (f"1. Fix calc.py:{DIV_LINE}: Division by zero", "high", "pending"),
        (f"2. Fix util.py:{EVAL_LINE}: eval of input", "medium", "pending"),
    ]


async def test_review_of_a_clean_tree_says_so_without_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = make_review_repo(tmp_path / "work")
    commit_all(work)
    async with (
        ScriptedHTTPServer() as srv,  # nothing enqueued: a model call would fail
        in_process(tmp_path, srv.url, monkeypatch) as agent,
    ):
        await agent.init()
        sid = await agent.new()
        assert await agent.prompt(sid, "/review") == "end_turn"
        assert agent.client.text(sid) == "Nothing to review: the diff is empty."
        assert await agent.prompt(sid, "/review --bogus") == "end_turn"
        assert "takes no arguments" in agent.client.text(sid)


async def test_cancel_stops_a_review(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_review_repo(tmp_path / "work")
    stalled = Pause(asyncio.Event())  # the model starts answering, then never goes on
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("Looking at the diff now."), gate=stalled))
        srv.enqueue(response(text_events("Hello.")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            sid = await agent.new()
            pending = asyncio.ensure_future(agent.prompt(sid, "/review"))
            await srv.wait_for_requests(1)
            await agent.conn.cancel(session_id=sid)
            assert await asyncio.wait_for(pending, 30) == "cancelled"
            assert "Review cancelled." in agent.client.text(sid)
            assert await agent.prompt(sid, "hi") == "end_turn"
            stalled.event.set()
