"""The front ends on uvloop (the optional ``uvloop`` extra): the language server streams a
run with an HTTP model and a tool call, and ``pi-lsp run --demo`` finishes. The rest of the
suite runs them on asyncio's own loop (``PI_LSP_EVENT_LOOP=asyncio`` in tests/conftest.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import clean_env, pi_run
from tests.support.http_server import ScriptedHTTPServer

from .conftest import http_settings
from .openai_sse import response, text_events, tool_events
from .raw import RawClient

pytest.importorskip("uvloop")


def test_the_variable_selects_uvloop_in_a_fresh_process() -> None:
    code = (
        "import asyncio\n"
        "from pi_lsp.runtime.event_loop import loop_name, run\n"
        "async def main(): return loop_name(asyncio.get_running_loop())\n"
        "print(run(main()))\n"
    )
    for choice, expected in (("uvloop", "uvloop"), ("auto", "uvloop"), ("asyncio", "asyncio")):
        env = {"PI_LSP_EVENT_LOOP": choice, "PATH": "/usr/bin:/bin"}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        assert out.stdout.strip() == expected


async def test_the_server_streams_a_run_with_a_tool_call_on_uvloop(
    workspace: Path, data_dir: Path
) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(
            response(tool_events([("read", {"path": "a.py"})])),
            response(text_events("It returns 1.")),
        )
        c = await RawClient.start(data_dir, PI_LSP_EVENT_LOOP="uvloop")
        try:
            await c.initialize(workspace, http_settings(srv))
            answer = await c.call("pi/prompt", {"text": "what does f return?"})
            sid = answer["result"]["sessionId"]
            await c.wait_for(lambda: any(e["event"]["type"] == "agent_end" for e in c.events(sid)))
            kinds = [e["event"]["type"] for e in c.events(sid)]
            assert kinds.count("tool_execution_end") == 1
            deltas = [
                e["event"]["assistantMessageEvent"].get("delta", "")
                for e in c.events(sid)
                if e["event"]["type"] == "message_update"
                and e["event"]["assistantMessageEvent"]["type"] == "text_delta"
            ]
            assert "".join(deltas) == "It returns 1."
            seqs = [e["seq"] for e in c.events(sid)]
            assert seqs == sorted(seqs)
        finally:
            assert await c.close() == 0


def test_pi_lsp_run_demo_on_uvloop(tmp_path: Path) -> None:
    res = pi_run(["--demo"], clean_env(tmp_path, PI_LSP_EVENT_LOOP="uvloop"))
    assert res.returncode == 0, res.stderr
    assert "✓ Hello, world!" in res.stdout
