"""``pi-lsp run``'s early first request (``cli/prefetch.py``, ``cli/prefetch_transport.py``),
in process: templates remake the request for any prompt and never hold a secret, and the
transport answers from the early connection only when the real request is the same — over
real sockets (the scripted server on 127.0.0.1, plain and HTTPS with a throwaway CA)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest

from pi_lsp.ai import tls
from pi_lsp.ai.providers._http import encode_json
from pi_lsp.cli import prefetch as pf
from pi_lsp.cli.args import build_parser
from pi_lsp.cli.prefetch_transport import PrefetchTransport
from pi_lsp.security import vault
from tests.support.http_server import (
    Cut,
    Pause,
    ScriptedHTTPServer,
    ScriptedResponse,
    json_response,
    sse,
    sse_response,
)
from tests.support.tls_certs import HAVE_OPENSSL, make_certs, server_context

KEY = "sk-prefetch-TEST-0123456789abcdef"
PROMPTS = [
    "hi",
    'say "hello" \\ then\nnewline\ttab',
    "unicode: é 漢字 🙂 </script> \u2028",
    "{}[]:,",
]


def body_for(prompt: str, system: str = "You are pi. Date: 2026-12-04") -> bytes:
    return encode_json(
        {
            "model": "m",
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": prompt},
            ],
            "tools": [{"type": "function", "function": {"name": "read", "parameters": {}}}],
            "stream": True,
        }
    )


HEADERS = [
    ("Host", "example.test"),
    ("Accept", "text/event-stream"),
    ("Authorization", f"Bearer {KEY}"),
    ("Content-Type", "application/json"),
    ("Content-Length", "123"),
]


# ------------------------------------------------------------------------- templates


@pytest.mark.parametrize("prompt", PROMPTS)
def test_a_template_remakes_the_request_for_any_prompt(prompt: str) -> None:
    template = pf.derive_template(
        "POST",
        "http://example.test/v1/chat",
        HEADERS,
        body_for("first prompt"),
        "first prompt",
        KEY,
    )
    assert template is not None
    prepared = pf.fill(json.loads(json.dumps(template)), prompt, KEY)  # as stored on disk
    assert prepared is not None
    assert prepared.body == body_for(prompt)
    assert json.loads(prepared.body)["messages"][1]["content"] == prompt
    assert ("Authorization", f"Bearer {KEY}") in prepared.headers
    assert prepared.headers[-1] == ("Content-Length", str(len(prepared.body)))


def test_an_anthropic_style_key_header_is_cut_out_and_filled_in() -> None:
    headers = [("x-api-key", KEY), ("anthropic-version", "2023-06-01")]
    template = pf.derive_template("POST", "http://h/v1/messages", headers, body_for("a"), "a", KEY)
    assert template is not None
    assert KEY not in json.dumps(template)
    prepared = pf.fill(template, "b", KEY)
    assert prepared is not None
    assert prepared.headers[:2] == headers


def test_a_template_holds_neither_the_key_nor_the_prompt() -> None:
    template = pf.derive_template(
        "POST", "http://example.test/v1", HEADERS, body_for("my secret plan"), "my secret plan", KEY
    )
    stored = json.dumps(template)
    assert KEY not in stored
    assert "my secret plan" not in stored
    assert pf.fill(template, "x", None) is None  # the key is needed to fill it


def test_no_template_unless_the_prompt_is_one_whole_string() -> None:
    twice = encode_json({"messages": [{"content": "go"}, {"content": "go"}]})
    assert pf.derive_template("POST", "http://h/", [], twice, "go", None) is None
    inside = encode_json({"messages": [{"content": "please go now"}]})
    assert pf.derive_template("POST", "http://h/", [], inside, "go", None) is None
    assert pf.derive_template("POST", "http://h/", [], b"not json", "go", None) is None


def test_no_template_when_a_secret_would_be_stored(monkeypatch: pytest.MonkeyPatch) -> None:
    leaky = body_for("hi", system=f"key is {KEY}")
    assert pf.derive_template("POST", "http://h/", HEADERS, leaky, "hi", KEY) is None
    other = "ghp_OTHERSECRETVALUE0123456789"
    monkeypatch.setenv("GITHUB_TOKEN", other)  # a secret-looking variable of the environment
    with_other = body_for("hi", system=f"token {other}")
    assert pf.derive_template("POST", "http://h/", HEADERS, with_other, "hi", KEY) is None
    assert (
        pf.derive_template("POST", f"http://h/?t={other}", [], body_for("hi"), "hi", None) is None
    )
    vault.reset_for_tests()


def test_no_template_with_a_credential_that_is_not_the_key() -> None:
    body = body_for("hi")
    url_auth = "http://user:pw@h/v1"
    assert pf.derive_template("POST", url_auth, [], body, "hi", None) is None
    basic = [("Authorization", "Basic dXNlcjpwdw==")]
    assert pf.derive_template("POST", "http://h/v1", basic, body, "hi", None) is None
    cookie = [("Cookie", "session=abc")]
    assert pf.derive_template("POST", "http://h/v1", cookie, body, "hi", KEY) is None
    assert pf.derive_template("POST", "http://h/v1", HEADERS, body, "hi", KEY) is not None


def args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["hi", *argv])


def test_the_key_changes_with_what_the_request_is_made_from(tmp_path: Path) -> None:
    base = pf.template_key(args("--model", "a"), "openai", tmp_path)
    assert base == pf.template_key(args("--model", "a"), "openai", tmp_path)
    assert base == pf.template_key(args("--model", "a", "--yes", "--json"), "openai", tmp_path)
    for other in (
        pf.template_key(args("--model", "b"), "openai", tmp_path),
        pf.template_key(args("--model", "a"), "anthropic", tmp_path),
        pf.template_key(args("--model", "a"), "openai", tmp_path / "sub"),
        pf.template_key(args("--model", "a", "--thinking", "high"), "openai", tmp_path),
        pf.template_key(args("--model", "a", "--base-url", "http://x"), "openai", tmp_path),
    ):
        assert other != base


def test_templates_are_private_and_stale_ones_are_pruned(tmp_path: Path) -> None:
    old = tmp_path / "requests" / "old.json"
    old.parent.mkdir()
    old.write_text("{}")
    os.utime(old, (0, 0))
    path = tmp_path / "requests" / "new.json"
    pf.save_template(path, {"format": 1})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not old.exists()
    assert pf.load_template(path) == {"format": 1}


@pytest.mark.parametrize(
    "argv",
    [
        ["--demo"],
        ["hi", "--provider", "faux", "--faux-script", "x.json"],
        ["hi", "--resume", "abc"],
        ["hi", "--help"],
        ["--no-such-flag"],
        [],
    ],
)
def test_runs_that_do_not_qualify_get_no_prefetch(argv: list[str]) -> None:
    assert pf.start(argv) is None


def test_no_prefetch_behind_a_proxy_or_when_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["hi", "--provider", "openai-compatible", "--base-url", "http://127.0.0.1:9/v1"]
    monkeypatch.setenv("XDG_CACHE_HOME", "/nonexistent-cache")
    assert pf.start(argv) is not None
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy:3128")
    assert pf.start(argv) is None
    monkeypatch.delenv("HTTPS_PROXY")
    monkeypatch.setenv(pf.DISABLE_ENV, "1")
    assert pf.start(argv) is None


# ------------------------------------------------------------------------- transport


class Refuse(httpx.AsyncBaseTransport):
    """The usual transport, in tests where the early connection must answer."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"sent the usual way: {request.method} {request.url}")


