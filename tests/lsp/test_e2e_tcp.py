"""``pi-lsp --tcp HOST:PORT``: the same server over one TCP connection."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path

from lsprotocol import types
from pytest_lsp import client_capabilities

from .harness import Harness, make_client, text_reply, uri_of, write_script


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_serves_over_tcp(tmp_path: Path, workspace: Path, data_dir: Path) -> None:
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pi_lsp", "--tcp", f"127.0.0.1:{port}",
        env={**os.environ, "PI_LSP_DATA_DIR": str(data_dir)},
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        client = make_client(recorders=False)
        for _ in range(300):  # until the server listens (it imports pygls first)
            try:
                await client.start_tcp("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.05)
        h = Harness(client, workspace)
        script = write_script(tmp_path / "s.json", [text_reply("over tcp")])
        await client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities("neovim@v0.11.0"), root_uri=uri_of(workspace),
            initialization_options={"pi": {"provider": "faux", "fauxScript": str(script)}}))
        sid = await h.run("hello")
        end = await h.wait_event(sid, "agent_end")
        assert end["messages"][-1]["content"][0]["text"] == "over tcp"
        await client.shutdown_async(None)
        client.exit(None)
        assert await asyncio.wait_for(proc.wait(), 20) == 0
        await client.stop()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
