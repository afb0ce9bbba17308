"""Fixtures of the MCP tests: the SDK-built demo server (tests/mcp/servers/demo_server.py)
over Streamable HTTP on 127.0.0.1, and a hub that is always closed."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.mcp.config import parse_servers
from pi_lsp.mcp.hub import McpHub

DEMO = Path(__file__).parent / "servers" / "demo_server.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_listening(port: int, proc: subprocess.Popen[Any]) -> None:
    """Until the port accepts connections (the server process must stay alive)."""
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"the demo server exited ({proc.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(0.05)


@pytest.fixture
def demo_http() -> Iterator[str]:
    """The demo server's MCP URL."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(DEMO), "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_listening(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()  # a graceful stop would wait for the client's open streams
        proc.wait(10)


def demo_stdio(**extra: Any) -> dict[str, Any]:
    env = dict(extra.pop("env", {}).items())
    return {
        "command": sys.executable,
        "args": [str(DEMO), "stdio"],
        "env": {"PYTHONPATH": os.pathsep.join(sys.path), **env},
        **extra,
    }


@pytest.fixture
async def hub() -> AsyncIterator[McpHub]:
    hub = McpHub()
    yield hub
    await hub.aclose()


def configure(hub: McpHub, servers: dict[str, Any], source: Any = "user") -> None:
    loaded = parse_servers({"mcpServers": servers}, source, "test")
    assert loaded.problems == []
    hub.configure(loaded)