def events(text: str) -> list[dict[str, Any]]:
    return [{"choices": [{"delta": {"content": text}}]}, {"choices": [{"delta": {}}]}]


async def sent_early(
    client: httpx.AsyncClient, url: str, body: bytes, path: Path
) -> tuple[pf.Prefetch, httpx.Request]:
    """A ``Prefetch`` that sent exactly what ``client`` is about to send (as a template
    made by the previous run would), and that request."""
    request = client.build_request(
        "POST", url, headers={"accept": "text/event-stream"}, content=body
    )
    headers = [(k.decode(), v.decode()) for k, v in request.headers.raw]
    early = pf.Prefetch(path, "hi", None)
    early.send(pf.Prepared("POST", url, headers, body))
    await asyncio.to_thread(early.done.wait, 10)
    return early, request


async def read_all(client: httpx.AsyncClient, request: httpx.Request) -> tuple[int, str]:
    response = await client.send(request, stream=True)
    try:
        text = "".join([chunk async for chunk in response.aiter_text()])
    finally:
        await response.aclose()
    return response.status_code, text


async def test_the_early_connection_answers_the_same_request(tmp_path: Path) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(sse_response(events("Hello"), split_every=7))
        async with httpx.AsyncClient(transport=Refuse()) as plain:
            early, request = await sent_early(
                plain, f"{srv.url}/v1", body_for("hi"), tmp_path / "t.json"
            )
        async with httpx.AsyncClient(transport=PrefetchTransport(Refuse(), early)) as client:
            status, text = await read_all(client, request)
        assert status == 200
        assert "Hello" in text
        assert text.endswith("data: [DONE]\n\n")
        assert len(srv.requests) == 1
        assert srv.requests[0].body == body_for("hi")
        assert not (tmp_path / "t.json").exists()  # the template was right: kept as it is


