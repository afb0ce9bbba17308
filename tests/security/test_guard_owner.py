"""The process guard (pi_lsp/security/process_guard.py) knows its owner from the command line,
for every process it guards: an MCP server or a language server whose owner is killed
(``kill -9``) before the guard's first look — the guard's parent is then another process, so
its own ``getppid()`` at start-up names the wrong one — still ends; nothing is left in the
process table.

The racy moment is made every time, not hoped for: the owner (a small host process that
starts the server through pi-lsp's own code) runs the guard through a wrapper that waits
until the owner is gone before it becomes the guard."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import demo_stdio
from tests.mcp.support import processes_with

DEADLINE = 30.0
JEDI = Path(sys.executable).parent / "jedi-language-server"

HOST = """
import asyncio, json, sys
from pathlib import Path

setup = json.loads(Path(sys.argv[1]).read_text())  # not on the command line: no marker there
kind, config, root = setup["kind"], json.dumps(setup["config"]), Path(setup["root"])
sys.executable = setup["wrapper"]  # the guard is started as `wrapper -I -S process_guard.py …`

async def main() -> None:
    if kind == "mcp":
        from pi_lsp.mcp.config import McpServerConfig
        from pi_lsp.mcp.server import McpServer

        McpServer(McpServerConfig.model_validate_json(config)).start()
    else:
        from pi_lsp.langserv.config import LspServerConfig
        from pi_lsp.langserv.server import LanguageServerProcess

        server = LanguageServerProcess(LspServerConfig.model_validate_json(config), root)
        asyncio.ensure_future(server.ensure_started())
    await asyncio.sleep(3600)

asyncio.run(main())
"""

WRAPPER = """#!/bin/sh
# the guard starts only once its owner is gone: the racy moment, every time
while kill -0 "$PPID" 2>/dev/null; do sleep 0.05; done
exec {python} "$@"
"""

LAUNCHER = """#!/bin/sh
# a language server that starts a helper of its own (a daemon, a file watcher…): the server
# ends when its stdin closes, the helper only when the guard kills the group
sh -c 'sleep 600; :' "$0-helper" &
exec {jedi} "$@"
"""


async def until(predicate: Any) -> None:
    """Poll the process table (the event we wait for) until ``predicate`` holds."""
    async with asyncio.timeout(DEADLINE):
        while not predicate():
            await asyncio.sleep(0.05)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


async def owner_killed_before_the_guard_looks(
    tmp_path: Path, kind: str, config: dict[str, Any], marker: str
) -> None:
    """Start the server from a host that dies before the guard's first look; then nothing is
    left: neither the guard nor anything of the server (found by ``marker``)."""
    host = tmp_path / "host.py"
    host.write_text(textwrap.dedent(HOST))
    wrapper = tmp_path / f"late-python-{uuid.uuid4().hex[:10]}"
    wrapper.write_text(WRAPPER.format(python=sys.executable))
    wrapper.chmod(0o755)
    setup = {"kind": kind, "wrapper": str(wrapper), "config": config, "root": str(tmp_path)}
    (tmp_path / "host.json").write_text(json.dumps(setup))
    proc = subprocess.Popen(
        [sys.executable, str(host), str(tmp_path / "host.json")],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    try:
        await until(lambda: processes_with(wrapper.name))  # the guard-to-be, waiting
        (guard,) = processes_with(wrapper.name)
        proc.kill()
        await asyncio.to_thread(proc.wait)
        # the guard ends either way (the server ends when its stdin closes); what the server
        # started is gone only when the guard killed the group
        await until(lambda: not alive(guard))
        await until(lambda: not processes_with(marker))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in processes_with(marker):
            os.kill(pid, signal.SIGKILL)  # a failed run leaves nothing either


async def test_an_mcp_server_whose_owner_died_before_the_guard_looked_is_not_left(
    tmp_path: Path,
) -> None:
    marker = f"demo-child-{uuid.uuid4().hex[:10]}"
    config = {"name": "demo", "transport": "stdio", **demo_stdio(env={"DEMO_CHILD": marker})}
    await owner_killed_before_the_guard_looks(tmp_path, "mcp", config, marker)


async def test_a_language_server_whose_owner_died_before_the_guard_looked_is_not_left(
    tmp_path: Path,
) -> None:
    if not JEDI.exists():
        pytest.skip("jedi-language-server is not installed (pip install -e '.[test]')")
    launcher = tmp_path / f"jedi-{uuid.uuid4().hex[:10]}"
    launcher.write_text(LAUNCHER.format(jedi=JEDI))
    launcher.chmod(0o755)
    config = {"name": "python", "command": str(launcher), "extensionToLanguage": {".py": "python"}}
    await owner_killed_before_the_guard_looks(tmp_path, "lsp", config, launcher.name)
