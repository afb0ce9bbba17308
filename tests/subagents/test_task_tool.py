"""The ``task`` tool end to end over real sessions and files: the faux provider scripts the
parent and its children (docs/subagents.md)."""

from __future__ import annotations

import asyncio
import itertools
import os
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.ai import AssistantMessage, TextContent, ToolResultMessage
from pi_lsp.sessions import SessionFile
from pi_lsp.sessions.events import SubagentUpdateEvent
from pi_lsp.subagents.runner import ChildEvent
from tests.subagents.helpers import calls, make_session, task, text


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PI_LSP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)


def tool_results(session: Any) -> list[ToolResultMessage]:
    return [m for m in session.agent.state.messages if isinstance(m, ToolResultMessage)]


def result_text(result: ToolResultMessage) -> str:
    return "".join(b.text for b in result.content if isinstance(b, TextContent))


async def test_one_child_answers_the_parent_and_is_linked_both_ways(tmp_path: Path) -> None:
    session = make_session(
        tmp_path,
        [
            calls(task("look around", "CHILD-A: list the files")),
            text("child A found two files", when="CHILD-A"),
            text("Parent: done"),
        ],
    )
    updates: list[SubagentUpdateEvent] = []
    session.subscribe(lambda e: updates.append(e) if e.type == "subagent_update" else None)
    await session.prompt("go")
    [result] = tool_results(session)
    body = result_text(result)
    assert not result.is_error
    assert body.startswith("child A found two files")
    child_id = updates[0].child_session_id
    assert f"session {child_id}]" in body.splitlines()[-1]
    assert body.splitlines()[-1].startswith("[task general: 1 turns · ")
    assert [u.state for u in updates] == ["running", "completed"]
    # the parent's file records the child (start and end, with its usage)
    parent = SessionFile.load(session.tree.path)
    records = [e.data for e in parent.entries if getattr(e, "custom_type", "") == "subagent"]
    assert [r["state"] for r in records] == ["queued", "completed"]
    assert records[-1]["childSessionId"] == child_id
    assert records[-1]["usage"]["turns"] == 1
    # the child's own file names the parent
    [child_path] = list(session.tree.path.parent.glob(f"*_{child_id}.jsonl"))
    child = SessionFile.load(child_path)
    assert child.header.parent_session == str(session.tree.path)
    # its usage is in the parent's totals, and shown apart
    totals = session.usage_totals()
    assert totals.children is not None
    assert totals.children.output > 0
    own = sum(
        m.usage.output for m in session.agent.state.messages if isinstance(m, AssistantMessage)
    )
    assert totals.output == own + totals.children.output
    session.close()


async def test_parallel_children_interleave_and_a_fifth_waits_for_a_slot(tmp_path: Path) -> None:
    names = [f"CHILD-{i}" for i in range(5)]
    session = make_session(
        tmp_path,
        [
            calls(*(task(f"job {n}", f"{n}: work") for n in names)),
            *(text(f"{n} result " * 20, when=n, chunkSize=3, delayMs=2) for n in names),
            text("Parent: all done"),
        ],
    )
    assert session.subagents is not None
    running_at_once = 0
    seen: list[str] = []

    def on_child(event: ChildEvent) -> None:
        nonlocal running_at_once
        running_at_once = max(
            running_at_once,
            len(
                [c for c in session.subagents.children() if c.state == "running"]  # type: ignore[union-attr]
            ),
        )
        if event.event.type == "message_update":
            seen.append(event.child_id)

    session.subagents.subscribe(on_child)
    states: list[tuple[str, str]] = []
    session.subscribe(
        lambda e: (
            states.append((e.child_session_id, e.state)) if e.type == "subagent_update" else None
        )
    )
    await session.prompt("go")
    results = tool_results(session)
    assert len(results) == 5
    assert not any(r.is_error for r in results)
    for name, result in zip(names, results, strict=True):
        assert result_text(result).startswith(f"{name} result")
    assert running_at_once == 4
    # the children's streams interleave (not one after the other)
    switches = sum(1 for a, b in itertools.pairwise(seen) if a != b)
    assert switches > 5
    terminal = [s for _, s in states if s not in ("running", "queued")]
    assert terminal == ["completed"] * 5
    assert [s for _, s in states].count("queued") == 1  # the fifth waited, visibly
    session.close()


