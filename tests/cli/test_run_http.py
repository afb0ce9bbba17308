"""``pi-lsp run`` against the scripted OpenAI-compatible server on 127.0.0.1: a streamed
answer, keys kept out of the session file, and Ctrl-C in the middle of a bash command."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.http_server import ScriptedHTTPServer, sse_response

from .helpers import ROOT, clean_env, text_chunks, tool_call_chunks

FAKE_KEY = "sk-compat-FAKE-4f3e2d1c0b9a8877"


async def start(args: list[str], env: dict[str, str]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pi_lsp",
        "run",
        *args,
        env=env,
        cwd=ROOT,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


async def test_streams_an_answer_from_the_server_and_keeps_the_key_out(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = clean_env(tmp_path, OPENAI_COMPATIBLE_API_KEY=FAKE_KEY)
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(sse_response(text_chunks("Hello from the local server."), split_every=9))
        proc = await start(
            [
                "say hello",
                "--cwd",
                str(work),
                "--provider",
                "openai-compatible",
                "--base-url",
                srv.url + "/v1",
                "--model",
                "test-model",
            ],
            env,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
    stdout, stderr = out.decode(), err.decode()
    assert proc.returncode == 0, stderr
    assert "Hello from the local server." in stdout
    assert "tokens: 120 in · 30 out" in stderr
    request = srv.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.json["model"] == "test-model"
    assert request.json["stream"] is True
    assert request.headers.get("authorization") == f"Bearer {FAKE_KEY}"
    sessions = list((tmp_path / "data" / "sessions").rglob("*.jsonl"))
    assert len(sessions) == 1
    saved = sessions[0].read_text()
    assert "Hello from the local server." in saved
    assert FAKE_KEY not in saved
    assert FAKE_KEY not in stdout + stderr


async def _wait_for_pid(proc: asyncio.subprocess.Process, records: list[dict[str, Any]]) -> int:
    assert proc.stdout is not None
    while True:
        line = await asyncio.wait_for(proc.stdout.readline(), 60)
        assert line, "the run ended before the command started"
        record = json.loads(line)
        records.append(record)
        event = record["event"]
        if event["type"] == "tool_execution_update":
            text = "".join(block.get("text", "") for block in event["partialResult"]["content"])
            if "PID=" in text:
                return int(text.split("PID=")[1].split()[0])


@pytest.mark.parametrize("presses", [1, 2])
async def test_ctrl_c_mid_bash_leaves_no_child_and_exits_130(tmp_path: Path, presses: int) -> None:
    work = tmp_path / "work"
    work.mkdir()
    command = "echo PID=$$; exec sleep 60"
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(sse_response(tool_call_chunks("bash", {"command": command})))
        proc = await start(
            [
                "wait a minute",
                "--cwd",
                str(work),
                "--provider",
                "openai-compatible",
                "--base-url",
                srv.url + "/v1",
                "--yes",
                "--json",
            ],
            clean_env(tmp_path),
        )
        records: list[dict[str, Any]] = []
        pid = await _wait_for_pid(proc, records)
        assert alive(pid)
        for _ in range(presses):
            proc.send_signal(signal.SIGINT)
        out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 130, err.decode()
    assert not alive(pid)
    assert len(srv.requests) == 1  # no model call after the abort
    if presses == 1:  # a clean abort: the stream ends properly
        records += [json.loads(line) for line in out.decode().splitlines()]
        types = [r["event"]["type"] for r in records]
        assert types[-1] == "agent_end"
        end = next(r["event"] for r in records if r["event"]["type"] == "tool_execution_end")
        assert end["isError"] is True
        assert "Command aborted" in json.dumps(end["result"])
        assert "^C aborting" in err.decode()
    # with two quick presses the signals may coalesce into one: either way the run ends at
    # once with 130 and leaves no process behind (asserted above)


async def test_context_overflow_on_the_first_turn_fails_clearly(tmp_path: Path) -> None:
    """llama.cpp with a small context answers 400 exceed_context_size_error; with nothing to
    compact the run must fail (non-zero) and say what to change (issue 10 item 11)."""
    from tests.support.http_server import json_response

    work = tmp_path / "work"
    work.mkdir()
    env = clean_env(tmp_path)
    body = {
        "error": {
            "code": 400,
            "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 1851,
            "n_ctx": 1024,
        }
    }
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(json_response(400, body))
        srv.enqueue(json_response(400, body))
        proc = await start(
            [
                "say hello",
                "--cwd",
                str(work),
                "--provider",
                "openai-compatible",
                "--base-url",
                srv.url + "/v1",
                "--model",
                "small",
                "--json",
            ],
            env,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
    stdout, stderr = out.decode(), err.decode()
    assert proc.returncode != 0, stdout + stderr
    text = stdout + stderr
    assert "1851 tokens" in text
    assert "1024" in text
    assert "contextWindow" in text
    assert len(srv.requests) == 1


async def test_a_reasoning_model_reads_a_file_and_reports_its_reasoning_tokens(
    tmp_path: Path,
) -> None:
    """o4-mini at the default thinking level, against a Responses service written from the
    API reference: the tool round trip completes, and ``--json`` carries ``usage.reasoning``
    (issue 38)."""
    from tests.support.fake_openai_responses import REASONING_TOKENS, FakeResponsesAPI

    work = tmp_path / "work"
    work.mkdir()
    (work / "README.md").write_text("# the readme\n", encoding="utf-8")
    fake = FakeResponsesAPI(FAKE_KEY)
    async with ScriptedHTTPServer() as srv:
        srv.handler = fake
        proc = await start(
            [
                "read the readme",
                "--cwd",
                str(work),
                "--provider",
                "openai",
                "--base-url",
                srv.url + "/v1",
                "--model",
                "o4-mini",
                "--json",
            ],
            clean_env(tmp_path, OPENAI_API_KEY=FAKE_KEY),
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    assert fake.rejected == []
    assert len(srv.requests) == 2  # the call, then the answer after the file was read
    events = [json.loads(line)["event"] for line in out.decode().splitlines()]
    answers = [
        e["message"]
        for e in events
        if e["type"] == "message_end" and e["message"]["role"] == "assistant"
    ]
    assert [a["stopReason"] for a in answers] == ["toolUse", "stop"]
    assert all(a["usage"]["reasoning"] == REASONING_TOKENS for a in answers)


async def test_the_closing_usage_line_counts_reasoning_tokens(tmp_path: Path) -> None:
    from tests.support.fake_openai_responses import REASONING_TOKENS, FakeResponsesAPI

    work = tmp_path / "work"
    work.mkdir()
    async with ScriptedHTTPServer() as srv:
        srv.handler = FakeResponsesAPI(FAKE_KEY)
        args = ["hi", "--cwd", str(work), "--provider", "openai", "--base-url", srv.url + "/v1"]
        proc = await start(
            [*args, "--model", "o4-mini"], clean_env(tmp_path, OPENAI_API_KEY=FAKE_KEY)
        )
        _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    assert len(srv.requests) == 2  # the fake service calls a tool first
    out, reasoning = 2 * (20 + REASONING_TOKENS), 2 * REASONING_TOKENS
    assert f"tokens: 200 in · {out} out ({reasoning} reasoning)" in err.decode()


async def test_plan_offers_the_model_no_write_tool(tmp_path: Path) -> None:
    """``--plan``: the request's tool list has no ``write`` / ``edit`` (docs/tools.md#plan-mode),
    not only a refusal when the model calls one."""
    work = tmp_path / "work"
    work.mkdir()
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(sse_response(text_chunks("Plan: nothing to write.")))
        proc = await start(
            [
                "plan it",
                "--cwd",
                str(work),
                "--provider",
                "openai-compatible",
                "--base-url",
                srv.url + "/v1",
                "--model",
                "test-model",
                "--plan",
            ],
            clean_env(tmp_path, OPENAI_COMPATIBLE_API_KEY=FAKE_KEY),
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    assert "Plan: nothing to write." in out.decode()
    (request,) = srv.requests
    offered = [t["function"]["name"] for t in request.json["tools"]]
    assert "read" in offered
    assert not {"write", "edit"} & set(offered)
