"""docs/protocol.md#review-hunks-keep-or-undo-each-change-91, the note timing: an undo reaches
the model with the session's next model call — exactly once, whichever run makes it — for
every moment the user can press Undo. In process (the subject is server logic); each moment
is reached by synchronising on events: the client's answer to the undo edit held back, an
agent listener holding the run at ``message_end`` / ``agent_end``, a permission question left
open."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from pi_lsp.lsp.editor import review_book
from pi_lsp.lsp.editor.review_notes import UNDO_NOTE_HEAD
from tests.support.http_server import RecordedRequest, ScriptedHTTPServer, ScriptedResponse

from .conftest import Start, http_settings
from .harness import VSCODE, Harness, stop
from .openai_sse import response, text_events, tool_events
from .test_editor_files import EDIT

SOURCE = "def f():\n    return 1\n"


async def _edited(
    pi: Start, srv: ScriptedHTTPServer, workspace: Path, *later: ScriptedResponse, **extra: Any
) -> tuple[Harness, str, str, dict[str, Any]]:
    """A session whose first run made one edit (one pending hunk); ``later`` are the model's
    replies after it."""
    srv.enqueue(response(tool_events([("edit", EDIT)])), response(text_events("done")), *later)
    h = await pi(capabilities=VSCODE, pi=http_settings(srv, **extra))
    uri = h.open(workspace / "a.py", SOURCE)
    sid = await h.run("change it")
    (hunk,) = (await h.call("pi/review", {"sessionId": sid}))["files"][0]["hunks"]
    return h, uri, sid, hunk


def _undo(sid: str, hunk: dict[str, Any]) -> dict[str, Any]:
    return {"sessionId": sid, "decisions": [{"hunkId": hunk["id"], "decision": "undo"}]}


def _notes(request: RecordedRequest) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = request.json["messages"]
    return [m for m in messages if UNDO_NOTE_HEAD in str(m.get("content"))]


def _told_once(request: RecordedRequest) -> dict[str, Any]:
    """The request carries the note once, as a user message of its own, as its last one."""
    (note,) = _notes(request)
    assert note["role"] == "user"
    assert request.json["messages"][-1] == note
    assert "a.py lines 2-2" in str(note["content"])
    assert "return 2" in str(note["content"])
    return note


async def _ends(h: Harness, sid: str, count: int) -> None:
    await h.wait_event(sid, "agent_end", count)


def _hold(h: Harness, sid: str, when: Callable[[Any], bool]) -> tuple[asyncio.Event, asyncio.Event]:
    """Hold the session's run inside the first event ``when`` accepts: returns (reached,
    release)."""
    assert h.local is not None
    agent = h.local.server.manager.get(sid).session.agent
    reached, release = asyncio.Event(), asyncio.Event()

    async def listener(event: Any, _signal: Any) -> None:
        if not reached.is_set() and when(event):
            reached.set()
            await release.wait()

    agent.subscribe(listener)
    return reached, release


async def test_a_prompt_sent_right_after_the_undo_carries_the_note(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path
) -> None:
    """Both clients send the decision and, at once, the prompt; the editor answers the undo
    edit only after the prompt has started its run."""
    h, uri, sid, hunk = await _edited(pi_in_process, srv, workspace, response(text_events("yes")))
    features = h.client.protocol.fm.features
    plain: Callable[[Any], Any] = features[types.WORKSPACE_APPLY_EDIT]
    answer = asyncio.Event()

    async def late(params: Any) -> Any:
        await answer.wait()
        return plain(params)

    features[types.WORKSPACE_APPLY_EDIT] = late
    decided = asyncio.ensure_future(h.call("pi/reviewDecision", _undo(sid, hunk)))
    prompted = asyncio.ensure_future(
        h.call("pi/prompt", {"sessionId": sid, "text": "did I change anything?"})
    )
    assert (await prompted)["delivered"] == "prompt"
    answer.set()
    assert (await decided)["applied"] == [hunk["id"]]
    await _ends(h, sid, 2)
    assert len(srv.requests) == 3
    _told_once(srv.requests[2])
    assert h.docs[uri][1] == SOURCE


async def test_an_undo_while_a_permission_question_waits_reaches_the_next_call(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path
) -> None:
    """Undo during a tool call (its permission question open): the model's call after the
    tool carries the note."""
    h, _uri, sid, hunk = await _edited(
        pi_in_process,
        srv,
        workspace,
        response(tool_events([("bash", {"command": "true"})])),
        response(text_events("ok")),
        response(text_events("later")),
    )
    prompted = asyncio.ensure_future(h.call("pi/prompt", {"sessionId": sid, "text": "run it"}))
    await h.wait_for(lambda: h.prompts)
    assert (await h.call("pi/reviewDecision", _undo(sid, hunk)))["applied"] == [hunk["id"]]
    h.prompt_answers.put_nowait("Allow")
    await prompted
    await _ends(h, sid, 2)
    assert len(srv.requests) == 4
    assert _notes(srv.requests[2]) == []
    _told_once(srv.requests[3])
    await h.run("and now?", sessionId=sid)
    assert len(_notes(srv.requests[4])) == 1  # told once: the note stays in the history


async def test_an_undo_between_the_last_answer_and_agent_end_waits_for_the_next_call(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path
) -> None:
    """The run's last model call is over: the note costs no extra call, it rides with the
    next prompt's call."""
    h, _uri, sid, hunk = await _edited(
        pi_in_process, srv, workspace, response(text_events("hi")), response(text_events("yes"))
    )
    reached, release = _hold(
        h,
        sid,
        lambda e: e.type == "message_end" and getattr(e.message, "role", "") == "assistant",
    )
    prompted = asyncio.ensure_future(h.call("pi/prompt", {"sessionId": sid, "text": "say hi"}))
    await reached.wait()
    assert (await h.call("pi/reviewDecision", _undo(sid, hunk)))["applied"] == [hunk["id"]]
    release.set()
    await prompted
    await _ends(h, sid, 2)
    assert len(srv.requests) == 3  # no call for the note alone
    assert _notes(srv.requests[2]) == []
    await h.run("did I change anything?", sessionId=sid)
    _told_once(srv.requests[3])


