"""A real third-party ACP client: ``acpx`` (npm, pinned in .ci/install-acpx.sh) drives
``pi-lsp acp`` against the scripted model. ``exec --approve-all`` sees text, tool calls and
the end of the turn; ``--deny-all`` exits with acpx's permission-denied code (5); a persisted
acpx session is continued by a new agent process (acpx reopens it with ``session/resume``,
which we advertise, or ``session/load``). In CI a missing acpx fails the tier."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import clean_env
from tests.lsp.openai_sse import response, text_events, tool_events
from tests.mcp.support import processes_with
from tests.support.http_server import ScriptedHTTPServer

from .test_acp_background import CURL
from .test_acp_background import SERVER as DEV_SERVER

pytestmark = pytest.mark.timeout(120)
DEFAULT_ACPX = Path.home() / ".cache" / "pi-lsp-ci" / "acpx" / "node_modules" / ".bin" / "acpx"
PERMISSION_DENIED = 5


@pytest.fixture(scope="module")
def acpx() -> str:
    path = Path(os.environ.get("PI_LSP_ACPX") or DEFAULT_ACPX)
    if not path.exists():
        message = f"acpx is not installed at {path}: run bash .ci/install-acpx.sh"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return str(path)


def agent_command(url: str) -> str:
    return shlex.join(
        [
            sys.executable,
            "-m",
            "pi_lsp",
            "acp",
            "--provider",
            "openai-compatible",
            "--base-url",
            url + "/v1",
            "--model",
            "test-model",
        ]
    )


async def run_acpx(
    acpx: str, tmp_path: Path, url: str, *args: str, **extra_env: str
) -> tuple[int, list[dict[str, Any]], str]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    env = clean_env(tmp_path, HOME=str(tmp_path / "home"), **extra_env)
    proc = await asyncio.create_subprocess_exec(
        acpx,
        "--agent",
        agent_command(url),
        "--cwd",
        str(work),
        *args,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 90)
    messages = [json.loads(line) for line in out.decode().splitlines() if line.startswith("{")]
    assert proc.returncode is not None
    return proc.returncode, messages, err.decode()


def updates(messages: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [
        m["params"]["update"]
        for m in messages
        if m.get("method") == "session/update" and m["params"]["update"]["sessionUpdate"] == kind
    ]


def stop_reasons(messages: list[dict[str, Any]]) -> list[str]:
    return [m["result"]["stopReason"] for m in messages if "stopReason" in (m.get("result") or {})]


async def test_acpx_exec_sees_text_tool_calls_and_the_end(acpx: str, tmp_path: Path) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(tool_events([("bash", {"command": "echo from-bash"})], text="Look.")))
        srv.enqueue(response(text_events("It printed from-bash.")))
        code, messages, err = await run_acpx(
            acpx, tmp_path, srv.url, "--approve-all", "--format", "json", "exec", "run it"
        )
    assert code == 0, err
    text = "".join(u["content"]["text"] for u in updates(messages, "agent_message_chunk"))
    assert text == "Look.It printed from-bash."
    calls = updates(messages, "tool_call")
    assert [c["toolCallId"] for c in calls] == ["call_0_bash"]
    done = [u for u in updates(messages, "tool_call_update") if u.get("status") == "completed"]
    assert done
    # acpx has no terminal view (no _meta.terminal_output): the output is content text
    assert [c["type"] for c in done[-1]["content"]] == ["content"]
    assert "from-bash" in done[-1]["content"][0]["content"]["text"]
    assert stop_reasons(messages) == ["end_turn"]


async def test_acpx_deny_all_exits_with_permission_denied(acpx: str, tmp_path: Path) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(tool_events([("bash", {"command": "touch made-by-bash"})])))
        srv.enqueue(response(text_events("I was not allowed.")))
        code, messages, _ = await run_acpx(
            acpx, tmp_path, srv.url, "--deny-all", "--format", "json", "exec", "make a file"
        )
        tool_message = next(m for m in srv.requests[1].json["messages"] if m["role"] == "tool")
    assert code == PERMISSION_DENIED
    assert not (tmp_path / "work" / "made-by-bash").exists()
    assert "denied" in tool_message["content"]
    assert [u["status"] for u in updates(messages, "tool_call_update") if u.get("status")][-1] == (
        "failed"
    )


async def _gone(pid: int) -> None:
    """Until the process ``pid`` has exited (acpx's idle agent after its TTL)."""
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        await asyncio.sleep(0.05)


async def test_a_persisted_acpx_session_is_continued_by_a_new_agent(
    acpx: str, tmp_path: Path
) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("First answer.")))
        srv.enqueue(response(text_events("Second answer.")))
        code, _, err = await run_acpx(acpx, tmp_path, srv.url, "sessions", "new")
        assert code == 0, err
        code, first, err = await run_acpx(
            acpx, tmp_path, srv.url, "--ttl", "1", "--format", "json", "prompt", "remember 42"
        )
        assert code == 0, err
        assert stop_reasons(first) == ["end_turn"]
        records = list((tmp_path / "home" / ".acpx" / "sessions").glob("*.json"))
        record = json.loads(records[0].read_text())
        session_id = record["acp_session_id"]
        await asyncio.wait_for(_gone(int(record["pid"])), 60)  # the agent process ended
        code, second, err = await run_acpx(
            acpx, tmp_path, srv.url, "--ttl", "1", "--format", "json", "prompt", "what number?"
        )
        assert code == 0, err
        history = json.dumps(srv.requests[1].json["messages"])
    reopen = [m for m in second if m.get("method") in ("session/load", "session/resume")]
    assert reopen
    assert reopen[0]["params"]["sessionId"] == session_id
    assert "session/new" not in [m.get("method") for m in second]
    assert "remember 42" in history
    assert "First answer." in history
    assert stop_reasons(second) == ["end_turn"]


