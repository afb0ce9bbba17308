"""What good LSP clients do for their servers: a document not asked about for a while is
``didClose``d (the server does not keep every file ever touched; the next question opens it
again), and the pool reloads when its configuration changes — the servers whose entry
changed restart, the others keep running. Observed on the server's side through a recorder
(``servers/recording.py``) in front of the real jedi-language-server; no server outlives
its pool."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

from pi_lsp.langserv import ServerPool
from pi_lsp.resources import ResourceOptions
from pi_lsp.runtime.lsp_servers import language_servers
from pi_lsp.tools.disk_workspace import DiskWorkspace

from .conftest import JEDI, config, server
from .test_failures import definition_at, gone

RECORDING = Path(__file__).resolve().parent / "servers" / "recording.py"


def recorded(log: Path) -> dict[str, object]:
    return {
        "command": sys.executable,
        "args": [str(RECORDING), str(log), str(JEDI)],
        "extensionToLanguage": {".py": "python"},
    }


async def seen(log: Path, line: str, count: int = 1, limit: float = 20.0) -> None:
    deadline = time.monotonic() + limit
    while not log.exists() or log.read_text().splitlines().count(line) < count:
        assert time.monotonic() < deadline, f"the server never got {line!r} x{count}"
        await asyncio.sleep(0.02)


async def test_an_idle_document_is_closed_and_opened_again_when_asked(
    ws: DiskWorkspace, project: Path, tmp_path: Path
) -> None:
    log = tmp_path / "methods.txt"
    rec = server(command=sys.executable, args=[str(RECORDING), str(log), str(JEDI)])
    pool = ServerPool(config(rec), ws, timeout=30, document_idle_s=0.3)
    main = project / "app" / "main.py"
    uri = main.as_uri()
    try:
        answer = await pool.query("textDocument/definition", definition_at(main), path=main)
        assert answer.result[0]["uri"].endswith("app/config.py")
        proc = next(iter(pool.servers.values()))
        await seen(log, f"textDocument/didClose {uri}")
        assert main not in proc.documents
        assert proc.state == "ready"  # the server keeps running: only the document closed
        again = await pool.query("textDocument/definition", definition_at(main), path=main)
        assert again.result[0]["uri"].endswith("app/config.py")
        await seen(log, f"textDocument/didOpen {uri}", count=2)
        pgid = proc.pid
        assert pgid is not None
    finally:
        await pool.aclose()
    assert await gone(pgid), "the language server outlived its pool"


async def test_a_changed_project_config_restarts_its_server_at_the_next_refresh(
    ws: DiskWorkspace, project: Path, tmp_path: Path
) -> None:
    agent = tmp_path / "agent"  # no user settings: only the project's file
    agent.mkdir()
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    lsp_json = project / ".lsp.json"
    lsp_json.write_text(json.dumps({"python": recorded(first)}))
    pool = language_servers(ws, trusted=True, resources=ResourceOptions(agent_dir=str(agent)))
    assert isinstance(pool, ServerPool)
    main = project / "app" / "main.py"
    try:
        await pool.query("textDocument/definition", definition_at(main), path=main)
        old = next(iter(pool.servers.values())).pid
        assert old is not None
        assert await pool.refresh() is False  # nothing changed: the server stays
        assert next(iter(pool.servers.values())).pid == old
        lsp_json.write_text(json.dumps({"python": recorded(second)}))
        assert await pool.refresh() is True
        assert await gone(old), "the server of the old entry was not stopped"
        answer = await pool.query("textDocument/definition", definition_at(main), path=main)
        assert answer.result[0]["uri"].endswith("app/config.py")
        await seen(second, "initialize ")  # the new entry's server answered
        new = next(iter(pool.servers.values())).pid
        assert new is not None
        assert new != old
        lsp_json.unlink()  # the entry removed: its server stops, the tool says so
        assert await pool.refresh() is True
        assert await gone(new)
        assert not pool.serves(main)
    finally:
        await pool.aclose()