async def test_unknown_agent_lists_the_names_and_children_get_no_task_tool(tmp_path: Path) -> None:
    session = make_session(
        tmp_path,
        [
            calls(task("x", "CHILD-X: y", agent="nope"), task("y", "CHILD-Y: tools?")),
            calls(task("nested", "GRANDCHILD"), when="CHILD-Y"),
            text("child could not nest", when="CHILD-Y"),
            text("Parent: ok"),
        ],
    )
    await session.prompt("go")
    unknown, child = tool_results(session)
    assert unknown.is_error
    assert 'Unknown agent "nope". Available: general' in result_text(unknown)
    assert result_text(child).startswith("child could not nest")
    session.close()


async def test_a_child_whose_model_errors_reports_it_to_the_parent(tmp_path: Path) -> None:
    session = make_session(
        tmp_path,
        [
            calls(task("fail", "CHILD-E: boom")),
            {"errorMessage": "400 the model is gone", "beforeStart": True, "when": "CHILD-E"},
            text("Parent: saw the failure"),
        ],
    )
    states: list[str] = []
    session.subscribe(lambda e: states.append(e.state) if e.type == "subagent_update" else None)
    await session.prompt("go")
    [result] = tool_results(session)
    assert result.is_error
    assert "The general agent failed: 400 the model is gone" in result_text(result)
    assert states[-1] == "failed"
    session.close()


async def test_root_abort_stops_every_child_and_their_commands(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    names = ["CHILD-1", "CHILD-2", "CHILD-3"]
    session = make_session(
        tmp_path,
        [
            calls(*(task(f"sleep {n}", f"{n}: sleep") for n in names)),
            *(
                calls(("bash", {"command": f"echo $$ >> {marker}; exec sleep 60"}), when=n)
                for n in names
            ),
        ],
        permissions={"bash": "allow"},
    )
    assert session.subagents is not None
    run = session.prompt("go")
    for _ in range(2000):
        if marker.exists() and len(marker.read_text().split()) == 3:
            break
        await asyncio.sleep(0.01)
    pids = [int(p) for p in marker.read_text().split()]
    session.abort()
    await asyncio.wait_for(run, 10)
    assert not session.subagents.running()
    for result in tool_results(session):
        assert result.is_error
        assert "cancelled by the user" in result_text(result)
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    session.close()


async def test_stopping_one_child_returns_cancelled_and_the_run_goes_on(tmp_path: Path) -> None:
    gate = asyncio.Event()
    session = make_session(
        tmp_path,
        [
            calls(task("slow", "CHILD-S: wait"), task("fast", "CHILD-F: go")),
            text("slow " * 400, when="CHILD-S", chunkSize=1, delayMs=5),
            text("fast done", when="CHILD-F"),
            text("Parent: continued"),
        ],
    )
    assert session.subagents is not None
    subagents = session.subagents

    def on_child(event: ChildEvent) -> None:
        child = subagents.get(event.child_id)
        slow = child is not None and child.spec.description == "slow"
        if slow and event.event.type == "message_update" and not gate.is_set():
            gate.set()
            assert subagents.stop(event.child_id)

    subagents.subscribe(on_child)
    await session.prompt("go")
    slow, fast = tool_results(session)
    assert slow.is_error
    assert "cancelled by the user" in result_text(slow)
    assert not fast.is_error
    assert result_text(fast).startswith("fast done")
    last = session.last_assistant()
    assert last is not None
    assert (
        "".join(b.text for b in last.content if isinstance(b, TextContent)) == "Parent: continued"
    )
    session.close()


async def test_a_long_answer_is_cut_like_other_tool_output(tmp_path: Path) -> None:
    long = "\n".join(f"line {i}" for i in range(3000))
    session = make_session(
        tmp_path,
        [
            calls(task("long", "CHILD-L: talk")),
            text(long, when="CHILD-L", chunkSize=5000),
            text("ok"),
        ],
    )
    await session.prompt("go")
    [result] = tool_results(session)
    body = result_text(result)
    assert "line 1999" in body
    assert "line 2000\n" not in body
    assert "[output cut at 2000 of 3000 lines; the whole answer is in session " in body
    assert body.splitlines()[-1].startswith("[task general: 1 turns")
    session.close()


async def test_children_are_not_listed_as_sessions_of_their_own(tmp_path: Path) -> None:
    from pi_lsp.sessions import SessionStore

    session = make_session(
        tmp_path, [calls(task("look", "CHILD-A: look")), text("seen", when="CHILD-A"), text("ok")]
    )
    await session.prompt("go")
    store = SessionStore(tmp_path / "sessions", tmp_path / "project")
    assert [i.session_id for i in store.list()] == [session.session_id]
    every = store.list(include_children=True)
    [child] = [i for i in every if i.subagent_of == session.session_id]
    assert child.session_id != session.session_id
    session.close()
