"""``task`` children over the language server, driven in process by a pytest-lsp client
(docs/protocol.md#subagents): a child's question reaches the client attributed, its events
stream under its own session id, one child can be stopped alone, the usage is rolled up."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.lsp.protocol.contract import EventNotification
from tests.subagents.helpers import calls, task, text

from .conftest import Start
from .harness import Harness, write_script


def faux(tmp_path: Path, *responses: dict[str, Any], **extra: Any) -> dict[str, Any]:
    script = write_script(tmp_path / f"script-{uuid.uuid4().hex[:6]}.json", list(responses))
    return {"provider": "faux", "fauxScript": str(script), **extra}


async def parent_end(h: Harness, sid: str) -> dict[str, Any]:
    return await h.wait_event(sid, "agent_end")


def allowing_once(h: Any) -> list[dict[str, Any]]:
    """The client answers every ``pi/requestPermission`` "allow once"; the questions asked."""
    asked: list[dict[str, Any]] = []

    @h.client.feature("pi/requestPermission")
    async def on_request(params: Any) -> dict[str, Any]:
        asked.append(params)
        return {"optionId": "allowOnce"}

    return asked


async def test_a_childs_question_reaches_the_client_and_its_events_stream_apart(
    pi_in_process: Start, tmp_path: Path
) -> None:
    settings = faux(
        tmp_path,
        calls(task("check", "CHILD-A: check it")),
        calls(("bash", {"command": "echo hi"}), when="CHILD-A"),
        text("child says hi", when="CHILD-A"),
        text("Parent: done"),
        clientCapabilities={"requestPermission": True, "subagents": True},
    )
    h = await pi_in_process(pi=settings)
    asked = allowing_once(h)

    sid = (await h.call("pi/prompt", {"text": "go"}))["sessionId"]
    await parent_end(h, sid)
    [question] = asked
    updates = [e["event"] for e in h.session_events(sid) if e["event"]["type"] == "subagent_update"]
    child = updates[0]["childSessionId"]
    assert [u["state"] for u in updates] == ["running", "completed"]
    assert question["sessionId"] == sid
    assert question["childSessionId"] == child
    assert question["agentName"] == "general"
    assert question["title"] == "[general] Run: echo hi"
    child_events = h.session_events(child)
    assert child_events
    assert all(e["parentSessionId"] == sid for e in child_events)
    assert [e["seq"] for e in child_events] == list(range(1, len(child_events) + 1))
    for e in child_events:
        EventNotification.model_validate(e)
    assert "tool_execution_end" in [e["event"]["type"] for e in child_events]
    # announce before the child's first event, terminal after its last
    order = [(e["sessionId"], e["event"]) for e in h.events]
    announce = next(i for i, (s, ev) in enumerate(order) if ev.get("state") == "running")
    terminal = next(i for i, (s, ev) in enumerate(order) if ev.get("state") == "completed")
    child_at = [i for i, (s, _) in enumerate(order) if s == child]
    assert announce < child_at[0]
    assert child_at[-1] < terminal
    state = await h.call("pi/state", {"sessionId": sid})
    assert state["usage"]["children"]["output"] > 0
    assert state["usage"]["output"] > state["usage"]["children"]["output"]


async def test_a_childs_mcp_call_uses_the_parents_server_and_its_question_is_attributed(
    pi_in_process: Start, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.mcp.conftest import demo_stdio

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    settings = faux(
        tmp_path,
        calls(("mcp__demo__pid", {})),
        calls(task("pid", "CHILD-M: the pid")),
        calls(("mcp__demo__sleep", {"seconds": 0}), when="CHILD-M"),
        calls(("mcp__demo__pid", {}), when="CHILD-M"),
        text("child done", when="CHILD-M"),
        text("Parent: done"),
        clientCapabilities={"requestPermission": True, "subagents": True},
        mcpServers={"demo": demo_stdio(alwaysAllow=["pid"])},
    )
    h = await pi_in_process(pi=settings)
    asked = allowing_once(h)

    sid = (await h.call("pi/prompt", {"text": "go"}))["sessionId"]
    await parent_end(h, sid)
    [question] = asked
    child = next(
        e["event"]["childSessionId"]
        for e in h.session_events(sid)
        if e["event"]["type"] == "subagent_update"
    )
    assert question["sessionId"] == sid
    assert question["childSessionId"] == child
    assert question["agentName"] == "general"
    assert question["title"] == "[general] Call MCP tool sleep (server demo)"
    pids = [
        e["event"]["result"]["content"][0]["text"]
        for e in h.events
        if e["event"]["type"] == "tool_execution_end" and e["event"]["toolName"] == "mcp__demo__pid"
    ]
    assert len(pids) == 2
    assert pids[0] == pids[1]  # the child's call reached the parent's server process


async def test_without_the_capability_only_the_parent_stream_is_sent(
    pi_in_process: Start, tmp_path: Path
) -> None:
    h = await pi_in_process(
        pi=faux(
            tmp_path,
            calls(task("look", "CHILD-A: look")),
            text("seen", when="CHILD-A"),
            text("Parent: done"),
        )
    )
    sid = (await h.call("pi/prompt", {"text": "go"}))["sessionId"]
    await parent_end(h, sid)
    assert {e["sessionId"] for e in h.events} == {sid}
    progress = [
        e["event"]["partialResult"]["content"][0]["text"]
        for e in h.session_events(sid)
        if e["event"]["type"] == "tool_execution_update"
    ]
    assert "[general] started" in progress


async def test_pi_abort_with_a_child_id_stops_only_that_child(
    pi_in_process: Start, tmp_path: Path
) -> None:
    settings = faux(
        tmp_path,
        calls(task("slow", "CHILD-S: wait"), task("fast", "CHILD-F: go")),
        text("slow " * 2000, when="CHILD-S", chunkSize=1, delayMs=5),
        text("fast done", when="CHILD-F"),
        text("Parent: carried on"),
        clientCapabilities={"subagents": True},
    )
    h = await pi_in_process(pi=settings)
    sid = (await h.call("pi/prompt", {"text": "go"}))["sessionId"]

    def slow_child() -> str | None:
        for e in h.session_events(sid):
            ev = e["event"]
            if ev["type"] == "subagent_update" and ev["description"] == "slow":
                return str(ev["childSessionId"])
        return None

    child = await h.wait_for(slow_child)
    await h.wait_for(lambda: h.session_events(child))
    assert await h.call("pi/abort", {"sessionId": child}) == {"aborted": True}
    end = await parent_end(h, sid)
    results = [m for m in end["messages"] if m["role"] == "toolResult"]
    assert results[0]["isError"]
    assert "cancelled by the user" in results[0]["content"][0]["text"]
    assert not results[1]["isError"]
    assert end["messages"][-1]["content"][0]["text"] == "Parent: carried on"


async def test_a_resumed_session_lists_its_children(pi_in_process: Start, tmp_path: Path) -> None:
    settings = faux(
        tmp_path,
        calls(task("look", "CHILD-A: look")),
        text("seen", when="CHILD-A"),
        text("Parent: done"),
    )
    h = await pi_in_process(pi=settings)
    sid = (await h.call("pi/prompt", {"text": "go"}))["sessionId"]
    await parent_end(h, sid)
    second = await pi_in_process(pi=settings)  # another editor window, the same data dir
    await second.call("pi/resumeSession", {"sessionId": sid})
    state = await second.call("pi/state", {"sessionId": sid})
    [child] = state["subagents"]
    assert child["agent"] == "general"
    assert child["description"] == "look"
    assert child["state"] == "completed"
    assert child["usage"]["turns"] == 1
    assert "subagents" not in await h.call(
        "pi/state", {"sessionId": (await h.call("pi/newSession"))["sessionId"]}
    )


async def test_a_childs_edit_becomes_a_review_hunk_of_the_open_session(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    """Without isolation a child edits the editor's buffers like its parent: the change is a
    review hunk the user keeps or undoes in the parent session's review."""
    from .test_review import VSCODE

    edit = {"path": "a.py", "edits": [{"oldText": "return 1", "newText": "return 2"}]}
    h = await pi_in_process(
        capabilities=VSCODE,
        pi=faux(
            tmp_path,
            calls(task("fix", "CHILD-E: fix")),
            calls(("edit", edit), when="CHILD-E"),
            text("fixed", when="CHILD-E"),
            text("Parent: done"),
            clientCapabilities={"subagents": True},
        ),
    )
    uri = h.open(workspace / "a.py", "def f():\n    return 1\n")
    sid = (await h.call("pi/prompt", {"text": "go"}))["sessionId"]
    await parent_end(h, sid)
    assert h.docs[uri][1] == "def f():\n    return 2\n"
    [file] = (await h.call("pi/review", {"sessionId": sid}))["files"]
    assert file["uri"] == uri
    [hunk] = file["hunks"]
    child_calls = [
        e["event"]["toolCallId"]
        for e in h.events
        if e.get("parentSessionId") == sid and e["event"]["type"] == "tool_execution_start"
    ]
    assert hunk["toolCallId"] in child_calls  # tagged with the child's edit call


