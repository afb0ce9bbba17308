"""docs/protocol.md#checkpoints-restore-revert-one-tool-call-95 over the real server: every user
message is a checkpoint; ``pi/restore`` takes the agent's later changes back out sparing the user's
own edits (an overlap is a conflict), forks the conversation before that message and returns its
text;
``pi/undoRestore`` puts a restore back; ``pi/revertToolCall`` reverts one tool call; and all of
it works after a server restart (the records live beside the session file)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from tests.support.http_server import Pause, ScriptedHTTPServer

from .conftest import Start, http_settings
from .harness import VSCODE, stop, text_reply, tool_reply
from .openai_sse import response, text_events
from .test_editor_files import faux

SOURCE = "def f():\n    return 1\n\n\ndef g():\n    return 10\n"
EDIT_F = {"path": "a.py", "edits": [{"oldText": "return 1\n", "newText": "return 2\n"}]}
EDIT_G = {"path": "a.py", "edits": [{"oldText": "return 10", "newText": "return 20"}]}
NEW_FILE = {"path": "new.py", "content": "print('new')\n"}


def _script(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    """Two prompts: the first edits f(), the second edits g() and writes new.py."""
    return faux(
        tmp_path,
        tool_reply("edit", EDIT_F),
        text_reply("f changed"),
        tool_reply("edit", EDIT_G),
        tool_reply("write", NEW_FILE),
        text_reply("g changed, new.py written"),
        **extra,
    )


async def _two_prompts(h: Any, workspace: Path) -> tuple[str, str]:
    uri = h.open(workspace / "a.py", SOURCE)
    sid = await h.run("change f")
    await h.run("change g", sessionId=sid)
    return uri, sid


async def test_checkpoints_list_user_messages_and_the_files_changed_after_them(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(capabilities=VSCODE, pi=_script(tmp_path))
    uri, sid = await _two_prompts(h, workspace)
    cps = (await h.call("pi/checkpoints", {"sessionId": sid}))["checkpoints"]
    assert [c["text"] for c in cps] == ["change f", "change g"]
    new_uri = (workspace / "new.py").as_uri()
    assert set(cps[0]["files"]) == {uri, new_uri}
    assert set(cps[1]["files"]) == {uri, new_uri}
    assert all(isinstance(c["timestamp"], int) and c["entryId"] for c in cps)


async def test_restore_code_spares_the_users_edit_and_undo_restore_puts_it_back(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(capabilities=VSCODE, pi=_script(tmp_path))
    uri, sid = await _two_prompts(h, workspace)
    assert h.docs[uri][1] == SOURCE.replace("return 1\n", "return 2\n").replace("10", "20")
    mine = "# mine\n" + h.docs[uri][1]  # the user types above, after the agent's edits
    h.set_text(uri, mine)
    cps = (await h.call("pi/checkpoints", {"sessionId": sid}))["checkpoints"]
    result = await h.call(
        "pi/restore", {"sessionId": sid, "entryId": cps[1]["entryId"], "mode": "code"}
    )
    assert result["conflicts"] == []
    assert result["sessionId"] == sid
    assert uri in result["reverted"]
    # g() is back, f() keeps the first prompt's change, the user's line stays
    assert h.docs[uri][1] == "# mine\n" + SOURCE.replace("return 1\n", "return 2\n")
    assert (workspace / "new.py").read_text() == ""  # created by the agent: emptied
    # the conversation is untouched in code mode
    state = await h.call("pi/state", {"sessionId": sid})
    assert state["messageCount"] > 4

    undo = await h.call("pi/undoRestore", {"sessionId": sid, "restoreId": result["restoreId"]})
    assert undo["conflicts"] == []
    assert h.docs[uri][1] == mine
    assert (workspace / "new.py").read_text() == "print('new')\n"
    with pytest.raises(JsonRpcInvalidParams, match="no restore"):
        await h.call("pi/undoRestore", {"sessionId": sid, "restoreId": result["restoreId"]})


async def test_a_region_the_user_changed_is_a_conflict_left_alone(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(capabilities=VSCODE, pi=_script(tmp_path))
    uri, sid = await _two_prompts(h, workspace)
    typed = h.docs[uri][1].replace("return 20", "return 20  # keep this")
    h.set_text(uri, typed)
    cps = (await h.call("pi/checkpoints", {"sessionId": sid}))["checkpoints"]
    result = await h.call(
        "pi/restore", {"sessionId": sid, "entryId": cps[1]["entryId"], "mode": "code"}
    )
    (conflict,) = result["conflicts"]
    assert conflict["uri"] == uri
    assert "changed the same lines" in conflict["message"]
    assert h.docs[uri][1] == typed  # nothing of the user's touched


async def test_restore_conversation_forks_before_the_message_and_returns_its_text(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(capabilities=VSCODE, pi=_script(tmp_path))
    uri, sid = await _two_prompts(h, workspace)
    edited = h.docs[uri][1]
    cps = (await h.call("pi/checkpoints", {"sessionId": sid}))["checkpoints"]
    result = await h.call(
        "pi/restore", {"sessionId": sid, "entryId": cps[1]["entryId"], "mode": "conversation"}
    )
    assert result["text"] == "change g"
    assert result["sessionId"] != sid
    assert result["reverted"] == []
    assert h.docs[uri][1] == edited  # code untouched
    resumed = await h.call("pi/resumeSession", {"sessionId": result["sessionId"]})
    roles = [m["role"] for m in resumed["messages"]]
    assert roles[0] == "user"
    assert roles[-1] == "assistant"  # ends with the answer to "change f"
    texts = [m["content"] for m in resumed["messages"] if m["role"] == "user"]
    assert len(texts) == 1

    first = await h.call(
        "pi/restore", {"sessionId": sid, "entryId": cps[0]["entryId"], "mode": "both"}
    )
    assert first["text"] == "change f"
    assert h.docs[uri][1] == SOURCE
    fresh = await h.call("pi/resumeSession", {"sessionId": first["sessionId"]})
    assert fresh["messages"] == []


async def test_revert_one_tool_call(pi_in_process: Start, tmp_path: Path, workspace: Path) -> None:
    h = await pi_in_process(capabilities=VSCODE, pi=_script(tmp_path))
    uri, sid = await _two_prompts(h, workspace)
    starts = [
        e["event"] for e in h.session_events(sid) if e["event"]["type"] == "tool_execution_start"
    ]
    first_edit = starts[0]["toolCallId"]
    result = await h.call("pi/revertToolCall", {"sessionId": sid, "toolCallId": first_edit})
    assert result["reverted"] == [uri]
    assert h.docs[uri][1] == SOURCE.replace("return 10", "return 20")  # only f() reverted
    with pytest.raises(JsonRpcInvalidParams, match="nope"):
        await h.call("pi/revertToolCall", {"sessionId": sid, "toolCallId": "nope"})


async def test_bash_after_the_checkpoint_is_reported(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(
        capabilities=VSCODE,
        pi=faux(
            tmp_path,
            tool_reply("edit", EDIT_F),
            tool_reply("bash", {"command": "echo hi > made.txt"}),
            text_reply("done"),
            permissions={"bash": "allow"},
        ),
    )
    uri = h.open(workspace / "a.py", SOURCE)
    sid = await h.run("go")
    (cp,) = (await h.call("pi/checkpoints", {"sessionId": sid}))["checkpoints"]
    result = await h.call(
        "pi/restore", {"sessionId": sid, "entryId": cp["entryId"], "mode": "code"}
    )
    assert result["bashRan"] is True
    assert "not tracked" in result["note"]
    assert h.docs[uri][1] == SOURCE
    assert (workspace / "made.txt").exists()


async def test_unknown_checkpoint_and_a_running_session_are_refused(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(capabilities=VSCODE, pi=_script(tmp_path))
    _uri, sid = await _two_prompts(h, workspace)
    with pytest.raises(JsonRpcInvalidParams, match="not a checkpoint"):
        await h.call("pi/restore", {"sessionId": sid, "entryId": "deadbeef", "mode": "code"})
    with pytest.raises(JsonRpcInvalidParams):
        await h.call("pi/checkpoints", {"sessionId": "no-such-session"})


async def test_restore_after_a_server_restart(
    pi_in_process: Start, tmp_path: Path, workspace: Path, data_dir: Path
) -> None:
    settings = _script(tmp_path)
    (workspace / "a.py").write_text(SOURCE)
    h = await pi_in_process(capabilities=VSCODE, pi=settings)
    try:
        uri, sid = await _two_prompts(h, workspace)
    finally:
        await stop(h)
    edited = (workspace / "a.py").read_text()  # saved: the buffer had no changes of its own
    assert "return 20" in edited
    h2 = await pi_in_process(capabilities=VSCODE, pi=settings)
    try:
        await h2.call("pi/resumeSession", {"sessionId": sid})
        uri = h2.open(workspace / "a.py", edited)
        h2.set_text(uri, "# mine\n" + edited)
        cps = (await h2.call("pi/checkpoints", {"sessionId": sid}))["checkpoints"]
        assert [c["text"] for c in cps] == ["change f", "change g"]
        result = await h2.call(
            "pi/restore", {"sessionId": sid, "entryId": cps[0]["entryId"], "mode": "code"}
        )
        assert result["conflicts"] == []
        assert h2.docs[uri][1] == "# mine\n" + SOURCE
        undo = await h2.call("pi/undoRestore", {"sessionId": sid, "restoreId": result["restoreId"]})
        assert undo["conflicts"] == []
        assert h2.docs[uri][1] == "# mine\n" + edited
    finally:
        await stop(h2)


async def test_restore_goes_hunk_by_hunk_one_apply_edit_per_tool_call(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    """One tool call changed two places; the user then changed one of them. The restore
    takes the other back (one ``workspace/applyEdit``), leaves the user's and says so; the
    reverted hunk leaves review, the one left in place stays pending."""
    both = {"path": "a.py", "edits": [*EDIT_F["edits"], *EDIT_G["edits"]]}
    h = await pi_in_process(
        capabilities=VSCODE, pi=faux(tmp_path, tool_reply("edit", both), text_reply("ok"))
    )
    uri = h.open(workspace / "a.py", SOURCE)
    sid = await h.run("change both")
    assert len(h.edits) == 1  # the tool call is one undo step in the editor
    typed = h.docs[uri][1].replace("return 20", "return 20  # keep this")
    h.set_text(uri, typed)
    (cp,) = (await h.call("pi/checkpoints", {"sessionId": sid}))["checkpoints"]
    result = await h.call(
        "pi/restore", {"sessionId": sid, "entryId": cp["entryId"], "mode": "code"}
    )
    assert h.docs[uri][1] == typed.replace("return 2\n", "return 1\n")
    assert len(h.edits) == 2
    assert result["reverted"] == [uri]
    (conflict,) = result["conflicts"]
    assert "line 6" in conflict["message"]
    pending = (await h.call("pi/review", {"sessionId": sid}))["files"]
    assert [hk["newText"] for f in pending for hk in f["hunks"]] == ["    return 20\n"]


async def test_a_restore_while_the_session_runs_is_refused(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    gate = Pause(asyncio.Event())
    srv.enqueue(response(text_events("A slow answer.", 6), gate=gate))
    h = await pi_in_process(pi=http_settings(srv))
    sid = (await h.call("pi/prompt", {"text": "start"}))["sessionId"]
    await h.wait_event(sid, "message_update")
    (cp,) = (await h.call("pi/checkpoints", {"sessionId": sid}))["checkpoints"]
    params = {"sessionId": sid, "entryId": cp["entryId"], "mode": "code"}
    with pytest.raises(JsonRpcException, match="running") as info:
        await h.call("pi/restore", params)
    assert info.value.code == -32803
    gate.event.set()
    await h.wait_event(sid, "agent_end")
    assert (await h.call("pi/restore", params))["reverted"] == []


async def test_the_fork_keeps_its_checkpoints_and_the_text_leaves_out_the_review_note(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(
        capabilities=VSCODE,
        pi=faux(tmp_path, tool_reply("edit", EDIT_F), text_reply("ok"), text_reply("fine")),
    )
    uri = h.open(workspace / "a.py", SOURCE)
    sid = await h.run("change f")
    (hunk,) = (await h.call("pi/review", {"sessionId": sid}))["files"][0]["hunks"]
    decision = {"hunkId": hunk["id"], "decision": "undo", "reason": "no"}
    await h.call("pi/reviewDecision", {"sessionId": sid, "decisions": [decision]})
    await h.run("then stop", sessionId=sid)  # the undo note is joined to this prompt
    cps = (await h.call("pi/checkpoints", {"sessionId": sid}))["checkpoints"]
    assert [c["text"] for c in cps] == ["change f", "then stop"]
    result = await h.call(
        "pi/restore", {"sessionId": sid, "entryId": cps[1]["entryId"], "mode": "conversation"}
    )
    assert result["text"] == "then stop"
    (kept,) = (await h.call("pi/checkpoints", {"sessionId": result["sessionId"]}))["checkpoints"]
    assert kept["text"] == "change f"
    assert kept["files"] == [uri]
