"""``pi-lsp run`` with the ``lsp`` tool (Backend B end to end): jedi-language-server from the
user's ``lspServers``, a scripted model asking who calls ``load_config`` and renaming it; a
project's ``.lsp.json`` starts nothing in an untrusted project."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.langserv.conftest import FIXTURE, JEDI

from .helpers import clean_env, faux_script, pi_run


def call(**arguments: object) -> dict[str, object]:
    return {"type": "toolCall", "name": "lsp", "arguments": arguments}


def setup(tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    if not JEDI.exists():
        pytest.skip("jedi-language-server is not installed")
    work = tmp_path / "work"
    shutil.copytree(FIXTURE, work)
    agent = tmp_path / "agent"
    agent.mkdir()
    servers = {"python": {"command": str(JEDI), "extensionToLanguage": {".py": "python"}}}
    (agent / "settings.json").write_text(json.dumps({"lspServers": servers}))
    where = {"path": "app/config.py", "line": 18, "symbol": "load_config"}
    script = faux_script(
        tmp_path / "script.json",
        [
            {"content": [call(operation="references", **where)]},
            {"content": [call(operation="rename", newName="read_config", **where)]},
            {"content": [{"type": "text", "text": "Done."}]},
        ],
    )
    return work, clean_env(tmp_path, PI_CODING_AGENT_DIR=str(agent)), script


def test_references_then_rename_through_pi_lsp_run(tmp_path: Path) -> None:
    work, env, script = setup(tmp_path)
    args = ["who calls load_config? rename it", "--cwd", str(work), "--faux-script", str(script)]
    res = pi_run([*args, "--json", "--no-save"], env, timeout=120)
    assert res.returncode == 0, res.stderr
    ends = [json.loads(line) for line in res.stdout.splitlines() if '"tool_execution_end"' in line]
    references, rename = (json.dumps(e) for e in ends)
    assert "app/main.py:5:16" in references
    assert "Renamed load_config to read_config: 4 occurrences in 2 files." in rename
    assert '"isError": false' in rename
    assert "read_config" in (work / "app" / "main.py").read_text()


def test_an_untrusted_projects_lsp_json_starts_nothing(tmp_path: Path) -> None:
    work, env, script = setup(tmp_path)
    (tmp_path / "agent" / "settings.json").write_text("{}")
    servers = {"python": {"command": str(JEDI), "extensionToLanguage": {".py": "python"}}}
    (work / ".lsp.json").write_text(json.dumps({"lspServers": servers}))
    res = pi_run(["x", "--cwd", str(work), "--faux-script", str(script), "--no-save"], env)
    assert res.returncode == 0, res.stderr
    assert "lsp not found" in res.stdout + res.stderr
