"""The visible, editable queue and interrupt: ``queue_update`` on every change, ``pi/queue``
ops, ``queuedId`` / ``deliveredAs`` on delivery, abort keeps the queue, ``deliverAs:
"interrupt"``, and the queue surviving kill -9 and a restart.

Against the scripted OpenAI-compatible server (gated with ``Pause``) or the faux provider
with a long ``bash``; every step waits on an event, never on time."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from tests.support.http_server import Pause, ScriptedHTTPServer

from .conftest import Start, http_settings
from .harness import Harness, start, stop, text_reply, tool_reply, write_script
from .openai_sse import response, text_events


def queue_updates(h: Harness, sid: str) -> list[dict[str, Any]]:
    return [e["event"] for e in h.session_events(sid) if e["event"]["type"] == "queue_update"]


def texts(items: list[dict[str, Any]]) -> list[str]:
    return [i["text"] for i in items]


async def next_update(h: Harness, sid: str, count: int) -> dict[str, Any]:
    return await h.wait_event(sid, "queue_update", count)


def delivered_starts(h: Harness, sid: str) -> list[dict[str, Any]]:
    return [
        e
        for e in h.session_events(sid)
        if e["event"]["type"] == "message_start" and "queuedId" in e["event"]
    ]


async def test_queue_is_visible_editable_and_delivery_is_marked(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    gate = Pause(asyncio.Event())
    srv.enqueue(response(text_events("First answer, streaming slowly.", 6), gate=gate))
    srv.enqueue(response(text_events("After the steer.")))
    srv.enqueue(response(text_events("After the follow-up.")))
    h = await pi_in_process(pi=http_settings(srv))
    sid = (await h.call("pi/prompt", {"text": "start"}))["sessionId"]
    await h.wait_event(sid, "message_update")

    await h.call("pi/steer", {"sessionId": sid, "text": "steer one"})
    u1 = await next_update(h, sid, 1)
    assert texts(u1["steering"]) == ["steer one"]
    assert u1["followUp"] == []
    await h.call("pi/followUp", {"sessionId": sid, "text": "follow one"})
    await h.call("pi/prompt", {"sessionId": sid, "text": "follow two", "deliverAs": "followUp"})
    u3 = await next_update(h, sid, 3)
    assert texts(u3["followUp"]) == ["follow one", "follow two"]
    steer_id = u3["steering"][0]["id"]
    f1, f2 = (i["id"] for i in u3["followUp"])
    assert len({steer_id, f1, f2}) == 3

    edited = await h.call("pi/queue", {"sessionId": sid, "op": "edit", "id": f1, "text": "f1!"})
    assert edited == {
        "steering": [{"id": steer_id, "text": "steer one"}],
        "followUp": [{"id": f1, "text": "f1!"}, {"id": f2, "text": "follow two"}],
    }
    promoted = await h.call("pi/queue", {"sessionId": sid, "op": "promote", "id": f2})
    assert [i["id"] for i in promoted["steering"]] == [steer_id, f2]
    removed = await h.call("pi/queue", {"sessionId": sid, "op": "remove", "id": steer_id})
    assert removed == {
        "steering": [{"id": f2, "text": "follow two"}],
        "followUp": [{"id": f1, "text": "f1!"}],
    }
    u6 = await next_update(h, sid, 6)  # one queue_update per op, equal to the result
    assert {"steering": u6["steering"], "followUp": u6["followUp"]} == removed
    with pytest.raises(JsonRpcInvalidParams, match=steer_id):
        await h.call("pi/queue", {"sessionId": sid, "op": "remove", "id": steer_id})
    with pytest.raises(JsonRpcInvalidParams, match="nope"):
        await h.call("pi/queue", {"sessionId": sid, "op": "edit", "id": "nope", "text": "x"})
    state = await h.call("pi/state", {"sessionId": sid})
    assert (state["pendingSteering"], state["pendingFollowUp"]) == (1, 1)

    gate.event.set()
    end = await h.wait_event(sid, "agent_end")
    user_texts = [m["content"][0]["text"] for m in end["messages"] if m["role"] == "user"]
    assert user_texts == ["start", "follow two", "f1!"]
    marks = delivered_starts(h, sid)
    assert [(e["event"]["queuedId"], e["event"]["deliveredAs"]) for e in marks] == [
        (f2, "steer"),
        (f1, "followUp"),
    ]
    for mark in marks:
        assert "queuedId" not in mark["event"]["message"]
        before = [e for e in h.session_events(sid) if e["seq"] < mark["seq"]]
        kinds = [e["event"]["type"] for e in before]
        # the turn it lands in: its turn_start comes after the previous turn_end
        assert kinds[-1] == "turn_start", kinds[-4:]
        assert kinds[-2] == "queue_update"
    assert len(queue_updates(h, sid)) == 8  # 3 enqueues, 3 ops, 2 deliveries
    final = queue_updates(h, sid)[-1]
    assert final["steering"] == []
    assert final["followUp"] == []
    with pytest.raises(JsonRpcInvalidParams, match=f1):  # already delivered
        await h.call("pi/queue", {"sessionId": sid, "op": "promote", "id": f1})


async def test_clear_and_bad_ops_name_the_problem(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    h = await pi_in_process(pi=http_settings(srv))
    sid = (await h.call("pi/newSession"))["sessionId"]
    await h.call("pi/steer", {"sessionId": sid, "text": "a"})
    await h.call("pi/followUp", {"sessionId": sid, "text": "b"})
    cleared = await h.call("pi/queue", {"sessionId": sid, "op": "clear"})
    assert cleared == {"steering": [], "followUp": []}
    assert len(queue_updates(h, sid)) == 3
    with pytest.raises(JsonRpcInvalidParams, match="op"):
        await h.call("pi/queue", {"sessionId": sid, "op": "shuffle"})
    with pytest.raises(JsonRpcInvalidParams, match="`id` is required"):
        await h.call("pi/queue", {"sessionId": sid, "op": "remove"})


async def test_abort_keeps_the_queue_for_the_next_run(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    """Abort while a tool runs: the steering poll after the aborted tool batch must not
    deliver; both queued messages stay queued (and visible) and go with the next run."""
    script = write_script(
        tmp_path / "script.json",
        [
            tool_reply("bash", {"command": "echo started; sleep 30"}),
            text_reply("next run"),
            text_reply("after the steer"),
            text_reply("after the follow-up"),
        ],
    )
    h = await pi_in_process(
        pi={"provider": "faux", "fauxScript": str(script), "permissions": {"bash": "allow"}}
    )
    sid = (await h.call("pi/prompt", {"text": "run"}))["sessionId"]
    await h.wait_event(sid, "tool_execution_update")
    await h.call("pi/steer", {"sessionId": sid, "text": "queued steer"})
    await h.call("pi/followUp", {"sessionId": sid, "text": "queued follow-up"})
    await next_update(h, sid, 2)
    assert await h.call("pi/abort", {"sessionId": sid}) == {"aborted": True}
    end = await h.wait_event(sid, "agent_end")
    assert all(m["role"] != "user" or m["content"][0]["text"] == "run" for m in end["messages"])
    assert delivered_starts(h, sid) == []
    assert len(queue_updates(h, sid)) == 2
    state = await h.call("pi/state", {"sessionId": sid})
    assert (state["pendingSteering"], state["pendingFollowUp"]) == (1, 1)

    await h.call("pi/prompt", {"sessionId": sid, "text": "again"})
    await h.wait_event(sid, "agent_end", 2)
    marks = [
        (e["event"]["deliveredAs"], e["event"]["message"]["content"][0]["text"])
        for e in delivered_starts(h, sid)
    ]
    assert marks == [("steer", "queued steer"), ("followUp", "queued follow-up")]


async def test_interrupt_aborts_and_starts_a_new_run(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    gate = Pause(asyncio.Event())  # never released: the interrupt cuts it off
    srv.enqueue(response(text_events("A long answer that will be interrupted.", 6), gate=gate))
    srv.enqueue(response(text_events("Answer to the interruption.")))
    h = await pi_in_process(pi=http_settings(srv))
    idle = await h.call("pi/prompt", {"text": "hi", "deliverAs": "interrupt"})
    assert idle["delivered"] == "prompt"  # idle session: a plain prompt
    sid = idle["sessionId"]
    await h.wait_event(sid, "message_update")
    await h.call("pi/followUp", {"sessionId": sid, "text": "later"})
    result = await h.call(
        "pi/prompt", {"sessionId": sid, "text": "stop, do this", "deliverAs": "interrupt"}
    )
    assert result == {"sessionId": sid, "delivered": "interrupt"}
    first = await h.wait_event(sid, "agent_end")
    assert first["messages"][-1]["stopReason"] == "aborted"
    srv.enqueue(response(text_events("And the follow-up.")))
    second = await h.wait_event(sid, "agent_end", 2)
    users = [m["content"][0]["text"] for m in second["messages"] if m["role"] == "user"]
    assert users == ["stop, do this", "later"]  # the queue was kept, then delivered
    assert second["messages"][1]["content"][0]["text"] == "Answer to the interruption."
    assert h.types_of(sid).count("agent_start") == 2


@pytest.mark.e2e  # kill -9 of the server process
async def test_queue_survives_kill_9_and_is_restored_on_resume(
    workspace: Path, data_dir: Path, srv: ScriptedHTTPServer
) -> None:
    gate = Pause(asyncio.Event())  # never released: the server dies mid-stream
    srv.enqueue(response(text_events("cut off by the crash", 4), gate=gate))
    h = await start(workspace, data_dir, pi=http_settings(srv))
    sid = (await h.call("pi/prompt", {"text": "first"}))["sessionId"]
    await h.wait_event(sid, "message_update")
    await h.call("pi/steer", {"sessionId": sid, "text": "steer me"})
    await h.call("pi/followUp", {"sessionId": sid, "text": "then this"})
    queued = await next_update(h, sid, 2)
    proc = h.client._server
    assert proc is not None
    proc.kill()
    await proc.wait()
    await h.client.stop()

    srv.enqueue(response(text_events("resumed answer")))
    srv.enqueue(response(text_events("steered answer")))
    srv.enqueue(response(text_events("follow-up answer")))
    h2 = await start(workspace, data_dir, pi=http_settings(srv))
    try:
        await h2.call("pi/resumeSession", {"sessionId": sid})
        restored = await next_update(h2, sid, 1)
        assert restored["steering"] == queued["steering"]
        assert restored["followUp"] == queued["followUp"]
        state = await h2.call("pi/state", {"sessionId": sid})
        assert (state["pendingSteering"], state["pendingFollowUp"]) == (1, 1)
        await h2.call("pi/prompt", {"sessionId": sid, "text": "go on"})
        await h2.wait_event(sid, "agent_end")
        marks = [e["event"]["queuedId"] for e in delivered_starts(h2, sid)]
        assert marks == [queued["steering"][0]["id"], queued["followUp"][0]["id"]]
    finally:
        await stop(h2)