async def test_acpx_runs_a_template_prompt_and_sees_the_commands(acpx: str, tmp_path: Path) -> None:
    """Issue 37: a user template and a project one (trusted with ``--approve-all``: acpx
    answers the trust question) arrive expanded; the commands are advertised."""
    agent_dir = tmp_path / "agent"
    (agent_dir / "prompts").mkdir(parents=True)
    (agent_dir / "prompts" / "review.md").write_text("Review $1 with care.\n")
    project = tmp_path / "work" / ".pi" / "prompts"
    project.mkdir(parents=True)
    (project / "ship.md").write_text("Ship $@ today.\n")
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("Reviewed.")))
        srv.enqueue(response(text_events("Shipped.")))
        code, messages, err = await run_acpx(
            acpx,
            tmp_path,
            srv.url,
            "--approve-all",
            "--format",
            "json",
            "exec",
            "/review a.py",
            PI_CODING_AGENT_DIR=str(agent_dir),
        )
        assert code == 0, err
        code, _, err = await run_acpx(
            acpx,
            tmp_path,
            srv.url,
            "--approve-all",
            "--format",
            "json",
            "exec",
            "/ship v1 now",
            PI_CODING_AGENT_DIR=str(agent_dir),
        )
        assert code == 0, err
        sent = [r.json["messages"][-1]["content"] for r in srv.requests]
    assert stop_reasons(messages) == ["end_turn"]
    texts = [c if isinstance(c, str) else c[0]["text"] for c in sent]
    assert texts == ["Review a.py with care.\n", "Ship v1 now today.\n"]
    names = {
        c["name"]
        for u in updates(messages, "available_commands_update")
        for c in u["availableCommands"]
    }
    assert {"compact", "context", "reload", "review"} <= names


async def test_acpx_starts_curls_and_stops_a_dev_server(acpx: str, tmp_path: Path) -> None:
    """Issue 42: the turn never blocks on the server; its tool call stays in progress until
    bash_kill; no process remains."""
    marker = f"acpx-dev-{uuid.uuid4().hex[:8]}"
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / f"{marker}.py").write_text(DEV_SERVER)
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(
            response(
                tool_events([("bash", {"command": f"python3 -u {marker}.py", "background": True})])
            )
        )
        srv.enqueue(
            response(tool_events([("bash_output", {"id": "bg1"}), ("bash", {"command": CURL})]))
        )
        srv.enqueue(response(tool_events([("bash_kill", {"id": "bg1"})])))
        srv.enqueue(response(text_events("Served and stopped.")))
        code, messages, err = await run_acpx(
            acpx, tmp_path, srv.url, "--approve-all", "--format", "json", "exec", "serve it"
        )
    assert code == 0, err
    assert stop_reasons(messages) == ["end_turn"]
    tool_updates = updates(messages, "tool_call_update")

    def of(call_id: str) -> list[dict[str, Any]]:
        return [u for u in tool_updates if u["toolCallId"] == call_id]

    curl = [u for u in of("call_1_bash") if u.get("status") == "completed"]
    assert "status 200" in curl[-1]["content"][0]["content"]["text"]
    server = [u["status"] for u in of("call_0_bash") if u.get("status")]
    assert "in_progress" in server
    assert server[-1] == "completed"  # bash_kill ended it, not the server's start
    assert processes_with(marker) == []
