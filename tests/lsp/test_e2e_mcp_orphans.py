"""Issue 26: no MCP server process outlives the language server — after ``shutdown``, after
the client disconnects (stdin closed), and after ``kill -9`` of the server (the guard,
pi_lsp/security/process_guard.py, kills the server's process group). The real
``mcp-server-time`` runs under a unique name, started ``eager`` from the ``pi.mcpServers``
setting."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import demo_stdio
from tests.mcp.support import processes_with, unique_time_server

from .conftest import Start
from .harness import Harness, stop

DEADLINE = 30.0


@pytest.fixture(autouse=True)
def no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


async def until(predicate: Any) -> None:
    """Poll the process table (the event we wait for) until ``predicate`` holds."""
    async with asyncio.timeout(DEADLINE):
        while not predicate():
            await asyncio.sleep(0.05)


async def started(pi: Start, tmp_path: Path) -> tuple[Harness, str]:
    command = unique_time_server(tmp_path)
    settings = {
        "provider": "faux",
        "mcpServers": {"time": {"command": str(command), "eager": True}},
    }
    h = await pi(pi=settings, env={"XDG_CONFIG_HOME": str(tmp_path / "config")})
    await h.call("pi/newSession")
    await until(lambda: processes_with(command.name))
    state = await h.call("pi/mcp")
    assert state["servers"][0]["name"] == "time"
    return h, command.name


async def test_no_orphan_after_shutdown(pi: Start, tmp_path: Path) -> None:
    h, marker = await started(pi, tmp_path)
    await stop(h)
    assert processes_with(marker) == []


async def test_no_orphan_after_the_client_disconnects(pi: Start, tmp_path: Path) -> None:
    h, marker = await started(pi, tmp_path)
    proc = h.client._server  # type: ignore[attr-defined]
    proc.stdin.close()  # the editor went away without shutdown
    await asyncio.wait_for(proc.wait(), DEADLINE)
    await until(lambda: not processes_with(marker))


async def test_no_orphan_after_kill_9_of_the_server(pi: Start, tmp_path: Path) -> None:
    h, marker = await started(pi, tmp_path)
    proc = h.client._server  # type: ignore[attr-defined]
    proc.kill()
    await asyncio.wait_for(proc.wait(), DEADLINE)
    await until(lambda: not processes_with(marker))


async def test_kill_9_also_ends_what_the_server_started(pi: Start, tmp_path: Path) -> None:
    """The server's own child (``npx`` → ``node``) outlives a server that exits when its
    stdin closes; only the guard's kill of the process group ends it."""
    marker = f"demo-child-{uuid.uuid4().hex[:10]}"
    server = demo_stdio(env={"DEMO_CHILD": marker}, eager=True)
    h = await pi(pi={"provider": "faux", "mcpServers": {"demo": server}})
    await h.call("pi/newSession")
    await until(lambda: processes_with(marker))
    proc = h.client._server  # type: ignore[attr-defined]
    proc.kill()
    await asyncio.wait_for(proc.wait(), DEADLINE)
    await until(lambda: not processes_with(marker))
