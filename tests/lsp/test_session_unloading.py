"""Idle sessions are unloaded (bounded number live) and come back from their files on demand.

In the in-process tier: the bound is lowered to one so a handful of sessions shows it."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.lsp.host import session_manager

from .conftest import Start
from .harness import text_reply, write_script


def faux(tmp_path: Path, *responses: dict[str, Any]) -> dict[str, Any]:
    script = write_script(tmp_path / "script.json", list(responses))
    return {"provider": "faux", "fauxScript": str(script)}


def lock_is_free(path: Path) -> bool:
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return True
    finally:
        os.close(fd)


async def test_idle_sessions_are_unloaded_and_reload_from_their_files(
    pi_in_process: Start, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session_manager, "MAX_IDLE_SESSIONS", 1)
    h = await pi_in_process(pi=faux(tmp_path, *(text_reply(f"answer {i}") for i in range(4))))
    assert h.local is not None
    manager = h.local.server.manager
    ids = []
    for i in range(3):  # three sessions, each with an exchange on disk
        sid = (await h.call("pi/newSession", {}))["sessionId"]
        await h.run(f"question {i}", sessionId=sid)
        await h.wait_event(sid, "agent_end")
        ids.append(sid)
    await h.call("pi/newSession", {})  # a fourth, current: the oldest idle ones go
    await manager.stop_all()  # (waits for the unloads in flight too)
    # least recently used first: the bound (1) plus the one just loaded stay
    assert ids[0] not in manager.sessions
    assert ids[1] in manager.sessions
    assert ids[2] in manager.sessions
    # its file is closed (lock released) and nothing of it was lost
    path = manager.store.path_of(ids[0])
    assert path is not None
    assert lock_is_free(path)
    listed = {s["sessionId"]: s for s in (await h.call("pi/sessions", {}))["sessions"]}
    assert listed[ids[0]]["messageCount"] == 2
    last_seq = max(e["seq"] for e in h.session_events(ids[0]))
    resumed = await h.call("pi/resumeSession", {"sessionId": ids[0]})
    assert resumed["sessionId"] == ids[0]  # not a fork: nobody holds it any more
    texts = [
        m["content"][0]["text"] if isinstance(m["content"], list) else m["content"]
        for m in resumed["messages"]
    ]
    assert texts == ["question 0", "answer 0"]
    replay = await h.call("pi/replay", {"sessionId": ids[0], "afterSeq": last_seq})
    # nothing from before the unload comes back (the client had it); what resuming sent
    # (the restored queue) continues the numbering
    assert [e["seq"] for e in replay["events"]] == list(
        range(last_seq + 1, last_seq + 1 + len(replay["events"]))
    )
    assert replay["complete"] is True
    # new events continue the numbering the client has seen
    await h.run("question again", sessionId=ids[0])
    new = [e["seq"] for e in h.session_events(ids[0]) if e["seq"] > last_seq]
    assert new
    assert min(new) == last_seq + 1


async def test_a_running_session_is_never_unloaded(
    pi_in_process: Start, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session_manager, "MAX_IDLE_SESSIONS", 0)
    slow = {**text_reply("a long answer " * 40), "delayMs": 5, "chunkSize": 4}
    h = await pi_in_process(pi=faux(tmp_path, slow))
    assert h.local is not None
    manager = h.local.server.manager
    first = (await h.call("pi/newSession", {}))["sessionId"]
    await h.call("pi/prompt", {"text": "go", "sessionId": first})
    await h.wait_event(first, "message_update")
    second = (await h.call("pi/newSession", {}))["sessionId"]
    await h.call("pi/newSession", {})
    await h.call("pi/newSession", {})  # second is neither current nor the newest now
    assert first in manager.sessions  # running
    assert second not in manager.sessions  # idle, not current: unloaded at once (bound 0)
    end = await h.wait_event(first, "agent_end")
    assert end["messages"][-1]["stopReason"] == "stop"
