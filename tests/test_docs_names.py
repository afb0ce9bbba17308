"""Every command, setting and flag README.md and docs/cli.md name exists (as the editors doc's
set-ups are run verbatim by tests/lsp/test_editors_*.py): a ``--flag`` is an option of
``pi-lsp run``, the server or ``pi-lsp acp``; ``:PiX`` a command of the Neovim plugin; a
``pi.x`` setting or a JSON settings key a server setting (or one of the VS Code extension's);
a "pi: Title" a command of the extension. Read from the sources, no editor started."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from pi_lsp.acp.args import build_parser as acp_parser
from pi_lsp.cli.args import build_parser as run_parser
from pi_lsp.cli.export import build_parser as export_parser
from pi_lsp.cli.review import build_parser as review_parser
from pi_lsp.cli.worktrees import USAGE as worktrees_usage
from pi_lsp.lsp.settings import Settings
from pi_lsp.main import _server_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "docs" / "cli.md"]
LINK_TARGET = re.compile(r"\]\([^)]*\)")
CODE = re.compile(r"```.*?```|`[^`\n]+`", re.S)


def _code(doc: Path) -> str:
    """The doc's code (spans and blocks), link targets left out (anchors look like flags)."""
    text = LINK_TARGET.sub("", doc.read_text(encoding="utf-8"))
    return "\n".join(m.group(0) for m in CODE.finditer(text))


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {o for a in parser._actions for o in a.option_strings if o.startswith("--")}


FLAGS = (
    _options(run_parser())
    | _options(_server_parser())
    | _options(acp_parser())
    | _options(review_parser())
    | _options(export_parser())
    | set(re.findall(r"--[a-z][a-z-]*", worktrees_usage))  # hand-parsed: its usage line
)
SETTINGS = {f.alias or n for n, f in Settings.model_fields.items()} | {
    "lspServers"  # the agent dir's settings.json and .pi/lsp.json (pi_lsp/langserv/config.py)
}
PACKAGE = json.loads((ROOT / "vscode-client" / "package.json").read_text(encoding="utf-8"))
VSCODE_SETTINGS = {
    key.removeprefix("pi.").split(".")[0]
    for key in PACKAGE["contributes"]["configuration"]["properties"]
}
VSCODE_TITLES = {c["title"] for c in PACKAGE["contributes"]["commands"]}
NVIM_COMMANDS = set(
    re.findall(r'"(Pi[A-Za-z]*)"', (ROOT / "editors" / "neovim" / "plugin" / "pi.lua").read_text())
)
NOT_OURS = {"--local-timezone"}  # an MCP server's own flag in an example configuration


def _flags(code: str) -> set[str]:
    # pytest's and pip's own flags are not ours: only what follows `pi-lsp` on its line
    found: set[str] = set()
    for line in code.splitlines():
        if "pi-lsp" in line or line.lstrip("`").startswith("--"):
            found |= set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]+", line))
    return found - NOT_OURS


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_flag_named_exists(doc: Path) -> None:
    named = _flags(_code(doc))
    assert named, "no flag found: the parse is wrong"
    assert named - FLAGS == set()


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_command_named_exists(doc: Path) -> None:
    code = _code(doc)
    nvim = set(re.findall(r":(Pi[A-Za-z]*)", code))
    assert nvim - NVIM_COMMANDS == set()
    titles = set(re.findall(r"\bpi: ([A-Z][^`*\n]*?)(?:`|\*\*|$)", doc.read_text(), re.M))
    assert titles - VSCODE_TITLES == set()


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_setting_named_exists(doc: Path) -> None:
    code = _code(doc)
    dotted = {m.split(".")[0] for m in re.findall(r"\bpi\.([a-zA-Z][\w.]*)", code)}
    spans = {m.strip("`") for m in re.findall(r"`[a-z][A-Za-z]+`", code)}
    named_settings = {s for s in spans if s in SETTINGS or s.endswith(("Mode", "Servers"))}
    json_keys: set[str] = set()
    for snippet in re.findall(r'\{"pi": (\{.*?\})\}', code, re.S):
        json_keys |= set(re.findall(r'"(\w+)":', snippet)[:1])
    assert (dotted | named_settings | json_keys) - SETTINGS - VSCODE_SETTINGS == set()


def test_the_check_sees_a_missing_name(tmp_path: Path) -> None:
    """The parses above are not vacuous: a made-up flag, command and setting are caught."""
    doc = tmp_path / "doc.md"
    doc.write_text("`pi-lsp run --no-such-flag` and `:PiNoSuch`, the `pi.noSuchSetting` setting\n")
    assert "--no-such-flag" in _flags(_code(doc)) - FLAGS
    assert set(re.findall(r":(Pi[A-Za-z]*)", _code(doc))) - NVIM_COMMANDS == {"PiNoSuch"}
    assert "noSuchSetting" not in SETTINGS | VSCODE_SETTINGS
