"""The lsp tool in the language server (Backend B: jedi-language-server from the user's
``lspServers``, asked about the editor's unsaved buffers): a rename lands as ONE
``workspace/applyEdit`` with both files' versioned document changes, becomes review hunks in
both files and one checkpoint's files, and a hunk can be undone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.langserv.conftest import FIXTURE, JEDI

from .conftest import Start
from .harness import VSCODE, text_reply, tool_reply
from .test_editor_files import faux

RENAME = {
    "operation": "rename",
    "path": "app/config.py",
    "line": 18,
    "symbol": "load_config",
    "newName": "read_config",
}


async def test_a_rename_is_one_reviewed_undoable_edit_across_files(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    if not JEDI.exists():
        pytest.skip("jedi-language-server is not installed")
    shutil.copytree(FIXTURE / "app", workspace / "app")
    agent = tmp_path / "agent"
    agent.mkdir()
    servers = {"python": {"command": str(JEDI), "extensionToLanguage": {".py": "python"}}}
    (agent / "settings.json").write_text(json.dumps({"lspServers": servers}))
    h = await pi_in_process(
        capabilities=VSCODE,
        env={"PI_CODING_AGENT_DIR": str(agent)},
        pi=faux(tmp_path, tool_reply("lsp", RENAME), text_reply("renamed")),
    )
    main_text = (workspace / "app" / "main.py").read_text()
    unsaved = main_text.replace("def again()", "def again_unsaved()")  # the user's typing
    main_uri = h.open(workspace / "app" / "main.py", unsaved)
    config_uri = h.open(workspace / "app" / "config.py")
    sid = await h.run("rename load_config to read_config")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is False, end
    (edit,) = h.edits  # one workspace/applyEdit for the whole rename
    changed = {c.text_document.uri: c for c in edit.edit.document_changes or ()}
    assert set(changed) == {main_uri, config_uri}
    assert all(c.text_document.version is not None for c in changed.values())
    assert "read_config" in h.docs[config_uri][1]
    main_now = h.docs[main_uri][1]
    assert "def again_unsaved()" in main_now  # the user's unsaved text is kept
    assert main_now.count("read_config") == 3
    review = (await h.call("pi/review", {"sessionId": sid}))["files"]
    assert {f["uri"] for f in review} == {main_uri, config_uri}
    checkpoints = (await h.call("pi/checkpoints", {"sessionId": sid}))["checkpoints"]
    assert set(checkpoints[-1]["files"]) == {main_uri, config_uri}
    (config_file,) = [f for f in review if f["uri"] == config_uri]
    hunk = config_file["hunks"][0]
    result = await h.call(
        "pi/reviewDecision",
        {"sessionId": sid, "decisions": [{"hunkId": hunk["id"], "decision": "undo"}]},
    )
    assert result["applied"] == [hunk["id"]]
    assert "def load_config(" in h.docs[config_uri][1]
