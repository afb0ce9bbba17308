"""Provider failures over the wire: 400, 429 and 5xx (retried, with ``retry`` events), a stream
cut after output, and abort mid-stream — against the scripted OpenAI-compatible server."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from tests.support.http_server import Cut, Pause, ScriptedHTTPServer

from .conftest import Start, http_settings
from .openai_sse import error, response, text_events, tool_events


async def test_400_is_an_error_message_and_a_popup(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    srv.enqueue(error(400, "context too weird"))
    h = await pi_in_process(pi=http_settings(srv))
    sid = await h.run("hi")
    end = await h.wait_event(sid, "agent_end")
    final = end["messages"][-1]
    assert final["stopReason"] == "error"
    assert "400" in final["errorMessage"]
    assert "context too weird" in final["errorMessage"]
    assert "retry" not in h.types_of(sid)
    popup = await h.wait_for(
        lambda: [m for m in h.client.messages if m.type == types.MessageType.Error]
    )
    assert "context too weird" in popup[0].message


async def test_429_and_503_are_retried_with_retry_events(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    srv.enqueue(error(429, "Rate limit reached", **{"retry-after-ms": "10"}))
    srv.enqueue(error(503, "Unavailable", **{"retry-after-ms": "10"}))
    srv.enqueue(response(text_events("finally")))
    h = await pi_in_process(pi=http_settings(srv))
    sid = await h.run("hi")
    retries = [e["event"] for e in h.session_events(sid) if e["event"]["type"] == "retry"]
    assert [(r["attempt"], r["delayMs"]) for r in retries] == [(1, 10), (2, 10)]
    assert "429" in retries[0]["errorMessage"]
    assert "503" in retries[1]["errorMessage"]
    kinds = h.types_of(sid)
    assert kinds.index("retry") < kinds.index("message_start", kinds.index("message_end") + 1)
    end = await h.wait_event(sid, "agent_end")
    assert end["messages"][-1]["stopReason"] == "stop"
    assert end["messages"][-1]["content"] == [{"type": "text", "text": "finally"}]


async def test_cut_after_output_is_a_hard_stop(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    events = text_events("partial answer that never", 4)[:3]
    srv.enqueue(response(events, tail=[Cut()], done=False))
    h = await pi_in_process(pi=http_settings(srv))
    sid = await h.run("hi")
    end = await h.wait_event(sid, "agent_end")
    final = end["messages"][-1]
    assert final["stopReason"] == "error"
    assert final["content"][0]["text"].startswith("partial")
    assert "retry" not in h.types_of(sid)
    assert len(srv.requests) == 1


async def test_abort_mid_stream(pi_in_process: Start, srv: ScriptedHTTPServer) -> None:
    gate = Pause(asyncio.Event())  # never released: only abort ends this run
    srv.enqueue(response(text_events("this will not finish", 4), gate=gate, gate_after=2))
    h = await pi_in_process(pi=http_settings(srv))
    sid = (await h.call("pi/prompt", {"text": "go"}))["sessionId"]
    await h.wait_event(sid, "message_update")
    assert await h.call("pi/abort", {"sessionId": sid}) == {"aborted": True}
    end = await h.wait_event(sid, "agent_end")
    assert end["messages"][-1]["stopReason"] == "aborted"
    assert await h.call("pi/abort", {"sessionId": sid}) == {"aborted": False}
    state = await h.call("pi/state", {"sessionId": sid})
    assert state["isStreaming"] is False
    # the session is usable again
    srv.enqueue(response(text_events("fresh")))
    await h.run("again", sessionId=sid)
    assert h.session_events(sid)[-1]["event"]["messages"][-1]["content"][0]["text"] == "fresh"


async def test_api_key_comes_from_the_named_variable(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    srv.enqueue(response(text_events("keyed")))
    settings = {
        "provider": "openai",
        "baseUrl": srv.url + "/v1",
        "model": "gpt-test",
        "apiKeyEnv": "MY_PI_KEY",
    }
    h = await pi_in_process(
        pi=settings, env={"MY_PI_KEY": "sk-from-my-var", "OPENAI_API_KEY": "sk-wrong"}
    )
    await h.run("hi")
    assert srv.requests[0].headers["authorization"] == "Bearer sk-from-my-var"


async def test_a_missing_key_is_named(pi_in_process: Start, srv: ScriptedHTTPServer) -> None:
    settings = {"provider": "openai", "baseUrl": srv.url + "/v1", "apiKeyEnv": "MY_PI_KEY"}
    h = await pi_in_process(pi=settings, env={"MY_PI_KEY": "", "OPENAI_API_KEY": ""})
    sid = await h.run("hi")
    end = await h.wait_event(sid, "agent_end")
    assert "MY_PI_KEY" in end["messages"][-1]["errorMessage"]
    assert srv.requests == []


async def test_turns_reuse_one_provider_connection(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path
) -> None:
    """The session keeps one HTTP client, so a tool turn and the next model call share a
    keep-alive connection (no new TCP/TLS handshake per turn)."""
    (workspace / "a.py").write_text("x = 1\n")
    srv.enqueue(response(tool_events([("read", {"path": "a.py"})])))
    srv.enqueue(response(text_events("read it")))
    h = await pi_in_process(pi=http_settings(srv))
    sid = await h.run("look at a.py")
    end = await h.wait_event(sid, "agent_end")
    assert end["messages"][-1]["stopReason"] == "stop"
    assert len(srv.requests) == 2
    assert srv.connections == 1