async def test_a_different_request_closes_the_early_one_and_records_a_template(
    tmp_path: Path,
) -> None:
    template_file = tmp_path / "requests" / "t.json"
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(sse_response(events("stale")), sse_response(events("fresh")))
        async with httpx.AsyncClient() as plain:
            early, _ = await sent_early(
                plain, f"{srv.url}/v1", body_for("hi", "old"), template_file
            )
        client = httpx.AsyncClient(transport=PrefetchTransport(httpx.AsyncHTTPTransport(), early))
        async with client:
            request = client.build_request(
                "POST", f"{srv.url}/v1", headers={"accept": "text/event-stream"},
                content=body_for("hi"),
            )  # fmt: skip
            status, text = await read_all(client, request)
            assert status == 200
            assert "fresh" in text
            assert "stale" not in text
            # every later request goes the usual way
            srv.enqueue(sse_response(events("again")))
            status, text = await read_all(client, client.build_request("POST", f"{srv.url}/v1"))
            assert "again" in text
        assert [r.body for r in srv.requests[:2]] == [body_for("hi", "old"), body_for("hi")]
        template = pf.load_template(template_file)
        assert pf.fill(template, "other", None).body == body_for("other")  # type: ignore[union-attr]


async def test_an_error_status_from_the_early_connection_reaches_the_provider(
    tmp_path: Path,
) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(json_response(503, {"error": {"message": "overloaded"}}, {"retry-after": "1"}))
        async with httpx.AsyncClient(transport=Refuse()) as plain:
            early, request = await sent_early(plain, f"{srv.url}/v1", body_for("hi"), tmp_path)
        async with httpx.AsyncClient(transport=PrefetchTransport(Refuse(), early)) as client:
            response = await client.send(request)
        assert response.status_code == 503
        assert response.headers["retry-after"] == "1"
        assert response.json() == {"error": {"message": "overloaded"}}


async def test_a_connection_lost_mid_answer_is_an_httpx_error(tmp_path: Path) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(sse_response(events("partial"), done=False, tail=[Cut()]))
        async with httpx.AsyncClient(transport=Refuse()) as plain:
            early, request = await sent_early(plain, f"{srv.url}/v1", body_for("hi"), tmp_path)
        async with httpx.AsyncClient(transport=PrefetchTransport(Refuse(), early)) as client:
            with pytest.raises(httpx.RemoteProtocolError):
                await read_all(client, request)


async def test_a_server_that_hangs_up_without_answering_is_an_httpx_error(
    tmp_path: Path,
) -> None:
    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.close()

    server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"
    try:
        async with httpx.AsyncClient(transport=Refuse()) as plain:
            early, request = await sent_early(plain, url, body_for("hi"), tmp_path)
        async with httpx.AsyncClient(transport=PrefetchTransport(Refuse(), early)) as client:
            with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
                await read_all(client, request)
    finally:
        server.close()
        await server.wait_closed()


