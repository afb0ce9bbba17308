"""Input during a run: steering mid-stream, follow-up in the same trace, pi/prompt while running.

Against the scripted OpenAI-compatible server, gated with ``Pause`` so the test acts at a
known point of the stream. In the in-process tier (``pi_in_process``)."""

from __future__ import annotations

import asyncio

from tests.support.http_server import Pause, ScriptedHTTPServer

from .conftest import Start, http_settings
from .openai_sse import response, text_events


def _user_texts(messages: list[dict]) -> list[str]:
    out = []
    for m in messages:
        if m["role"] == "user":
            content = m["content"]
            out.append(content if isinstance(content, str) else content[0]["text"])
    return out


async def test_trace_over_http_and_steering_mid_stream(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    gate = Pause(asyncio.Event())
    first = text_events("First answer, streaming slowly.", 6)
    srv.enqueue(response(first, gate=gate, gate_after=3))
    srv.enqueue(response(text_events("Second answer, after the steer.")))
    h = await pi_in_process(pi=http_settings(srv))
    res = await h.call("pi/prompt", {"text": "Tell me something."})
    sid = res["sessionId"]
    assert res["delivered"] == "prompt"
    await h.wait_event(sid, "message_update")  # the model is streaming
    steer = await h.call("pi/prompt", {"text": "Actually, be brief.", "sessionId": sid})
    assert steer == {"sessionId": sid, "delivered": "steer"}
    state = await h.call("pi/state", {"sessionId": sid})
    assert state["isStreaming"] is True
    assert state["pendingSteering"] == 1
    gate.event.set()
    end = await h.wait_event(sid, "agent_end")
    assert _user_texts(end["messages"]) == ["Tell me something.", "Actually, be brief."]
    kinds = h.types_of(sid)
    assert kinds.count("agent_start") == 1
    assert kinds.count("turn_start") == 2
    # the second request carried the steering message after the first answer
    body = srv.requests[1].json
    assert body["messages"][-1]["role"] == "user"
    assert "be brief" in str(body["messages"][-1]["content"])


async def test_follow_up_in_the_same_trace(pi_in_process: Start, srv: ScriptedHTTPServer) -> None:
    gate = Pause(asyncio.Event())
    srv.enqueue(response(text_events("One.", 2), gate=gate, gate_after=2))
    srv.enqueue(response(text_events("Two.")))
    h = await pi_in_process(pi=http_settings(srv))
    sid = (await h.call("pi/prompt", {"text": "first"}))["sessionId"]
    await h.wait_event(sid, "message_update")
    queued = await h.call("pi/followUp", {"sessionId": sid, "text": "and then?"})
    assert queued == {"sessionId": sid, "delivered": "followUp"}
    also = await h.call("pi/prompt", {"text": "x", "sessionId": sid, "deliverAs": "followUp"})
    assert also["delivered"] == "followUp"
    srv.enqueue(response(text_events("Three.")))
    gate.event.set()
    end = await h.wait_event(sid, "agent_end")
    assert _user_texts(end["messages"]) == ["first", "and then?", "x"]
    assert h.types_of(sid).count("agent_start") == 1


async def test_steer_on_idle_session_is_injected_into_the_next_run(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    srv.enqueue(response(text_events("ok")))
    h = await pi_in_process(pi=http_settings(srv))
    sid = (await h.call("pi/newSession"))["sessionId"]
    queued = await h.call("pi/steer", {"sessionId": sid, "text": "use tabs"})
    assert queued["delivered"] == "steer"
    await h.run("format it", sessionId=sid)
    first_request = srv.requests[0].json["messages"]
    texts = [str(m["content"]) for m in first_request if m["role"] == "user"]
    assert "format it" in texts[0]
    assert "use tabs" in texts[1]
    assert len(srv.requests) == 1  # injected in the first turn, before the first model call


async def test_abort_mid_stream_ends_the_run_as_aborted_and_the_session_stays_usable(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    gate = Pause(asyncio.Event())  # never released: the abort cuts the stream off
    srv.enqueue(response(text_events("A long answer that will be aborted.", 6), gate=gate))
    srv.enqueue(response(text_events("Fresh answer.")))
    h = await pi_in_process(pi=http_settings(srv))
    sid = (await h.call("pi/prompt", {"text": "go"}))["sessionId"]
    await h.wait_event(sid, "message_update")
    assert await h.call("pi/abort", {"sessionId": sid}) == {"aborted": True}
    end = await h.wait_event(sid, "agent_end")
    assert end["messages"][-1]["stopReason"] == "aborted"
    state = await h.call("pi/state", {"sessionId": sid})
    assert state["isStreaming"] is False
    assert await h.call("pi/abort", {"sessionId": sid}) == {"aborted": False}
    await h.run("again", sessionId=sid)
    second = await h.wait_event(sid, "agent_end", 2)
    assert second["messages"][-1]["content"][0]["text"] == "Fresh answer."


async def test_two_prompts_at_once_on_a_fresh_server_both_reach_the_model(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    """A double Enter before any session exists (issue 46's race, LSP side): both requests
    are written before either is answered; one starts the run, the other steers it, in one
    session; nothing is lost."""
    srv.enqueue(response(text_events("One.")))
    srv.enqueue(response(text_events("Two.")))
    h = await pi_in_process(pi=http_settings(srv))
    first, second = await asyncio.gather(
        h.call("pi/prompt", {"text": "first"}), h.call("pi/prompt", {"text": "second"})
    )
    assert first["sessionId"] == second["sessionId"]
    assert sorted([first["delivered"], second["delivered"]]) == ["prompt", "steer"]
    end = await h.wait_event(first["sessionId"], "agent_end")
    assert sorted(_user_texts(end["messages"])) == ["first", "second"]
    assert h.types_of(first["sessionId"]).count("agent_start") == 1
