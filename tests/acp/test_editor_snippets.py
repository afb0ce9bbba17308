"""The ACP set-up snippets of docs/editors.md parse: JSON with ``json.loads``, Lua with
``luac -p`` (or Neovim's ``loadfile``), elisp with ``emacs --batch`` reading every form, shell
with ``bash -n``. In CI a missing checker fails the test instead of skipping it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## ACP editors"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def _snippets() -> list[tuple[str, str]]:
    text = (ROOT / "docs" / "editors.md").read_text()
    start = text.index(SECTION)
    end = text.index("\n## ", start + 1)
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer(text[start:end])]


def _need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{tool} is not installed")
        pytest.skip(f"{tool} is not installed")
    return path


def test_the_section_has_a_snippet_for_every_client() -> None:
    kinds = [kind for kind, _ in _snippets()]
    assert kinds.count("json") == 2  # Zed, JetBrains
    assert kinds.count("lua") == 2  # CodeCompanion, avante
    assert kinds.count("elisp") == 1  # agent-shell
    assert kinds.count("sh") == 1  # acpx


@pytest.mark.parametrize(("index", "kind"), list(enumerate(k for k, _ in _snippets())))
def test_snippet_parses(tmp_path: Path, index: int, kind: str) -> None:
    code = _snippets()[index][1]
    if kind == "json":
        config = json.loads(code)
        server = config["agent_servers"]["pi-lsp"]
        assert server["command"] == "pi-lsp"
        assert server["args"][0] == "acp"
        return
    source = tmp_path / f"snippet.{kind}"
    source.write_text(code)
    if kind == "lua":
        luac = shutil.which("luac")
        if luac is not None:
            cmd = [luac, "-p", str(source)]
        else:
            check = tmp_path / "check.lua"
            check.write_text(f"assert(loadfile({json.dumps(str(source))}))\n")
            cmd = [_need("nvim"), "-l", str(check)]
    elif kind == "elisp":
        cmd = [
            _need("emacs"),
            "--batch",
            "--eval",
            f"(with-temp-buffer (insert-file-contents {json.dumps(str(source))}) "
            "(goto-char (point-min)) (forward-comment (buffer-size)) "
            "(while (not (eobp)) (read (current-buffer)) (forward-comment (buffer-size))))",
        ]
    else:
        assert kind == "sh", kind
        cmd = [_need("bash"), "-n", str(source)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert "pi-lsp" in code
