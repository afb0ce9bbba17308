"""Issue 42 in an ACP client: a background process's tool call stays ``in_progress`` with its
output updates until it ends (as terminal data for a client with Zed's extension, as content
for one without: both client profiles); ``session/cancel`` kills only the background processes the
cancelled prompt started; "start the dev server, curl it, stop it" never blocks the turn;
``usage_update.size`` is the model's context window; ``/export``."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.openai_sse import response, text_events, tool_events
from tests.mcp.support import processes_with
from tests.support.http_server import Pause, ScriptedHTTPServer

from .harness import CODECOMPANION, FULL, Profile, in_process

pytestmark = pytest.mark.timeout(90)

SERVER = """
import http.server, pathlib
srv = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
pathlib.Path("port.txt").write_text(str(srv.server_address[1]))
print("serving", flush=True)
srv.serve_forever()
"""
CURL = (
    "until [ -s port.txt ]; do sleep 0.05; done; "
    "python3 -c \"import urllib.request; print('status', urllib.request.urlopen("
    "'http://127.0.0.1:' + open('port.txt').read() + '/').status)\""
)


def calls(*items: tuple[str, dict[str, Any]]) -> Any:
    return response(tool_events(list(items)))


CONTENT = dataclasses.replace(CODECOMPANION, name="content", only_during_prompts=False)
"""A client that shows tool output as content and keeps updates between turns (CodeCompanion
drops those, so it cannot watch a process end between turns)."""


def terminal_exit(agent: Any, call_id: str) -> list[int]:
    """The exit codes a terminal client was told of, in order."""
    return [
        (u.field_meta or {})["terminal_exit"]["exit_code"]
        for u in agent.client.tool_updates(call_id)
        if "terminal_exit" in (u.field_meta or {})
    ]


def statuses(agent: Any, call_id: str) -> list[str]:
    return [u.status for u in agent.client.tool_updates(call_id) if u.status]


async def until(predicate: Any) -> None:
    async with asyncio.timeout(30):
        while not predicate():
            await asyncio.sleep(0.05)


async def test_start_curl_and_stop_a_dev_server(
    tmp_path: Path, monkeypatch: Any, profile: Profile
) -> None:
    marker = f"acp-dev-{uuid.uuid4().hex[:8]}"
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(calls(("bash", {"command": f"python3 -u {marker}.py", "background": True})))
        srv.enqueue(calls(("bash_output", {"id": "bg1"}), ("bash", {"command": CURL})))
        srv.enqueue(calls(("bash_kill", {"id": "bg1"})))
        srv.enqueue(response(text_events("Served and stopped.")))
        async with in_process(tmp_path, srv.url, monkeypatch, "--yes", profile=profile) as agent:
            (agent.cwd / f"{marker}.py").write_text(SERVER)
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "serve, curl, stop") == "end_turn"
            # the first call (the server) stayed in progress past its result, then completed
            # when bash_kill stopped it; the curl got its answer meanwhile
            assert "status 200" in agent.client.shown_output("call_1_bash")
            assert statuses(agent, "call_0_bash")[-1] == "completed"
            assert '"GET / HTTP/1.1" 200' in agent.client.shown_output("call_0_bash")
            ends = [u for u in agent.client.tool_updates("call_0_bash_kill") if u.status]
            assert ends[-1].status == "completed"
            assert processes_with(marker) == []
            first_result = next(u for u in agent.client.tool_updates("call_0_bash") if u.raw_output)
            assert first_result.status == "in_progress"
            assert "background as bg1" in str(first_result.raw_output)


@pytest.mark.parametrize("profile", [FULL, CONTENT], ids=str)
async def test_a_process_that_exits_by_itself_ends_its_call_when_the_model_reads_the_exit(
    tmp_path: Path, monkeypatch: Any, profile: Profile
) -> None:
    marker = f"acp-exit-{uuid.uuid4().hex[:8]}"
    # it waits for the file "go" (the test creates it once the turn is over), then exits 3
    command = f"sh -c 'until [ -f go ]; do sleep 0.05; done; echo finished; exit 3' {marker}"
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(calls(("bash", {"command": command, "background": True})))
        srv.enqueue(response(text_events("Started.")))
        srv.enqueue(calls(("bash_output", {"id": "bg1"})))
        srv.enqueue(response(text_events("It exited with code 3.")))
        async with in_process(tmp_path, srv.url, monkeypatch, "--yes", profile=profile) as agent:
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "start it") == "end_turn"
            assert statuses(agent, "call_0_bash")[-1] == "in_progress"
            (agent.cwd / "go").write_text("")
            await until(lambda: not processes_with(marker))
            await agent.client.wait_for(
                lambda: "finished" in agent.client.shown_output("call_0_bash")
            )
            if profile.terminal_output:  # the terminal exited: Zed shows its status
                await agent.client.wait_for(lambda: terminal_exit(agent, "call_0_bash") == [1])
            else:  # the content shows it
                await agent.client.wait_for(
                    lambda: "exited with code 3" in agent.client.shown_output("call_0_bash")
                )
            # the process has ended, but the model has not read that: still in progress
            assert statuses(agent, "call_0_bash")[-1] == "in_progress"
            assert await agent.prompt(sid, "read it") == "end_turn"
            await agent.client.wait_for(lambda: statuses(agent, "call_0_bash")[-1] != "in_progress")
            assert statuses(agent, "call_0_bash")[-1] == "failed"
            ends = [u for u in agent.client.tool_updates("call_0_bash") if u.raw_output]
            assert ends[-1].raw_output["exitCode"] == 3
            assert terminal_exit(agent, "call_0_bash") == ([1] if profile.terminal_output else [])


async def test_closing_the_session_ends_the_call_of_a_process_that_exited_unread(
    tmp_path: Path, monkeypatch: Any
) -> None:
    marker = f"acp-unread-{uuid.uuid4().hex[:8]}"
    command = f"sh -c 'until [ -f go ]; do sleep 0.05; done; echo bye' {marker}"
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(calls(("bash", {"command": command, "background": True})))
        srv.enqueue(response(text_events("Started.")))
        async with in_process(tmp_path, srv.url, monkeypatch, "--yes") as agent:
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "start it") == "end_turn"
            (agent.cwd / "go").write_text("")
            await agent.client.wait_for(lambda: terminal_exit(agent, "call_0_bash") == [0])
            assert statuses(agent, "call_0_bash")[-1] == "in_progress"
            await agent.conn.close_session(session_id=sid)
            assert statuses(agent, "call_0_bash")[-1] == "completed"


async def test_output_updates_after_the_turn_and_the_cancel_rule(
    tmp_path: Path, monkeypatch: Any
) -> None:
    first = f"acp-keep-{uuid.uuid4().hex[:8]}"
    second = f"acp-cancel-{uuid.uuid4().hex[:8]}"
    watcher = f"sh -c 'i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.1; done' {first}"
    gate = Pause(asyncio.Event())
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(calls(("bash", {"command": watcher, "background": True})))
        srv.enqueue(response(text_events("Watching.")))
        srv.enqueue(
            calls(
                ("bash_output", {"id": "bg1"}),
                ("bash", {"command": f"sh -c 'sleep 600' {second}", "background": True}),
            )
        )
        srv.enqueue(response(text_events("never finished"), gate=gate, gate_after=1))
        async with in_process(tmp_path, srv.url, monkeypatch, "--yes") as agent:
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "start a watcher") == "end_turn"
            # the turn is over; the call is still in progress and its output keeps coming
            assert statuses(agent, "call_0_bash")[-1] == "in_progress"
            await agent.client.wait_for(
                lambda: "tick 5" in agent.client.shown_output("call_0_bash")
            )
            assert statuses(agent, "call_0_bash")[-1] == "in_progress"

            pending = asyncio.ensure_future(agent.prompt(sid, "start another, then wait"))
            await until(lambda: processes_with(second))
            await agent.client.wait_for(lambda: len(srv.requests) >= 4)
            await agent.conn.cancel(session_id=sid)
            assert await asyncio.wait_for(pending, 30) == "cancelled"
            gate.event.set()
            # the cancelled prompt's process is killed; the earlier prompt's keeps running
            await until(lambda: not processes_with(second))
            assert processes_with(first)
            # its tool call ends (killed); the earlier prompt's stays in progress
            await agent.client.wait_for(lambda: statuses(agent, "call_1_bash")[-1] == "completed")
            assert statuses(agent, "call_0_bash")[-1] == "in_progress"
        # closing the session (the client went away) ends the rest
        await until(lambda: not processes_with(first))


async def test_usage_size_is_the_model_context_window(tmp_path: Path, monkeypatch: Any) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("hello")))
        async with in_process(tmp_path, srv.url, monkeypatch, "--context-window", "32768") as agent:
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "hi") == "end_turn"
            usage = agent.client.of("usage_update", sid)
            assert usage
            assert {u.size for u in usage} == {32768}


async def test_export_command_writes_the_page(tmp_path: Path, monkeypatch: Any) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("The answer is 42.")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "what is the answer?") == "end_turn"
            commands = agent.client.of("available_commands_update", sid)
            assert "export" in {c.name for c in commands[-1].available_commands}
            assert await agent.prompt(sid, "/export page.html") == "end_turn"
            page = (agent.cwd / "page.html").read_text()
            assert "The answer is 42." in page
            assert f"Exported the session to {agent.cwd / 'page.html'}" in agent.client.text(sid)
