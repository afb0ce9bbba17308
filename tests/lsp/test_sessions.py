"""Sessions over the wire: several at once, list / resume / fork / state / compact, and
crash safety (kill -9 mid-stream, restart, resume: every completed message is there)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.support.http_server import Pause, ScriptedHTTPServer

from .conftest import Start, http_settings
from .harness import start, stop, text_reply, write_script
from .openai_sse import response, text_events, tool_events


async def test_two_sessions_run_at_once(pi_in_process: Start, srv: ScriptedHTTPServer) -> None:
    gate = Pause(asyncio.Event())
    srv.enqueue(response(text_events("A finishes last", 3), gate=gate))
    srv.enqueue(response(text_events("B finishes first")))
    h = await pi_in_process(pi=http_settings(srv))
    a = (await h.call("pi/prompt", {"text": "a"}))["sessionId"]
    await srv.wait_for_requests(1)
    b_session = (await h.call("pi/newSession"))["sessionId"]
    b = (await h.call("pi/prompt", {"text": "b", "sessionId": b_session}))["sessionId"]
    assert a != b
    await h.wait_event(b, "agent_end")
    state_a = await h.call("pi/state", {"sessionId": a})
    assert state_a["isStreaming"] is True
    gate.event.set()
    end_a = await h.wait_event(a, "agent_end")
    assert end_a["messages"][-1]["content"][0]["text"] == "A finishes last"
    assert next(e["seq"] for e in h.session_events(a)) == 1
    assert next(e["seq"] for e in h.session_events(b)) == 1


async def test_list_resume_and_fork(pi_in_process: Start, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.json",
        [text_reply("first answer"), text_reply("second answer"), text_reply("forked answer")],
    )
    h = await pi_in_process(pi={"provider": "faux", "fauxScript": str(script)})
    sid = await h.run("first question")
    await h.run("second question", sessionId=sid)
    listed = (await h.call("pi/sessions"))["sessions"]
    (info,) = [s for s in listed if s["sessionId"] == sid]
    assert info["title"] == "first question"
    assert info["messageCount"] == 4
    assert info["updatedAt"]
    other = (await h.call("pi/newSession"))["sessionId"]
    resumed = await h.call("pi/resumeSession", {"sessionId": sid})
    assert [m["role"] for m in resumed["messages"]] == ["user", "assistant"] * 2
    assert all(resumed["entryIds"])
    # pi/prompt without a sessionId now goes to the resumed session
    again = await h.call("pi/prompt", {"text": "third"})
    assert again["sessionId"] == sid
    assert other != sid
    await h.wait_event(sid, "agent_end", 3)
    fork = await h.call("pi/forkSession", {"sessionId": sid, "entryId": resumed["entryIds"][1]})
    forked = await h.call("pi/resumeSession", {"sessionId": fork["sessionId"]})
    assert [m["role"] for m in forked["messages"]] == ["user", "assistant"]
    assert forked["messages"][1]["content"][0]["text"] == "first answer"


async def test_a_session_has_one_title_live_and_saved(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    """Listed while its first answer streams (not written yet) and after (read back from its
    file), a session shows the same title, cut once (sessions.store.session_title)."""
    gate = Pause(asyncio.Event())
    srv.enqueue(response(text_events("an answer", 3), gate=gate))
    h = await pi_in_process(pi=http_settings(srv))
    prompt = "  please look at\n the failing test in " + "tests/lsp/test_sessions.py " * 6
    sid = (await h.call("pi/prompt", {"text": prompt}))["sessionId"]
    await h.wait_event(sid, "message_update")

    async def title() -> str:
        (info,) = [s for s in (await h.call("pi/sessions"))["sessions"] if s["sessionId"] == sid]
        return str(info["title"])

    live = await title()
    assert live.startswith("please look at the failing test in tests/lsp/")
    assert live.endswith("…")
    assert len(live) == 80
    gate.event.set()
    await h.wait_event(sid, "agent_end")
    assert await title() == live


async def test_state_reports_queues(pi_in_process: Start, srv: ScriptedHTTPServer) -> None:
    gate = Pause(asyncio.Event())
    srv.enqueue(response(text_events("x", 2), gate=gate))
    srv.enqueue(response(text_events("y")))
    srv.enqueue(response(text_events("z")))
    h = await pi_in_process(pi=http_settings(srv))
    sid = (await h.call("pi/prompt", {"text": "go"}))["sessionId"]
    await h.wait_event(sid, "message_update")
    await h.call("pi/steer", {"sessionId": sid, "text": "s"})
    await h.call("pi/followUp", {"sessionId": sid, "text": "f"})
    state = await h.call("pi/state", {"sessionId": sid})
    assert state == {
        **state,
        "isStreaming": True,
        "pendingSteering": 1,
        "pendingFollowUp": 1,
        "messageCount": 1,
    }
    assert state["model"]["provider"] == "openai-compatible"
    gate.event.set()
    await h.wait_event(sid, "agent_end")
    state = await h.call("pi/state", {"sessionId": sid})
    assert state["pendingSteering"] == 0
    assert state["pendingFollowUp"] == 0


async def test_pi_compact_summarises_the_session_and_a_resume_starts_from_the_summary(
    pi_in_process: Start, tmp_path: Path
) -> None:
    big = "word " * 6000
    responses = [text_reply(big) for _ in range(5)]
    responses += [text_reply("## Goal\nSummary of the conversation.")] * 2  # history + split turn
    script = write_script(tmp_path / "s.json", responses)
    h = await pi_in_process(pi={"provider": "faux", "fauxScript": str(script)})
    sid = await h.run("one " * 3000)
    for i in range(4):
        await h.run(f"more {i} " + "x " * 3000, sessionId=sid)
    result = await h.call("pi/compact", {"sessionId": sid})
    kinds = h.types_of(sid)
    assert result["compacted"] is True
    assert result["tokensAfter"] < result["tokensBefore"]
    assert kinds[-2:] == ["compaction_start", "compaction_end"]
    end = h.session_events(sid)[-1]["event"]
    assert end["reason"] == "manual"
    assert end["tokensAfter"] == result["tokensAfter"]
    resumed = await h.call("pi/resumeSession", {"sessionId": sid})
    assert resumed["messages"][0]["role"] == "compactionSummary"


@pytest.mark.e2e  # kill -9 of the server process
async def test_kill_9_mid_stream_then_resume(
    workspace: Path, data_dir: Path, srv: ScriptedHTTPServer
) -> None:
    gate = Pause(asyncio.Event())  # never released: the server dies mid-stream
    srv.enqueue(response(tool_events([("read", {"path": "a.py"})], text="Reading.")))
    srv.enqueue(response(text_events("an answer that is cut off", 4), gate=gate))
    h = await start(workspace, data_dir, pi=http_settings(srv))
    sid = (await h.call("pi/prompt", {"text": "what is in a.py?"}))["sessionId"]
    await h.wait_event(sid, "message_update", 3)
    await h.wait_event(sid, "turn_start", 2)
    await srv.wait_for_requests(2)
    await h.wait_for(
        lambda: any(
            e["event"]["type"] == "message_update"
            for e in h.session_events(sid)
            if e["seq"]
            > next(
                x["seq"]
                for x in h.session_events(sid)
                if x["event"]["type"] == "turn_start" and x["seq"] > 2
            )
        )
    )
    proc = h.client._server
    assert proc is not None
    proc.kill()
    await proc.wait()
    await h.client.stop()

    srv.enqueue(response(text_events("after the crash")))
    h2 = await start(workspace, data_dir, pi=http_settings(srv))
    try:
        resumed = await h2.call("pi/resumeSession", {"sessionId": sid})
        roles = [m["role"] for m in resumed["messages"]]
        assert roles == ["user", "assistant", "toolResult"]
        assert resumed["messages"][1]["content"][1]["name"] == "read"
        assert "return 1" in resumed["messages"][2]["content"][0]["text"]
        await h2.run("go on", sessionId=sid)
        end = await h2.wait_event(sid, "agent_end")
        assert end["messages"][-1]["content"][0]["text"] == "after the crash"
        request = srv.requests[-1].json
        assert [m["role"] for m in request["messages"]][-4:] == [
            "user",
            "assistant",
            "tool",
            "user",
        ]
    finally:
        await stop(h2)


async def test_prompt_during_a_manual_compaction_runs_after_it(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    big = "word " * 6000
    for _ in range(5):
        srv.enqueue(response(text_events(big, 2)))
    h = await pi_in_process(pi=http_settings(srv))
    sid = await h.run("one " * 3000)
    for i in range(4):
        await h.run(f"more {i} " + "x " * 3000, sessionId=sid)
    gate = Pause(asyncio.Event())
    summary = text_events("## Goal\nSummary.", 2)
    srv.enqueue(response(summary, gate=gate, gate_after=1), response(summary))
    srv.enqueue(response(text_events("after compaction")))
    before = len(srv.requests)
    compaction = asyncio.ensure_future(h.call("pi/compact", {"sessionId": sid}))
    await srv.wait_for_requests(before + 1)  # the summary request is in flight
    queued = await h.call("pi/prompt", {"text": "and now?", "sessionId": sid})
    assert queued["delivered"] == "prompt"
    gate.event.set()
    result = await compaction
    assert result["compacted"] is True
    end = await h.wait_event(sid, "agent_end", 6)
    assert end["messages"][0]["content"][0]["text"] == "and now?"
    assert end["messages"][-1]["content"][0]["text"] == "after compaction"


async def test_a_session_that_cannot_be_saved_says_so_once(
    pi_in_process: Start, tmp_path: Path
) -> None:
    """Issue 10 item 2: an unwritable data directory is reported once (window/showMessage)
    and in pi/state, while the conversation goes on."""
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the data directory should be")
    script = write_script(tmp_path / "s.json", [text_reply("one"), text_reply("two")])
    h = await pi_in_process(
        pi={"provider": "faux", "fauxScript": str(script)}, env={"PI_LSP_DATA_DIR": str(blocked)}
    )
    sid = await h.run("first")
    await h.run("second", sessionId=sid)
    state = await h.call("pi/state", {"sessionId": sid})
    assert state["saveError"]
    assert "Could not write the session file" in state["saveError"]
    shown = [m.message for m in h.client.messages if "cannot be saved" in m.message]
    assert len(shown) == 1
    assert "session_save" in h.types_of(sid)
