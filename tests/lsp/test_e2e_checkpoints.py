"""PROTOCOL §9.5 over the real server: checkpoints, restore (code / conversation / both)
sparing the user's edits, conflicts, undo of a restore, reverting one tool call, one
``workspace/applyEdit`` per tool call — and all of it after a server restart."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from tests.support.http_server import Pause, ScriptedHTTPServer

from .conftest import Start, http_settings
from .harness import Harness, stop, text_reply, tool_reply
from .openai_sse import response, text_events
from .test_e2e_edits import EDIT, faux

SOURCE = "def f():\n    return 1\n"
EDITED = "def f():\n    return 2\n"
RENAME = {"path": "a.py", "edits": [{"oldText": "def f", "newText": "def g"}]}


async def _checkpoints(h: Harness, sid: str) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = (await h.call("pi/checkpoints", {"sessionId": sid}))[
        "checkpoints"
    ]
    return result


async def _restore(h: Harness, sid: str, entry_id: str, mode: str) -> dict[str, Any]:
    params = {"sessionId": sid, "entryId": entry_id, "mode": mode}
    result: dict[str, Any] = await h.call("pi/restore", params)
    return result


async def test_restore_code_spares_the_user_edit(
    pi: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi(pi=faux(tmp_path, tool_reply("edit", EDIT), text_reply("ok")))
    uri = h.open(workspace / "a.py", SOURCE)
    sid = await h.run("change it")
    assert h.docs[uri][1] == EDITED
    (point,) = await _checkpoints(h, sid)
    assert (point["text"], point["files"]) == ("change it", [uri])
    assert point["timestamp"]
    h.set_text(uri, "# mine\n" + EDITED)  # the user types elsewhere after the agent's edit
    edits_before = len(h.edits)
    result = await _restore(h, sid, point["entryId"], "code")
    assert h.docs[uri][1] == "# mine\n" + SOURCE  # both: the user's line, the agent's gone
    assert result["reverted"] == [uri]
    assert result["conflicts"] == []
    assert result["sessionId"] == sid
    assert result["bashRan"] is False
    assert "text" not in result
    assert len(h.edits) == edits_before + 1  # one applyEdit for the one tool call
    assert (await h.call("pi/review", {"sessionId": sid}))["files"] == []  # not pending

    undone = await h.call("pi/undoRestore", {"sessionId": sid, "restoreId": result["restoreId"]})
    assert undone["reapplied"] == [uri]
    assert undone["conflicts"] == []
    assert h.docs[uri][1] == "# mine\n" + EDITED


async def test_restore_over_a_region_the_user_changed_is_a_conflict(
    pi: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi(pi=faux(tmp_path, tool_reply("edit", EDIT), text_reply("ok")))
    uri = h.open(workspace / "a.py", SOURCE)
    sid = await h.run("change it")
    (point,) = await _checkpoints(h, sid)
    typed = "def f():\n    return 2  # mine\n"
    h.set_text(uri, typed)
    result = await _restore(h, sid, point["entryId"], "code")
    assert h.docs[uri][1] == typed  # left as it is
    assert result["reverted"] == []
    ((conflict),) = result["conflicts"]
    assert conflict["uri"] == uri
    assert "line 2" in conflict["message"]


async def test_restore_conversation_forks_before_the_message(
    pi: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi(
        pi=faux(tmp_path, tool_reply("edit", EDIT), text_reply("ok"), text_reply("second answer"))
    )
    uri = h.open(workspace / "a.py", SOURCE)
    sid = await h.run("first")
    await h.run("second", sessionId=sid)
    first, second = await _checkpoints(h, sid)
    assert (first["text"], second["text"]) == ("first", "second")
    assert first["files"] == [uri]
    assert second["files"] == []
    result = await _restore(h, sid, second["entryId"], "conversation")
    assert result["text"] == "second"
    assert result["forkedFrom"] == sid
    new = result["sessionId"]
    assert new != sid
    assert result["reverted"] == []
    assert h.docs[uri][1] == EDITED
    resumed = await h.call("pi/resumeSession", {"sessionId": new})
    users = [m for m in resumed["messages"] if m["role"] == "user"]
    assert [m["content"] for m in users] == [[{"type": "text", "text": "first"}]]
    assert resumed["messages"][-1]["role"] == "assistant"
    # the fork keeps what the agent did after the checkpoints it copied
    (kept,) = await _checkpoints(h, new)
    assert kept["files"] == [uri]
    # a first message has nothing before it: an empty new session
    top = await _restore(h, sid, first["entryId"], "conversation")
    assert top["text"] == "first"
    assert (await h.call("pi/resumeSession", {"sessionId": top["sessionId"]}))["messages"] == []


async def test_restore_both_then_undo(pi: Start, tmp_path: Path, workspace: Path) -> None:
    h = await pi(
        pi=faux(
            tmp_path,
            tool_reply("edit", EDIT),
            text_reply("ok"),
            tool_reply("edit", RENAME),
            text_reply("renamed"),
        )
    )
    uri = h.open(workspace / "a.py", SOURCE)
    sid = await h.run("first")
    await h.run("rename it", sessionId=sid)
    assert h.docs[uri][1] == "def g():\n    return 2\n"
    _first, second = await _checkpoints(h, sid)
    assert second["files"] == [uri]
    result = await _restore(h, sid, second["entryId"], "both")
    assert h.docs[uri][1] == EDITED  # only what came after that message is reverted
    assert result["reverted"] == [uri]
    assert result["text"] == "rename it"
    new = result["sessionId"]
    assert new != sid
    undone = await h.call("pi/undoRestore", {"sessionId": new, "restoreId": result["restoreId"]})
    assert undone["reapplied"] == [uri]
    assert h.docs[uri][1] == "def g():\n    return 2\n"


async def test_revert_one_tool_call(pi: Start, tmp_path: Path, workspace: Path) -> None:
    h = await pi(
        pi=faux(
            tmp_path,
            tool_reply("edit", EDIT),
            tool_reply("edit", RENAME),
            text_reply("done"),
        )
    )
    uri = h.open(workspace / "a.py", SOURCE)
    sid = await h.run("two edits")
    assert len(h.edits) == 2  # one applyEdit per tool call: one undo step each
    first_call = h.tool_ends(sid)[0]["toolCallId"]
    result = await h.call("pi/revertToolCall", {"sessionId": sid, "toolCallId": first_call})
    assert h.docs[uri][1] == "def g():\n    return 1\n"
    assert result["reverted"] == [uri]
    assert result["conflicts"] == []
    assert len(h.edits) == 3
    pending = (await h.call("pi/review", {"sessionId": sid}))["files"]
    assert all(hk["toolCallId"] != first_call for f in pending for hk in f["hunks"])
    with pytest.raises(JsonRpcInvalidParams, match="nope"):
        await h.call("pi/revertToolCall", {"sessionId": sid, "toolCallId": "nope"})
    with pytest.raises(JsonRpcInvalidParams, match="nope"):
        await h.call("pi/restore", {"sessionId": sid, "entryId": "nope", "mode": "code"})
    with pytest.raises(JsonRpcInvalidParams, match="nope"):
        await h.call("pi/undoRestore", {"sessionId": sid, "restoreId": "nope"})


async def test_all_of_it_after_a_restart(pi: Start, tmp_path: Path, workspace: Path) -> None:
    script = faux(
        tmp_path,
        tool_reply("edit", EDIT),
        tool_reply("bash", {"command": "true"}),
        text_reply("ok"),
        permissions={"bash": "allow"},
    )
    h = await pi(pi=script)
    uri = h.open(workspace / "a.py", SOURCE)
    sid = await h.run("change it")
    call_id = h.tool_ends(sid)[0]["toolCallId"]
    await stop(h)

    h2 = await pi(pi=script)  # a new server process
    await h2.call("pi/resumeSession", {"sessionId": sid})
    h2.open(workspace / "a.py", "# mine\n" + EDITED)  # the editor still holds the buffer
    (point,) = await _checkpoints(h2, sid)
    assert point["files"] == [uri]
    result = await _restore(h2, sid, point["entryId"], "code")
    assert h2.docs[uri][1] == "# mine\n" + SOURCE
    assert result["bashRan"] is True
    assert "bash" in result["note"]
    undone = await h2.call("pi/undoRestore", {"sessionId": sid, "restoreId": result["restoreId"]})
    assert undone["reapplied"] == [uri]
    assert h2.docs[uri][1] == "# mine\n" + EDITED
    reverted = await h2.call("pi/revertToolCall", {"sessionId": sid, "toolCallId": call_id})
    assert reverted["reverted"] == [uri]
    assert h2.docs[uri][1] == "# mine\n" + SOURCE
    both = await _restore(h2, sid, point["entryId"], "both")
    assert both["text"] == "change it"
    assert both["sessionId"] != sid


async def test_a_restore_while_the_session_runs_is_refused(
    pi: Start, srv: ScriptedHTTPServer
) -> None:
    gate = Pause(asyncio.Event())
    srv.enqueue(response(text_events("A slow answer.", 6), gate=gate))
    h = await pi(pi=http_settings(srv))
    sid = (await h.call("pi/prompt", {"text": "start"}))["sessionId"]
    await h.wait_event(sid, "message_update")
    (point,) = await _checkpoints(h, sid)
    with pytest.raises(JsonRpcException, match="running") as info:
        await _restore(h, sid, point["entryId"], "code")
    assert info.value.code == -32803
    gate.event.set()
    await h.wait_event(sid, "agent_end")
    result = await _restore(h, sid, point["entryId"], "code")
    assert result["reverted"] == []
