"""Backend A over the real server: a client declaring ``lspQuery`` answers ``pi/lspQuery``
with its own servers' LSP JSON (UTF-16 params in, the result rendered for the model); a
rename's WorkspaceEdit comes back as data and the server applies it as one
``workspace/applyEdit``; ``MethodNotFound`` falls back to the configured servers; a client
without the capability and no ``lspServers`` gets no ``lsp`` tool."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcMethodNotFound

from tests.langserv.conftest import FIXTURE, JEDI

from .conftest import Start
from .harness import VSCODE, text_reply, tool_reply
from .test_editor_files import faux, result_text

WHERE = {"path": "app/config.py", "line": 18, "symbol": "load_config"}


def copy_project(workspace: Path) -> None:
    shutil.copytree(FIXTURE / "app", workspace / "app")


def lsp_query(pi: dict[str, Any]) -> dict[str, Any]:
    return {**pi, "clientCapabilities": {"lspQuery": True}}


def answering(h: Any, answer: Any) -> list[dict[str, Any]]:
    asked: list[dict[str, Any]] = []

    @h.client.feature("pi/lspQuery")
    def on_query(params: Any) -> Any:
        data = json.loads(json.dumps(params, default=lambda o: o.__dict__))
        asked.append(data)
        return answer(data)

    return asked


def rng(line: int, start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


async def test_the_editor_answers_references(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    copy_project(workspace)
    script = faux(
        tmp_path, tool_reply("lsp", {"operation": "references", **WHERE}), text_reply("ok")
    )
    h = await pi_in_process(capabilities=VSCODE, pi=lsp_query(script))
    main = (workspace / "app" / "main.py").as_uri()
    asked = answering(h, lambda _: {"result": [{"uri": main, "range": rng(4, 15, 26)}]})
    sid = await h.run("who calls load_config")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is False, end
    assert result_text(end) == 'app/main.py:5:16  settings = load_config("main")'
    (query,) = asked
    assert query["method"] == "textDocument/references"
    assert query["params"]["position"] == {"line": 17, "character": 4}


async def test_a_rename_from_the_editor_is_applied_by_the_server_as_one_edit(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    copy_project(workspace)
    rename = {"operation": "rename", "newName": "read_config", **WHERE}
    h = await pi_in_process(
        capabilities=VSCODE,
        pi=lsp_query(faux(tmp_path, tool_reply("lsp", rename), text_reply("ok"))),
    )
    config = (workspace / "app" / "config.py").as_uri()
    main = (workspace / "app" / "main.py").as_uri()
    edit = {
        "changes": {
            config: [{"range": rng(17, 4, 15), "newText": "read_config"}],
            main: [
                {"range": rng(0, 23, 34), "newText": "read_config"},
                {"range": rng(4, 15, 26), "newText": "read_config"},
                {"range": rng(9, 15, 26), "newText": "read_config"},
            ],
        }
    }
    answering(h, lambda _: {"result": edit})
    h.open(workspace / "app" / "main.py")
    sid = await h.run("rename it")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is False, end
    assert "4 occurrences in 2 files" in result_text(end)
    (applied,) = h.edits  # one workspace/applyEdit, from the server
    assert {c.text_document.uri for c in applied.edit.document_changes or ()} == {config, main}
    assert (workspace / "app" / "config.py").read_text().count("read_config") == 1
    assert h.docs[main][1].count("read_config") == 3


async def test_method_not_found_falls_back_to_the_configured_servers(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    if not JEDI.exists():
        pytest.skip("jedi-language-server is not installed")
    copy_project(workspace)
    agent = tmp_path / "agent"
    agent.mkdir()
    servers = {"python": {"command": str(JEDI), "extensionToLanguage": {".py": "python"}}}
    (agent / "settings.json").write_text(json.dumps({"lspServers": servers}))
    script = faux(
        tmp_path,
        tool_reply(
            "lsp",
            {"operation": "definition", "path": "app/main.py", "line": 5, "symbol": "load_config"},
        ),
        text_reply("ok"),
    )
    h = await pi_in_process(
        capabilities=VSCODE, env={"PI_CODING_AGENT_DIR": str(agent)}, pi=lsp_query(script)
    )

    def none(_: Any) -> Any:
        raise JsonRpcMethodNotFound("no definition provider")

    asked = answering(h, none)
    sid = await h.run("where is load_config")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is False, end
    assert result_text(end).startswith("app/config.py:18:5  def load_config")
    assert len(asked) == 1


async def test_no_capability_and_no_servers_no_tool(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    copy_project(workspace)
    h = await pi_in_process(
        capabilities=VSCODE,
        env={"PI_CODING_AGENT_DIR": str(tmp_path / "empty-agent")},
        pi=faux(
            tmp_path, tool_reply("lsp", {"operation": "references", **WHERE}), text_reply("ok")
        ),
    )
    sid = await h.run("who calls load_config")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is True
    assert "lsp" in result_text(end)
    assert "not found" in result_text(end)
