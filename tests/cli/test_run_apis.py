"""``pi-lsp run`` on the newer wire APIs, as a subprocess against the scripted server:
``--provider google`` (the key from GOOGLE_API_KEY, in a header, kept out of the session
file) and ``--api openai-responses`` on an OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tests.support.http_server import ScriptedHTTPServer, sse_response

from .helpers import ROOT, clean_env

GOOGLE_KEY = "AIzaFAKEfakeFAKEfakeFAKEfakeFAKEfake123"


async def run(args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pi_lsp", "run", *args, env=env, cwd=ROOT,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_google_provider(tmp_path: Path) -> None:
    env = clean_env(tmp_path, GOOGLE_API_KEY=GOOGLE_KEY)
    candidate = {"content": {"role": "model", "parts": [{"text": "Hi from Gemini."}]}}
    usage = {"promptTokenCount": 50, "candidatesTokenCount": 4, "totalTokenCount": 54}
    chunks = [
        {"candidates": [candidate]},
        {"candidates": [{"finishReason": "STOP"}], "usageMetadata": usage},
    ]
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(sse_response(chunks, done=False))
        code, out, err = await run(
            ["say hi", "--cwd", str(tmp_path), "--provider", "google",
             "--base-url", srv.url + "/v1beta", "--model", "gemini-2.5-flash"],
            env,
        )  # fmt: skip
        assert code == 0, err
        assert "Hi from Gemini." in out
        request = srv.requests[0]
    assert request.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
    assert request.headers["x-goog-api-key"] == GOOGLE_KEY
    assert GOOGLE_KEY not in request.query
    assert request.json["generationConfig"]["thinkingConfig"] == {"thinkingBudget": 0}
    for path in (tmp_path / "data").rglob("*.jsonl"):
        assert GOOGLE_KEY not in path.read_text()


async def test_api_flag_picks_the_responses_endpoint(tmp_path: Path) -> None:
    env = clean_env(tmp_path)
    item = {"type": "message", "id": "msg_1", "role": "assistant"}
    events = [
        {"type": "response.output_item.added", "item": {**item, "content": []}},
        {"type": "response.content_part.added", "part": {"type": "output_text", "text": ""}},
        {"type": "response.output_text.delta", "delta": "Hi from Responses."},
        {
            "type": "response.output_item.done",
            "item": {**item, "content": [{"type": "output_text", "text": "Hi from Responses."}]},
        },
        {
            "type": "response.completed",
            "response": {
                "id": "resp_1",
                "status": "completed",
                "usage": {"input_tokens": 9, "output_tokens": 4},
            },
        },
    ]
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(sse_response(events, named=True, done=False))
        code, out, err = await run(
            ["say hi", "--cwd", str(tmp_path), "--provider", "openai-compatible",
             "--base-url", srv.url + "/v1", "--api", "openai-responses", "--model", "local"],
            env,
        )  # fmt: skip
        assert code == 0, err
        assert "Hi from Responses." in out
        body = srv.requests[0].json
    assert srv.requests[0].path == "/v1/responses"
    assert body["store"] is False
    assert body["prompt_cache_key"]  # the session id


def test_unknown_api_is_named(tmp_path: Path) -> None:
    from .helpers import pi_run

    res = pi_run(["hi", "--cwd", str(tmp_path), "--api", "gemini"], clean_env(tmp_path))
    assert res.returncode == 2
    assert "--api" in res.stderr
    assert "openai-responses" in res.stderr
