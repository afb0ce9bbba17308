"""A client attaching mid-run (a reloaded VS Code window): ``pi/resumeSession`` says where the
run began (``liveRun``), so the transcript before it plus ``pi/replay`` from there plus the
live events give the run whole — nothing missing, nothing twice."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.support.http_server import Pause, ScriptedHTTPServer

from .conftest import Start, http_settings
from .openai_sse import response, text_events

ANSWER = "the second answer streams in eight pieces, slowly enough to attach mid-way"


def _deltas(notes: list[dict[str, Any]]) -> str:
    out = []
    for note in notes:
        event = note["event"]
        if event["type"] == "message_update":
            inner = event["assistantMessageEvent"]
            if inner["type"] == "text_delta":
                out.append(inner["delta"])
    return "".join(out)


async def test_resume_mid_run_gives_where_the_run_began(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    gate = Pause(asyncio.Event())
    srv.enqueue(response(text_events("first answer", 2)))
    srv.enqueue(response(text_events(ANSWER, 8), gate=gate, gate_after=4))
    h = await pi_in_process(pi=http_settings(srv))
    sid = (await h.call("pi/prompt", {"text": "first"}))["sessionId"]
    await h.wait_event(sid, "agent_end")
    idle = await h.call("pi/resumeSession", {"sessionId": sid})
    assert "liveRun" not in idle  # nothing going: the transcript is all there is
    before = max(e["seq"] for e in h.session_events(sid))

    await h.call("pi/prompt", {"text": "second", "sessionId": sid})
    await srv.wait_for_requests(2)
    await h.wait_event(sid, "message_start", count=4)  # the second answer is streaming
    resumed = await h.call("pi/resumeSession", {"sessionId": sid})
    live = resumed["liveRun"]
    assert live == {"afterSeq": before, "messageCount": 2}
    assert [m["role"] for m in resumed["messages"][: live["messageCount"]]] == ["user", "assistant"]
    replay = await h.call("pi/replay", {"sessionId": sid, "afterSeq": live["afterSeq"]})
    assert replay["complete"] is True
    seen = {n["seq"]: n for n in replay["events"]}
    assert replay["events"][0]["event"]["type"] == "agent_start"
    # the user's prompt of this run comes with the replay, not twice
    users = [
        n
        for n in replay["events"]
        if n["event"]["type"] == "message_end" and n["event"]["message"]["role"] == "user"
    ]
    assert len(users) == 1

    gate.event.set()
    await h.wait_event(sid, "agent_end", count=2)
    for note in h.session_events(sid):
        if note["seq"] > live["afterSeq"]:
            seen.setdefault(note["seq"], note)
    ordered = [seen[k] for k in sorted(seen)]
    assert sorted(seen) == list(range(live["afterSeq"] + 1, max(seen) + 1))  # no gap
    assert _deltas(ordered) == ANSWER
    done = await h.call("pi/resumeSession", {"sessionId": sid})
    assert "liveRun" not in done