async def test_an_undo_after_agent_end_before_idle_reaches_the_next_run(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path
) -> None:
    h, _uri, sid, hunk = await _edited(
        pi_in_process, srv, workspace, response(text_events("hi")), response(text_events("yes"))
    )
    reached, release = _hold(h, sid, lambda e: e.type == "agent_end")
    prompted = asyncio.ensure_future(h.call("pi/prompt", {"sessionId": sid, "text": "say hi"}))
    await reached.wait()
    assert (await h.call("pi/reviewDecision", _undo(sid, hunk)))["applied"] == [hunk["id"]]
    release.set()
    await prompted
    await _ends(h, sid, 2)
    await h.wait_for(lambda: not h.local or not h.local.server.manager.get(sid).running)
    await h.run("did I change anything?", sessionId=sid)
    assert len(srv.requests) == 4
    _told_once(srv.requests[3])


async def test_an_undo_while_idle_rides_with_the_next_prompt_and_is_kept(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path
) -> None:
    """Idle: the note joins the next call once, as a message of its own (the user's words
    stay as typed), and the session's transcript keeps it as a review note."""
    h, _uri, sid, hunk = await _edited(
        pi_in_process, srv, workspace, response(text_events("yes")), response(text_events("fine"))
    )
    await h.call("pi/reviewDecision", _undo(sid, hunk))
    await h.run("did I change anything?", sessionId=sid)
    note = _told_once(srv.requests[2])
    assert srv.requests[2].json["messages"][-2]["content"] == "did I change anything?"
    await h.run("thanks", sessionId=sid)
    assert _notes(srv.requests[3]) == [note]
    ends = [e["event"] for e in h.session_events(sid) if e["event"]["type"] == "message_end"]
    (marker,) = [e["message"] for e in ends if e["message"]["role"] == "custom"]
    assert marker["customType"] == "review_note"
    assert marker["details"] == {"summary": "you undid a.py line 2"}


# ------------------------------------------------------------------ the editor's own undo


async def test_the_editors_undo_is_an_undo(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path
) -> None:
    """Ctrl+Z / ``u`` (or retyping the old text) on the agent's change: the hunk stops pending
    and the model is told, as for Undo in the review UI."""
    h, uri, sid, hunk = await _edited(pi_in_process, srv, workspace, response(text_events("ok")))
    h.set_text(uri, SOURCE)
    await h.wait_for(lambda: _updates(h, sid)[-1]["files"] == [])
    assert (await h.call("pi/review", {"sessionId": sid}))["files"] == []
    again = await h.call("pi/reviewDecision", _undo(sid, hunk))
    assert again["applied"] == []
    assert len(again["conflicts"]) == 1
    assert h.docs[uri][1] == SOURCE
    await h.run("did I change anything?", sessionId=sid)
    note = _told_once(srv.requests[2])
    assert "editor's undo" in str(note["content"])


async def test_neovims_undo_in_two_states_is_an_undo(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path
) -> None:
    """Neovim sends ``u`` as two didChange states (a blank line added, then the old line
    back): the character diff puts the line break on the other side of the hunk's end; the
    hunk is still seen as undone."""
    h, uri, sid, _hunk = await _edited(pi_in_process, srv, workspace)
    h.set_text(uri, SOURCE.replace("return 1", "return 2") + "\n")
    h.set_text(uri, SOURCE)
    assert (await h.call("pi/review", {"sessionId": sid}))["files"] == []


