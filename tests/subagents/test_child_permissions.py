"""A child's questions reach the root's ``Ask``, attributed; "always" answers hold for the
whole tree; an abort while a child's question is pending withdraws it
(docs/subagents.md#permissions)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pi_lsp.ai import AbortSignal, TextContent, ToolResultMessage
from pi_lsp.runtime import SessionOptions
from pi_lsp.runtime.permissions import Answer, BashRules, Question
from tests.subagents.helpers import calls, make_session, task, text


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PI_LSP_DATA_DIR", str(tmp_path / "data"))


def results(session: object) -> list[ToolResultMessage]:
    messages = session.agent.state.messages  # type: ignore[attr-defined]
    return [m for m in messages if isinstance(m, ToolResultMessage)]


def body(result: ToolResultMessage) -> str:
    return "".join(b.text for b in result.content if isinstance(b, TextContent))


async def test_a_childs_ask_reaches_the_root_attributed_and_always_is_shared(
    tmp_path: Path,
) -> None:
    asked: list[Question] = []

    async def ask(question: Question, signal: AbortSignal | None) -> Answer:
        asked.append(question)
        return Answer("allowSession")

    rules = BashRules(ask=ask)
    session = make_session(
        tmp_path,
        [
            calls(task("one", "CHILD-1: run it")),
            calls(("bash", {"command": "echo one"}), when="CHILD-1"),
            text("child one ran it", when="CHILD-1"),
            calls(task("two", "CHILD-2: run it too")),
            calls(("bash", {"command": "echo one"}), when="CHILD-2"),
            text("child two ran it", when="CHILD-2"),
            text("Parent: done"),
        ],
        options=SessionOptions(
            permissions=(rules.before_tool_call,),
            child_permissions=lambda agent, cid: (rules.for_child(agent, cid).before_tool_call,),
        ),
    )
    await session.prompt("go")
    assert len(asked) == 1  # the sibling's same command was allowed by the first answer
    [question] = asked
    assert question.title == "[general] Run: echo one"
    assert question.agent_name == "general"
    assert session.subagents is not None
    first = session.subagents.children()[0]
    assert question.child_session_id == first.child_id
    assert [body(r).split("\n")[0] for r in results(session)] == [
        "child one ran it",
        "child two ran it",
    ]
    session.close()


async def test_root_abort_withdraws_a_childs_pending_question(tmp_path: Path) -> None:
    pending = asyncio.Event()
    outcome: list[str] = []

    async def ask(question: Question, signal: AbortSignal | None) -> Answer:
        pending.set()
        assert signal is not None
        await signal.wait()  # the user never answers: the abort must end it
        outcome.append("withdrawn")
        return Answer("cancel")

    rules = BashRules(ask=ask)
    session = make_session(
        tmp_path,
        [
            calls(task("one", "CHILD-1: run it")),
            calls(("bash", {"command": "rm -rf build"}), when="CHILD-1"),
        ],
        options=SessionOptions(
            permissions=(rules.before_tool_call,),
            child_permissions=lambda agent, cid: (rules.for_child(agent, cid).before_tool_call,),
        ),
    )
    run = session.prompt("go")
    await asyncio.wait_for(pending.wait(), 10)
    child_id = session.subagents.children()[0].child_id  # type: ignore[union-attr]
    assert [p.get("childSessionId") for p in rules.pending_list()] == [child_id]
    assert rules.pending_list()[0]["title"] == "[general] Run: rm -rf build"
    states: list[str] = []
    session.subscribe(lambda e: states.append(e.state) if e.type == "subagent_update" else None)
    session.abort()
    await asyncio.wait_for(run, 10)
    assert outcome == ["withdrawn"]
    assert rules.pending_list() == []
    assert states == ["cancelled"]
    [result] = results(session)
    assert result.is_error
    assert "cancelled by the user" in body(result)
    session.close()