async def test_a_worktree_childs_change_comes_back_as_a_review_hunk(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    import subprocess

    from .test_review import VSCODE

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=workspace,
            check=True,
            capture_output=True,
        )

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "init")
    edit = {"path": "a.py", "edits": [{"oldText": "return 1", "newText": "return 3"}]}
    h = await pi_in_process(
        capabilities=VSCODE,
        pi=faux(
            tmp_path,
            calls(task("fix", "CHILD-W: fix", isolation="worktree")),
            calls(("edit", edit), when="CHILD-W"),
            text("fixed in my worktree", when="CHILD-W"),
            text("Parent: done"),
        ),
    )
    uri = h.open(workspace / "a.py", "def f():\n    return 1\n")
    sid = (await h.call("pi/prompt", {"text": "go"}))["sessionId"]
    end = await parent_end(h, sid)
    result = next(m for m in end["messages"] if m["role"] == "toolResult")
    assert "Applied from its worktree: a.py" in result["content"][0]["text"]
    assert h.docs[uri][1] == "def f():\n    return 3\n"  # into the open buffer
    [file] = (await h.call("pi/review", {"sessionId": sid}))["files"]
    [hunk] = file["hunks"]
    assert hunk["toolCallId"] == result["toolCallId"]  # tagged with the task call
    undone = await h.call(
        "pi/reviewDecision",
        {"sessionId": sid, "decisions": [{"hunkId": hunk["id"], "decision": "undo"}]},
    )
    assert undone["applied"] == [hunk["id"]]
    assert h.docs[uri][1] == "def f():\n    return 1\n"  # its undo restores the file


