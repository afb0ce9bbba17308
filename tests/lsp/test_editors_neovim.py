"""docs/editors.md's Neovim set-ups, verbatim, in real headless Neovim 0.7 and 0.11.

Each run starts the server from the docs' config (only ``cmd`` and ``init_options`` are
swapped for this checkout and a faux script), sends ``:Pi change it``, streams the answer into
the docs' chat buffer, and lets Neovim's own ``workspace/applyEdit`` handler change the file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .harness import tool_reply, write_script

DOCS = Path(__file__).resolve().parents[2] / "docs" / "editors.md"
VENV_NVIM = Path(sys.executable).parent / "nvim"

PREAMBLE = r"""
local root = os.getenv("PI_TEST_ROOT")
local out = os.getenv("PI_TEST_OUT")
local function finish(result)
  local f = io.open(out, "w"); f:write(vim.json.encode(result)); f:close()
  vim.cmd(result.ok and "qall!" or "cquit 1")
end
vim.cmd("edit " .. root .. "/a.py")
local function clients()
  if vim.lsp.get_clients then return vim.lsp.get_clients({ bufnr = 0 }) end
  return vim.lsp.buf_get_clients(0)
end
if not vim.wait(30000, function() return next(clients()) ~= nil end, 20) then
  return finish({ ok = false, why = "not attached" })
end
vim.cmd("Pi change it")
local buf = vim.fn.bufnr(root .. "/a.py")
"""
"""Open a.py, wait for the server, send ``:Pi change it`` (shared by the drivers)."""

DRIVER = (
    PREAMBLE
    + r"""
