"""One version for pi-lsp, the VS Code extension and the Neovim plugin (pi_lsp/__init__.py is
the source), the changelog that names it, and the protocol version the clients need."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from pi_lsp import __version__
from pi_lsp.lsp.protocol.features import PROTOCOL_VERSION

ROOT = Path(__file__).resolve().parents[1]


def _lua_field(name: str) -> str:
    text = (ROOT / "editors/neovim/lua/pi/version.lua").read_text()
    found = re.search(rf"^\s*{name} = \"?([^\",]+)\"?,", text, re.M)
    assert found, f"editors/neovim/lua/pi/version.lua has no {name}"
    return found.group(1)


def test_pyproject_reads_the_version_from_the_package() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    dynamic = project["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "pi_lsp.__version__"}


def test_extension_and_plugin_carry_the_same_version() -> None:
    package = json.loads((ROOT / "vscode-client/package.json").read_text())
    assert package["version"] == __version__
    assert _lua_field("version") == __version__


def test_changelog_names_the_version() -> None:
    changelog = (ROOT / "docs/CHANGELOG.md").read_text()
    releases = re.findall(r"^## \[([^\]]+)\]", changelog, re.M)
    assert releases[0] == "Unreleased"
    assert releases[1] == __version__, "the latest release heading is the package's version"


def test_clients_need_no_newer_protocol_than_the_server_speaks() -> None:
    ts = (ROOT / "vscode-client/src/install/version.ts").read_text()
    found = re.search(r"REQUIRED_PROTOCOL = (\d+);", ts)
    assert found
    assert int(found.group(1)) == PROTOCOL_VERSION
    assert int(_lua_field("protocol")) == PROTOCOL_VERSION
