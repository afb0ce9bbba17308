"""docs/protocol.md#review-hunks-keep-or-undo-each-change-91 over the real server: applied edits
become hunks (``review_update``,
``pi/review``), they move with the user's typing, keep / undo per hunk, an undo of a region
the user changed is a conflict, and the model's next request carries the undo note."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.support.http_server import ScriptedHTTPServer

from .conftest import Start, http_settings
from .harness import NVIM_011, VSCODE, text_reply, tool_reply
from .openai_sse import response, text_events, tool_events
from .test_editor_files import EDIT, faux

SOURCE = "def f():\n    return 1\n"


def _updates(h: Any, sid: str) -> list[dict[str, Any]]:
    return [e["event"] for e in h.session_events(sid) if e["event"]["type"] == "review_update"]


async def _edited(pi: Start, tmp_path: Path, workspace: Path, client: str) -> tuple[Any, str, str]:
    h = await pi(capabilities=client, pi=faux(tmp_path, tool_reply("edit", EDIT), text_reply("ok")))
    uri = h.open(workspace / "a.py", SOURCE)
    sid = await h.run("change it")
    return h, uri, sid


async def test_an_edit_becomes_a_pending_hunk(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h, uri, sid = await _edited(pi_in_process, tmp_path, workspace, VSCODE)
    (update,) = _updates(h, sid)
    snapshot = await h.call("pi/review", {"sessionId": sid})
    assert snapshot["files"] == update["files"]
    ((file,),) = [snapshot["files"]]
    assert file["uri"] == uri
    (hunk,) = file["hunks"]
    assert hunk["oldText"] == "    return 1\n"
    assert hunk["newText"] == "    return 2\n"
    assert hunk["range"] == {
        "start": {"line": 1, "character": 0},
        "end": {"line": 2, "character": 0},
    }
    assert hunk["toolCallId"]
    result = await h.call(
        "pi/reviewDecision",
        {"sessionId": sid, "decisions": [{"hunkId": hunk["id"], "decision": "keep"}]},
    )
    assert result == {"applied": [hunk["id"]], "conflicts": []}
    assert (await h.call("pi/review", {"sessionId": sid}))["files"] == []
    assert _updates(h, sid)[-1]["files"] == []


@pytest.mark.parametrize("client", [VSCODE, NVIM_011])
async def test_typing_above_moves_the_hunk_and_undo_spares_it(
    pi_in_process: Start, tmp_path: Path, workspace: Path, client: str
) -> None:
    h, uri, sid = await _edited(pi_in_process, tmp_path, workspace, client)
    (hunk,) = (await h.call("pi/review", {"sessionId": sid}))["files"][0]["hunks"]
    h.set_text(uri, "# mine\n" + h.docs[uri][1])
    result = await h.call(
        "pi/reviewDecision",
        {"sessionId": sid, "decisions": [{"hunkId": hunk["id"], "decision": "undo"}]},
    )
    assert result == {"applied": [hunk["id"]], "conflicts": []}
    assert h.docs[uri][1] == "# mine\n" + SOURCE


async def test_typing_inside_makes_the_undo_a_conflict(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h, uri, sid = await _edited(pi_in_process, tmp_path, workspace, VSCODE)
    (hunk,) = (await h.call("pi/review", {"sessionId": sid}))["files"][0]["hunks"]
    typed = "def f():\n    return 2  # mine\n"
    h.set_text(uri, typed)
    result = await h.call(
        "pi/reviewDecision",
        {"sessionId": sid, "decisions": [{"hunkId": hunk["id"], "decision": "undo"}]},
    )
    assert result["applied"] == []
    (conflict,) = result["conflicts"]
    assert conflict["hunkId"] == hunk["id"]
    assert h.docs[uri][1] == typed


async def test_the_undo_reaches_the_models_next_request(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path
) -> None:
    srv.enqueue(response(tool_events([("edit", EDIT)])))
    srv.enqueue(response(text_events("done")))
    srv.enqueue(response(text_events("understood")))
    h = await pi_in_process(capabilities=VSCODE, pi=http_settings(srv))
    uri = h.open(workspace / "a.py", SOURCE)
    sid = await h.run("change it")
    (hunk,) = (await h.call("pi/review", {"sessionId": sid}))["files"][0]["hunks"]
    decision = {"hunkId": hunk["id"], "decision": "undo", "reason": "keep returning 1"}
    result = await h.call("pi/reviewDecision", {"sessionId": sid, "decisions": [decision]})
    assert result["applied"] == [hunk["id"]]
    assert h.docs[uri][1] == SOURCE
    await h.run("go on", sessionId=sid)
    prompt, note = srv.requests[-1].json["messages"][-2:]
    assert prompt == {"role": "user", "content": "go on"} or "go on" in str(prompt["content"])
    assert note["role"] == "user"
    sent = str(note["content"])
    assert "undid" in sent
    assert "a.py lines 2-2" in sent
    assert "return 2" in sent
    assert "keep returning 1" in sent
    assert "go on" not in sent


async def test_changes_unchecked_in_the_preview_are_told_to_the_model(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    source = "def f():\n    return 1\n\n\ndef h():\n    return 3\n"
    two = {
        "path": "a.py",
        "edits": [
            {"oldText": "return 1", "newText": "return 2"},
            {"oldText": "return 3", "newText": "return 4"},
        ],
    }
    h = await pi_in_process(
        capabilities=VSCODE,
        pi=faux(tmp_path, tool_reply("edit", two), text_reply("ok"), edits="confirm"),
    )
    uri = h.open(workspace / "a.py", source)

    def uncheck_the_second(params: Any) -> Any:
        (doc_edit,) = params.edit.document_changes
        doc_edit.edits = doc_edit.edits[:1]
        return types.ApplyWorkspaceEditResult(applied=True)

    h.edit_answer = uncheck_the_second
    sid = await h.run("change both")
    (end,) = h.tool_ends(sid)
    text = "".join(b.get("text", "") for b in end["result"]["content"])
    assert h.docs[uri][1] == source.replace("return 1", "return 2")
    assert "unchecked" in text
    assert "line 6: not applied" in text
    assert "return 4" in text
    (hunk,) = (await h.call("pi/review", {"sessionId": sid}))["files"][0]["hunks"]
    assert hunk["newText"] == "    return 2\n"
