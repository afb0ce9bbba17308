"""The scripted HTTP server itself: framing, routing, recording, gating, cuts, other processes."""

from __future__ import annotations

import asyncio
import sys

import httpx
import pytest
from httpx_sse import aconnect_sse

from tests.support.http_server import (
    Cut,
    Delay,
    Pause,
    ScriptedHTTPServer,
    ScriptedResponse,
    json_response,
    sse,
    sse_bytes,
    sse_response,
)


async def test_json_response_and_request_recording() -> None:
    async with ScriptedHTTPServer() as srv, httpx.AsyncClient() as client:
        srv.enqueue(json_response(201, {"ok": True}, headers={"x-extra": "1"}))
        r = await client.post(
            f"{srv.url}/v1/things?x=1", json={"a": [1, 2]}, headers={"X-Api-Key": "k"}
        )
        assert r.status_code == 201
        assert r.json() == {"ok": True}
        assert r.headers["x-extra"] == "1"
        req = srv.requests[0]
        assert (req.method, req.path, req.query) == ("POST", "/v1/things", "x=1")
        assert req.headers["x-api-key"] == "k"
        assert req.json == {"a": [1, 2]}


async def test_fifo_keep_alive_and_path_routing() -> None:
    async with ScriptedHTTPServer() as srv, httpx.AsyncClient() as client:
        srv.enqueue(json_response(200, {"n": 1}), json_response(200, {"n": 2}))
        srv.enqueue(json_response(200, {"routed": True}), path="/special")
        assert (await client.get(f"{srv.url}/a")).json() == {"n": 1}
        assert (await client.get(f"{srv.url}/special")).json() == {"routed": True}
        assert (await client.get(f"{srv.url}/b")).json() == {"n": 2}
        assert srv.connections == 1  # the client reused its connection
        assert srv.pending == 0


async def test_unmatched_request_gets_a_clear_418() -> None:
    async with ScriptedHTTPServer() as srv, httpx.AsyncClient() as client:
        r = await client.post(f"{srv.url}/nothing", json={})
        assert r.status_code == 418
        assert "no response queued for POST /nothing" in r.json()["error"]["message"]
        assert srv.unmatched[0].path == "/nothing"


@pytest.mark.parametrize("framing", ["chunked", "close", "length"])
async def test_sse_split_everywhere_decodes_including_split_utf8(framing: str) -> None:
    events = [{"text": "café ☕ 日本"}, {"text": "🎉"}]
    raw = sse_bytes(events)
    async with ScriptedHTTPServer() as srv, httpx.AsyncClient() as client:
        # one byte per socket write: every multi-byte character is split
        srv.enqueue(sse_response(events, split_every=1, framing=framing))  # type: ignore[arg-type]
        async with aconnect_sse(client, "POST", f"{srv.url}/sse", json={}) as source:
            got = [s.data async for s in source.aiter_sse()]
    assert got == ['{"text": "café ☕ 日本"}', '{"text": "🎉"}', "[DONE]"]
    assert len(raw) > 20


async def test_named_events_and_verbatim_strings() -> None:
    body = sse_bytes(
        [{"type": "message_start"}, ("ping", "raw{"), "not json"], done=False, named=True
    ).decode()
    assert body == (
        'event: message_start\ndata: {"type": "message_start"}\n\n'
        "event: ping\ndata: raw{\n\n"
        "data: not json\n\n"
    )


async def test_pause_gates_the_body_deterministically() -> None:
    gate = asyncio.Event()
    async with ScriptedHTTPServer() as srv, httpx.AsyncClient() as client:
        srv.enqueue(sse_response([{"n": 1}], done=False, tail=[Pause(gate), *sse([{"n": 2}])]))
        seen: list[str] = []
        async with aconnect_sse(client, "GET", f"{srv.url}/s") as source:
            async for event in source.aiter_sse():
                seen.append(event.data)
                if len(seen) == 1:
                    assert not gate.is_set()  # the second event cannot have been sent yet
                    gate.set()
        assert seen == ['{"n": 1}', '{"n": 2}', "[DONE]"]


async def test_delay_step_pauses_then_sends_the_rest_of_the_body() -> None:
    async with ScriptedHTTPServer() as srv, httpx.AsyncClient() as client:
        srv.enqueue(ScriptedResponse(body=["a", Delay(0.01), "b"]))
        assert (await client.get(srv.url)).text == "ab"


@pytest.mark.parametrize("reset", [False, True])
async def test_cut_mid_body_is_an_error_for_the_client(reset: bool) -> None:
    async with ScriptedHTTPServer() as srv, httpx.AsyncClient() as client:
        srv.enqueue(sse_response([{"n": 1}], done=False, tail=[Cut(reset=reset)]))
        received: list[str] = []

        async def read_all() -> None:
            async with aconnect_sse(client, "GET", f"{srv.url}/s") as source:
                async for event in source.aiter_sse():
                    received.append(event.data)

        with pytest.raises(httpx.TransportError):
            await read_all()
        assert received == ['{"n": 1}']
        # the server keeps serving new connections after a cut
        srv.enqueue(json_response(200, {"after": "cut"}))
        assert (await client.get(srv.url)).json() == {"after": "cut"}


async def test_wait_for_requests() -> None:
    async with ScriptedHTTPServer() as srv, httpx.AsyncClient() as client:
        srv.enqueue(json_response(200, {}))
        task = asyncio.ensure_future(client.post(f"{srv.url}/x", json={"q": 1}))
        req = await srv.wait_for_requests(1)
        assert req.json == {"q": 1}
        await task


async def test_close_while_a_response_is_paused() -> None:
    srv = ScriptedHTTPServer()
    await srv.__aenter__()
    async with httpx.AsyncClient() as client:
        srv.enqueue(ScriptedResponse(body=["x", Pause(asyncio.Event()), "y"]))
        task = asyncio.ensure_future(client.get(srv.url))
        await srv.wait_for_requests(1)
        await srv.close()  # must not hang on the paused handler
        with pytest.raises(httpx.TransportError):
            await task


async def test_a_subprocess_can_talk_to_it() -> None:
    code = (
        "import sys, urllib.request, json\n"
        "req = urllib.request.Request(sys.argv[1] + '/from-child', data=b'{\"c\": 1}',"
        " headers={'content-type': 'application/json'})\n"
        "print(urllib.request.urlopen(req).read().decode())\n"
    )
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(sse_response([{"hello": "child"}], split_every=3))
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", code, srv.url, stdout=asyncio.subprocess.PIPE
        )
        out, _ = await proc.communicate()
        assert proc.returncode == 0
        assert out.decode().strip() == 'data: {"hello": "child"}\n\ndata: [DONE]'
        assert srv.requests[0].path == "/from-child"
        assert srv.requests[0].json == {"c": 1}
