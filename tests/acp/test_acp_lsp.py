"""The lsp tool through ``pi-lsp acp`` (in process, the ACP SDK's client): Backend B — the
user's ``lspServers`` (jedi-language-server) started by pi-lsp — answers references, then the
rename lands in both files; the server stops with the session."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.langserv.conftest import FIXTURE, JEDI
from tests.lsp.openai_sse import response, text_events, tool_events
from tests.mcp.support import processes_with
from tests.support.http_server import ScriptedHTTPServer

from .harness import in_process

pytestmark = pytest.mark.timeout(120)
WHERE = {"path": "app/config.py", "line": 18, "symbol": "load_config"}


async def test_references_then_rename_over_acp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not JEDI.exists():
        pytest.skip("jedi-language-server is not installed")
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    servers = {"python": {"command": str(JEDI), "extensionToLanguage": {".py": "python"}}}
    (agent_dir / "settings.json").write_text(json.dumps({"lspServers": servers}))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir))
    (tmp_path / "work").mkdir()
    shutil.copytree(FIXTURE / "app", tmp_path / "work" / "app")
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(tool_events([("lsp", {"operation": "references", **WHERE})])))
        rename = {"operation": "rename", "newName": "read_config", **WHERE}
        srv.enqueue(response(tool_events([("lsp", rename)])))
        srv.enqueue(response(text_events("Renamed.")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            agent.client.answer = lambda req: "allowOnce"
            await agent.init()
            res = await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[])
            sid = str(res.session_id)
            assert await agent.prompt(sid, "who calls load_config? rename it") == "end_turn"
            tools = [t["function"]["name"] for t in srv.requests[0].json["tools"]]
            assert "lsp" in tools
            assert "app/main.py:5:16" in json.dumps(srv.requests[1].json["messages"])
            assert "4 occurrences in 2 files" in json.dumps(srv.requests[2].json["messages"])
            main = (agent.cwd / "app" / "main.py").read_text()
            assert main.count("read_config") == 3
            assert processes_with(str(JEDI))
        assert processes_with(str(JEDI)) == []  # stopped with the session