async def test_an_early_request_that_could_not_connect_is_sent_again(tmp_path: Path) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(sse_response(events("Hello")))
        early = pf.Prefetch(tmp_path / "t.json", "hi", None)
        request = httpx.Request("POST", f"{srv.url}/v1", content=body_for("hi"))
        headers = [(k.decode(), v.decode()) for k, v in request.headers.raw]
        early.send(pf.Prepared("POST", "http://127.0.0.1:9/v1", headers, body_for("hi")))
        await asyncio.to_thread(early.done.wait, 10)
        assert early.error is not None
        transport = PrefetchTransport(httpx.AsyncHTTPTransport(), early)
        async with httpx.AsyncClient(transport=transport) as client:
            status, text = await read_all(client, client.build_request(
                "POST", f"{srv.url}/v1", content=body_for("hi")))  # fmt: skip
        assert status == 200
        assert "Hello" in text


@pytest.mark.skipif(not HAVE_OPENSSL, reason="needs openssl")
async def test_the_early_connection_continues_tls_on_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    certs = make_certs(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(certs / "ca.pem"))
    monkeypatch.setattr(tls, "_context", None)
    async with ScriptedHTTPServer(tls=server_context(certs)) as srv:
        long_text = "token " * 5000  # several TLS records
        srv.enqueue(sse_response(events(long_text), split_every=999))
        async with httpx.AsyncClient(transport=Refuse()) as plain:
            early, request = await sent_early(plain, f"{srv.url}/v1", body_for("hi"), tmp_path)
        assert early.error is None, early.error
        async with httpx.AsyncClient(transport=PrefetchTransport(Refuse(), early)) as client:
            status, text = await read_all(client, request)
        assert status == 200
        assert long_text in text
        assert len(srv.requests) == 1


async def test_a_silent_server_times_out_like_any_read(tmp_path: Path) -> None:
    hold = asyncio.Event()
    async with ScriptedHTTPServer() as srv:
        headers = {"content-type": "text/event-stream"}
        srv.enqueue(ScriptedResponse(headers=headers, body=[Pause(hold), *sse(events("late"))]))
        async with httpx.AsyncClient(transport=Refuse()) as plain:
            early, request = await sent_early(plain, f"{srv.url}/v1", body_for("hi"), tmp_path)
        request.extensions["timeout"] = httpx.Timeout(5.0, read=0.2).as_dict()
        async with httpx.AsyncClient(transport=PrefetchTransport(Refuse(), early)) as client:
            with pytest.raises(httpx.ReadTimeout):
                await read_all(client, request)
        hold.set()


async def test_an_abandoned_answer_closes_the_early_connection(tmp_path: Path) -> None:
    hold = asyncio.Event()
    async with ScriptedHTTPServer() as srv:
        steps = sse_response(events("first words"), split_every=10).steps()
        srv.enqueue(sse_response([], done=False, tail=[steps[0], Pause(hold), *steps[1:]]))
        async with httpx.AsyncClient(transport=Refuse()) as plain:
            early, request = await sent_early(plain, f"{srv.url}/v1", body_for("hi"), tmp_path)
        assert early.channel is not None
        sock = early.channel.sock
        async with httpx.AsyncClient(transport=PrefetchTransport(Refuse(), early)) as client:
            response = await client.send(request, stream=True)
            chunks = response.aiter_raw()
            assert await anext(chunks)  # the answer started
            reading = asyncio.ensure_future(anext(chunks))
            await asyncio.sleep(0)
            reading.cancel()  # the run was aborted while the model was silent
            with pytest.raises(asyncio.CancelledError):
                await reading
            await response.aclose()
        assert sock.fileno() == -1
        hold.set()


@pytest.mark.parametrize(
    "garbage",
    [
        None,
        [],
        "text",
        {"format": 2},
        {"format": 1, "method": "POST", "url": "http://h/", "headers": [], "body": ["only one"]},
        {
            "format": 1,
            "method": "POST",
            "url": "file:///etc/passwd",
            "headers": [],
            "body": ["", ""],
        },
        {"format": 1, "method": "POST", "url": "http://h/", "headers": [[1]], "body": ["", ""]},
    ],
)
def test_a_damaged_template_is_not_used(garbage: object, tmp_path: Path) -> None:
    assert pf.fill(garbage, "hi", KEY) is None
    path = tmp_path / "t.json"
    path.write_bytes(b"\x00{not json")
    assert pf.load_template(path) is None