async def test_a_child_session_cannot_be_resumed_or_prompted(
    pi_in_process: Start, tmp_path: Path
) -> None:
    from pygls.exceptions import JsonRpcException

    settings = faux(
        tmp_path,
        calls(task("look", "CHILD-A: look")),
        text("seen", when="CHILD-A"),
        text("Parent: done"),
    )
    h = await pi_in_process(pi=settings)
    sid = (await h.call("pi/prompt", {"text": "go"}))["sessionId"]
    await parent_end(h, sid)
    child = (await h.call("pi/state", {"sessionId": sid}))["subagents"][0]["childSessionId"]
    for method, params in (
        ("pi/resumeSession", {"sessionId": child}),
        ("pi/prompt", {"sessionId": child, "text": "hi"}),
    ):
        with pytest.raises(JsonRpcException) as info:
            await h.call(method, params)
        assert f"a subagent of session {sid}" in str(info.value)
    assert child not in [s["sessionId"] for s in (await h.call("pi/sessions"))["sessions"]]


async def test_a_worktree_child_starts_from_the_editors_unsaved_text(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    """What the user sees is carried into the worktree: an open buffer's unsaved edit (and a
    buffer never saved) too, and the child's change to it comes back into the buffer."""
    import subprocess

    from .test_review import VSCODE

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=workspace,
            check=True,
            capture_output=True,
        )

    (workspace / ".gitignore").write_text("secret.txt\n")
    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "init")
    edit = {"path": "a.py", "edits": [{"oldText": "return 42", "newText": "return 43"}]}
    h = await pi_in_process(
        capabilities=VSCODE,
        pi=faux(
            tmp_path,
            calls(task("fix", "CHILD-U: fix", isolation="worktree")),
            calls(("read", {"path": "a.py"}), ("read", {"path": "new.py"}), when="CHILD-U"),
            calls(("bash", {"command": "ls"}), when="CHILD-U"),
            calls(("edit", edit), when="CHILD-U"),
            text("fixed the unsaved text", when="CHILD-U"),
            text("Parent: done"),
            clientCapabilities={"subagents": True},
            permissions={"bash": "allow"},
        ),
    )
    uri = h.open(workspace / "a.py")
    h.set_text(uri, "def f():\n    return 42  # unsaved\n")  # typed, not saved
    h.open(workspace / "new.py", "NEW = 1\n")  # a buffer never saved
    h.open(workspace / "secret.txt", "ignored\n")  # ignored: stays out
    sid = (await h.call("pi/prompt", {"text": "go"}))["sessionId"]
    end = await parent_end(h, sid)
    assert (workspace / "a.py").read_text() == "def f():\n    return 1\n"  # still unsaved
    child = [e["event"] for e in h.events if e.get("parentSessionId") == sid]
    args = {
        e["toolCallId"]: json.dumps(e["args"]) for e in child if e["type"] == "tool_execution_start"
    }
    seen = {
        args[e["toolCallId"]]: (e["result"]["content"][0]["text"], e["isError"])
        for e in child
        if e["type"] == "tool_execution_end"
    }
    assert "return 42  # unsaved" in seen['{"path": "a.py"}'][0]  # the child read it
    assert "NEW = 1" in seen['{"path": "new.py"}'][0]
    assert "secret.txt" not in seen['{"command": "ls"}'][0]
    assert "new.py" in seen['{"command": "ls"}'][0]
    edited = next(v for k, v in seen.items() if "return 43" in k)
    assert not edited[1], edited[0]
    result = next(m for m in end["messages"] if m["role"] == "toolResult")
    assert "Applied from its worktree: a.py" in result["content"][0]["text"]
    assert h.docs[uri][1] == "def f():\n    return 43  # unsaved\n"  # back into the buffer