local chat = require("pi_chat")
local done = vim.wait(30000, function()
  if chat.buf == nil then return false end
  local text = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
  return text:find("-- done --", 1, true) ~= nil
end, 20)
finish({
  ok = done,
  chat = chat.buf and table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n"),
  buffer = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"),
  modified = vim.bo[buf].modified,
})
"""
)


def snippet(name: str) -> str:
    text = DOCS.read_text(encoding="utf-8")
    match = re.search(rf"<!-- snippet: {re.escape(name)} -->\n```lua\n(.*?)```", text, re.S)
    assert match, f"snippet {name} not found in {DOCS}"
    return match.group(1)


def nvim_binary(version: str) -> str | None:
    candidates = [str(VENV_NVIM), shutil.which("nvim") or ""]
    for binary in candidates:
        if not binary or not Path(binary).exists():
            continue
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
        if out.stdout.startswith(f"NVIM v{version}"):
            return binary
    return None


def scenario(tmp_path: Path) -> tuple[Path, Path]:
    """A faux script (edit a.py, then answer) and a workspace holding a.py."""
    script = write_script(
        tmp_path / "script.json",
        [
            tool_reply(
                "edit",
                {"path": "a.py", "edits": [{"oldText": "return 1", "newText": "return 2"}]},
                text="Changing it.",
            ),
            {"content": [{"type": "text", "text": "Done: f returns 2."}]},
        ],
    )
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    (root / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    return script, root


def run_nvim(
    binary: str,
    tmp_path: Path,
    root: Path,
    config: str,
    script: Path,
    driver: str,
    lua_dir: Path | None = None,
) -> dict[str, Any]:
    """Run a docs config (the server command and model swapped for this checkout and a faux
    script) plus ``driver`` in headless Neovim; the driver's JSON result."""
    for original, replacement in (
        ('cmd = { "pi-lsp" },', f'cmd = {{ "{sys.executable}", "-m", "pi_lsp" }},'),
        (
            'provider = "anthropic", model = "claude-sonnet-4-5"',
            f'provider = "faux", fauxScript = "{script}"',
        ),
    ):
        assert original in config
        config = config.replace(original, replacement)
    test_lua = tmp_path / "test.lua"
    prefix = f'package.path = "{lua_dir}/?.lua;" .. package.path\n' if lua_dir else ""
    test_lua.write_text(prefix + 'vim.cmd("filetype on")\n' + config + driver, encoding="utf-8")
    out = tmp_path / "out.json"
    env = {
        **os.environ,
        "PI_TEST_ROOT": str(root),
        "PI_TEST_OUT": str(out),
        "PI_LSP_DATA_DIR": str(tmp_path / "data"),
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    proc = subprocess.run(
        [binary, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {test_lua}"],
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert out.exists(), proc.stdout + proc.stderr
    result: dict[str, Any] = json.loads(out.read_text())
    return result


@pytest.mark.editor
@pytest.mark.parametrize(("version", "setup"), [("0.7", "nvim-0.7"), ("0.11", "nvim-0.11")])
def test_docs_neovim_setup(tmp_path: Path, version: str, setup: str) -> None:
    binary = nvim_binary(version)
    if binary is None:
        pytest.skip(f"Neovim {version} is not installed (apt-get install neovim gives 0.7)")
    lua_dir = tmp_path / "lua"
    lua_dir.mkdir()
    (lua_dir / "pi_chat.lua").write_text(snippet("pi_chat"), encoding="utf-8")
    script, root = scenario(tmp_path)
    result = run_nvim(binary, tmp_path, root, snippet(setup), script, DRIVER, lua_dir)
    assert result["ok"], result
    assert "> change it" in result["chat"]
    assert "Changing it." in result["chat"]
    assert "Done: f returns 2." in result["chat"]
    assert "[edit " in result["chat"]
    assert result["buffer"] == "def f():\n    return 2"
    assert result["modified"] is True  # the edit is in the buffer, undoable, not saved by us
    assert (root / "a.py").read_text() == "def f():\n    return 2\n"  # disk follows


PLAIN_DRIVER = (
    PREAMBLE
    + r"""
local done = vim.wait(30000, function()
  return vim.fn.execute("messages"):find("Transcript: ", 1, true) ~= nil
end, 20)
local function loaded()
  local names = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then table.insert(names, vim.api.nvim_buf_get_name(b)) end
  end
  return names
end
if vim.fn.has("nvim-0.11") == 1 then
  -- window/showDocument follows the message: wait for the transcript buffer, not a time
  vim.wait(10000, function()
    for _, name in ipairs(loaded()) do
      if name:sub(-3) == ".md" then return true end
    end
    return false
  end, 20)
end
local buffers = loaded()
finish({
  ok = done,
  messages = vim.fn.execute("messages"),
  buffers = buffers,
  current = vim.api.nvim_buf_get_name(0),
  buffer = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"),
})
"""
)


@pytest.mark.editor
@pytest.mark.parametrize(
    ("version", "setup"), [("0.7", "nvim-0.7-plain"), ("0.11", "nvim-0.11-plain")]
)
def test_docs_neovim_plain_setup_shows_the_answer(tmp_path: Path, version: str, setup: str) -> None:
    """No chat view, no handlers: the answer reaches the user as an LSP message (in
    ``:messages``), with the transcript path; 0.11 also opens the transcript, cursor kept."""
    binary = nvim_binary(version)
    if binary is None:
        pytest.skip(f"Neovim {version} is not installed (apt-get install neovim gives 0.7)")
    script, root = scenario(tmp_path)
    result = run_nvim(binary, tmp_path, root, snippet(setup), script, PLAIN_DRIVER)
    assert result["ok"], result
    messages = result["messages"]
    assert "LSP[pi][Info] pi: Done: f returns 2." in messages
    transcript = Path(messages.split("Transcript: ", 1)[1].split()[0])
    assert transcript.suffix == ".md"
    text = transcript.read_text(encoding="utf-8")
    assert "> change it" in text
    assert "**edit**" in text
    assert result["buffer"] == "def f():\n    return 2"
    assert result["current"] == str(root / "a.py")  # the cursor stayed in the file
    if version == "0.11":  # declares window/showDocument: the transcript is shown
        assert str(transcript) in result["buffers"]