async def test_a_partial_revert_is_the_users_edit(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path
) -> None:
    source = "def f():\n    a = 1\n    return 1\n"
    two = {
        "path": "a.py",
        "edits": [{"oldText": "a = 1\n    return 1", "newText": "a = 2\n    return 2"}],
    }
    srv.enqueue(response(tool_events([("edit", two)])), response(text_events("done")))
    srv.enqueue(response(text_events("ok")))
    h = await pi_in_process(capabilities=VSCODE, pi=http_settings(srv))
    uri = h.open(workspace / "a.py", source)
    sid = await h.run("change it")
    h.set_text(uri, "def f():\n    a = 1\n    return 2\n")  # pi/review comes after it
    (hunk,) = (await h.call("pi/review", {"sessionId": sid}))["files"][0]["hunks"]
    assert hunk["range"]["start"]["line"] == 1
    await h.run("go on", sessionId=sid)
    assert _notes(srv.requests[2]) == []


def _updates(h: Harness, sid: str) -> list[dict[str, Any]]:
    return [e["event"] for e in h.session_events(sid) if e["event"]["type"] == "review_update"]


async def test_changes_unchecked_in_the_preview_come_as_the_same_note(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path
) -> None:
    """``edits: "confirm"``: what the user unchecked in the refactor preview reaches the
    model's next call as the review note, like an undo."""
    source = "def f():\n    return 1\n\n\ndef h():\n    return 3\n"
    two = {
        "path": "a.py",
        "edits": [
            {"oldText": "return 1", "newText": "return 2"},
            {"oldText": "return 3", "newText": "return 4"},
        ],
    }
    srv.enqueue(response(tool_events([("edit", two)])), response(text_events("done")))
    h = await pi_in_process(capabilities=VSCODE, pi=http_settings(srv, edits="confirm"))
    uri = h.open(workspace / "a.py", source)

    def uncheck_the_second(params: Any) -> Any:
        (doc_edit,) = params.edit.document_changes
        doc_edit.edits = doc_edit.edits[:1]
        return types.ApplyWorkspaceEditResult(applied=True)

    h.edit_answer = uncheck_the_second
    sid = await h.run("change both")
    assert h.docs[uri][1] == source.replace("return 1", "return 2")
    (note,) = _notes(srv.requests[1])
    assert srv.requests[1].json["messages"][-1] == note
    text = str(note["content"])
    assert "a.py lines 6-6: unchecked in the preview" in text
    assert "return 4" in text
    assert "return 2" not in text
    ends = [e["event"] for e in h.session_events(sid) if e["event"]["type"] == "message_end"]
    (marker,) = [e["message"] for e in ends if e["message"]["role"] == "custom"]
    assert marker["details"] == {"summary": "you unchecked a.py line 6"}


# ------------------------------------------------------------------ restarts and slow editors


async def test_a_note_waiting_at_a_restart_is_told_once_after_it(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path
) -> None:
    """The undo is saved in the session file as it is queued: a server restarted before the
    next model call (an update, a crash, the idle timeout) still tells the model — once, not
    again after a second restart."""
    h, _uri, sid, hunk = await _edited(pi_in_process, srv, workspace)
    try:
        await h.call("pi/reviewDecision", _undo(sid, hunk))
    finally:
        await stop(h)
    srv.enqueue(response(text_events("yes")), response(text_events("fine")))
    h2 = await pi_in_process(capabilities=VSCODE, pi=http_settings(srv))
    try:
        await h2.call("pi/resumeSession", {"sessionId": sid})
        await h2.run("did I change anything?", sessionId=sid)
        note = _told_once(srv.requests[2])
    finally:
        await stop(h2)
    srv.enqueue(response(text_events("ok")))
    h3 = await pi_in_process(capabilities=VSCODE, pi=http_settings(srv))
    await h3.call("pi/resumeSession", {"sessionId": sid})
    await h3.run("and now?", sessionId=sid)
    assert _notes(srv.requests[3]) == [note]  # in the history once, not told again


async def test_a_call_that_gives_up_waiting_for_a_slow_undo_says_so(
    pi_in_process: Start,
    srv: ScriptedHTTPServer,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The editor takes longer than ``SETTLE_TIMEOUT`` to apply the undo: the model call goes
    without the note, the client's log says why, and the note rides with the next call."""
    monkeypatch.setattr(review_book, "SETTLE_TIMEOUT", 0.2)
    h, _uri, sid, hunk = await _edited(
        pi_in_process, srv, workspace, response(text_events("yes")), response(text_events("ok"))
    )
    features = h.client.protocol.fm.features
    plain: Callable[[Any], Any] = features[types.WORKSPACE_APPLY_EDIT]
    answer = asyncio.Event()
    applying = asyncio.Event()  # the server is applying the undo: the decision is under way

    async def late(params: Any) -> Any:
        applying.set()
        await answer.wait()
        return plain(params)

    features[types.WORKSPACE_APPLY_EDIT] = late
    decided = asyncio.ensure_future(h.call("pi/reviewDecision", _undo(sid, hunk)))
    await applying.wait()  # else the prompt can reach the server before the decision does
    await h.run("did I change anything?", sessionId=sid)
    assert _notes(srv.requests[2]) == []
    (late_note,) = [m for m in h.client.log_messages if "without its note" in m.message]
    assert late_note.type == types.MessageType.Warning
    answer.set()
    assert (await decided)["applied"] == [hunk["id"]]
    await h.run("and now?", sessionId=sid)
    _told_once(srv.requests[3])
