"""The layer import direction of docs/architecture.md, enforced on the source.

- nothing under ai/, agent/, tools/, sessions/, review/ imports pygls or lsprotocol;
- security/ and review/ (pure text algorithms) import nothing of ours; ai/ imports nothing of
  ours above it; agent/ and tools/ do not import lsp/ or sessions/; sessions/ does not import
  lsp/.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "pi_lsp"
EDITOR_LIBS = {"pygls", "lsprotocol"}

ABOVE_AI = {
    "pi_lsp.agent",
    "pi_lsp.tools",
    "pi_lsp.sessions",
    "pi_lsp.lsp",
    "pi_lsp.cli",
    "pi_lsp.run",
}
FORBIDDEN: dict[str, set[str]] = {
    "security": {"pi_lsp.ai", *ABOVE_AI},  # stdlib only: everything may use it
    "ai": ABOVE_AI,
    "agent": {"pi_lsp.tools", "pi_lsp.sessions", "pi_lsp.lsp", "pi_lsp.cli", "pi_lsp.run"},
    "tools": {"pi_lsp.sessions", "pi_lsp.lsp", "pi_lsp.cli", "pi_lsp.run"},
    "sessions": {"pi_lsp.lsp", "pi_lsp.cli", "pi_lsp.run"},
}
FORBIDDEN["review"] = FORBIDDEN["ai"]  # pure text algorithms: nothing of ours either


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel_pkg = ".".join(("pi_lsp", *path.relative_to(PKG).parent.parts))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = rel_pkg.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports(layer: str) -> None:
    files = sorted((PKG / layer).rglob("*.py"))
    assert files, f"layer {layer} has no modules"
    problems = []
    for f in files:
        for mod in _imports(f):
            top = mod.split(".")[0]
            if top in EDITOR_LIBS:
                problems.append(f"{f.relative_to(PKG)} imports {mod}")
            if any(mod == bad or mod.startswith(bad + ".") for bad in FORBIDDEN[layer]):
                problems.append(f"{f.relative_to(PKG)} imports {mod}")
    assert not problems, "layer violations:\n" + "\n".join(problems)


def test_import_resolution_sees_relative_imports() -> None:
    # guard the guard: a relative import is resolved to its absolute name
    found = _imports(PKG / "agent" / "types.py")
    assert "pi_lsp.ai" in found


def test_the_cli_run_never_imports_the_language_server() -> None:
    """``pi-lsp run`` shares ``pi_lsp/wire.py`` with the server, never ``pi_lsp/lsp``."""
    problems = []
    for name in ("run.py", "run_output.py", "wire.py"):
        for mod in _imports(PKG / name):
            if mod == "pi_lsp.lsp" or mod.startswith("pi_lsp.lsp."):
                problems.append(f"{name} imports {mod}")
    assert not problems, "\n".join(problems)
