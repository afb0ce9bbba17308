"""The front ends' event loop: uvloop by default (a dependency where it has wheels), asyncio's
own loop where it has none or when ``PI_LSP_EVENT_LOOP=asyncio`` asks. The rest of the suite
spawns the server and ``pi-lsp run`` on the default; here the language server streams a run
with an HTTP model and a tool call, and ``pi-lsp run --demo`` finishes, on asyncio's loop."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.cli.helpers import clean_env, pi_run
from tests.support.http_server import ScriptedHTTPServer

from .conftest import http_settings
from .openai_sse import response, text_events, tool_events
from .raw import RawClient


def test_a_fresh_process_runs_on_uvloop_unless_asked_for_asyncio() -> None:
    code = (
        "import asyncio\n"
        "from pi_lsp.runtime.event_loop import loop_name, run\n"
        "async def main(): return loop_name(asyncio.get_running_loop())\n"
        "print(run(main()))\n"
    )
    choices = ((None, "uvloop"), ("uvloop", "uvloop"), ("auto", "uvloop"), ("asyncio", "asyncio"))
    for choice, expected in choices:
        env = {"PATH": "/usr/bin:/bin", **({"PI_LSP_EVENT_LOOP": choice} if choice else {})}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        assert out.stdout.strip() == expected


async def test_the_server_streams_a_run_with_a_tool_call_on_asyncio(
    workspace: Path, data_dir: Path
) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(
            response(tool_events([("read", {"path": "a.py"})])),
            response(text_events("It returns 1.")),
        )
        c = await RawClient.start(data_dir, PI_LSP_EVENT_LOOP="asyncio")
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


def test_pi_lsp_run_demo_on_asyncio(tmp_path: Path) -> None:
    res = pi_run(["--demo"], clean_env(tmp_path, PI_LSP_EVENT_LOOP="asyncio"))
    assert res.returncode == 0, res.stderr
    assert "✓ Hello, world!" in res.stdout
