"""The ``clientCapabilities`` each shipped client declares are keys the server knows
(docs/protocol.md#1-initialization): a key the server does not know is logged as "ignoring
unknown settings" on every start, and means one of the two sides is wrong. Read from the
clients' sources (the VS Code extension's ``CLIENT_CAPABILITIES``, the Neovim plugin's
``capabilities()``) so the check needs neither editor."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pi_lsp.lsp.settings import ClientFeatures, client_features

ROOT = Path(__file__).resolve().parents[2]
KNOWN = {field.alias or name for name, field in ClientFeatures.model_fields.items()}


def _vscode_keys() -> set[str]:
    source = (ROOT / "vscode-client" / "src" / "server.ts").read_text(encoding="utf-8")
    block = re.search(r"export const CLIENT_CAPABILITIES = \{(.*?)\n\};", source, re.S)
    assert block, "CLIENT_CAPABILITIES not found in vscode-client/src/server.ts"
    body = re.sub(r"/\*.*?\*/|//[^\n]*", "", block.group(1), flags=re.S)
    return set(re.findall(r"^\s*(\w+):", body, re.M))


def _neovim_keys() -> set[str]:
    source = (ROOT / "editors" / "neovim" / "lua" / "pi" / "client.lua").read_text(encoding="utf-8")
    block = re.search(r"function M\.capabilities\(\)\n\s*return \{(.*?)\n\s*\}\nend", source, re.S)
    assert block, "M.capabilities() not found in editors/neovim/lua/pi/client.lua"
    body = re.sub(r"--[^\n]*", "", block.group(1))
    return set(re.findall(r"^\s*(\w+)\s*=", body, re.M))


@pytest.mark.parametrize("client", ["vscode", "neovim"])
def test_every_declared_client_capability_is_known_to_the_server(client: str) -> None:
    keys = _vscode_keys() if client == "vscode" else _neovim_keys()
    assert {"events", "saveDocuments", "diagnostics"} <= keys  # the parse found the block
    assert keys - KNOWN == set(), f"{client} declares capabilities the server does not know"
    _features, report = client_features({"clientCapabilities": dict.fromkeys(keys, True)})
    assert report.unknown == []
