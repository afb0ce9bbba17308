"""``pi-lsp lsp doctor``: each configured server with its files, whether its command is
found and whether it really starts and initializes (then stops: no process is left in the
project), whether the project's own files count (trust) — a missing command is named, and
the exit status says whether every server works."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pi_lsp.cli.lsp_doctor import main

from .conftest import JEDI


def processes_in(root: Path) -> list[int]:
    """The processes whose working directory is ``root`` (the servers the doctor started)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.readlink(entry / "cwd") == str(root):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def settings(agent: Path, servers: dict[str, object]) -> None:
    agent.mkdir(exist_ok=True)
    (agent / "settings.json").write_text(json.dumps({"lspServers": servers}))


def test_doctor_reports_a_good_server_and_a_missing_command(
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    agent = tmp_path / "agent"
    settings(
        agent,
        {
            "python": {"command": str(JEDI), "extensionToLanguage": {".py": "python"}},
            "rust": {"command": "no-such-rust-server", "extensionToLanguage": {".rs": "rust"}},
        },
    )
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    assert main(["doctor", "--cwd", str(project), "--timeout", "60"]) == 1  # rust fails
    out = capsys.readouterr().out
    python = out[out.index("python: OK") : out.index("rust:")]
    assert "files: *.py (python)" in python
    assert f"found at {JEDI}" in python
    assert "jedi-language-server" in python
    assert "initialized in" in python
    assert "definition, references" in python
    rust = out[out.index("rust: FAILED") :]
    assert "files: *.rs (rust)" in rust
    assert "no-such-rust-server — NOT FOUND" in rust
    assert processes_in(project) == [], "the doctor left a language server running"

    settings(agent, {"python": {"command": str(JEDI), "extensionToLanguage": {".py": "python"}}})
    assert main(["doctor", "--cwd", str(project), "--no-start"]) == 0
    out = capsys.readouterr().out
    assert "python: OK" in out
    assert "initialized" not in out  # not started


def test_doctor_says_when_the_projects_own_servers_are_not_trusted(
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings(tmp_path / "agent", {})
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # no saved trust decision
    entry = {"python": {"command": str(JEDI), "extensionToLanguage": {".py": "python"}}}
    (project / ".lsp.json").write_text(json.dumps(entry))
    assert main(["doctor", "--cwd", str(project), "--no-start"]) == 1
    out = capsys.readouterr().out
    assert "NOT read, the project is not trusted" in out
    assert str(project / ".lsp.json") in out
    assert "No language server is configured" in out
