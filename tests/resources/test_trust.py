"""Project trust decisions: one per directory, the closest ancestor's applies, kept outside
the repository; what needs trust."""

from __future__ import annotations

from pathlib import Path

from pi_lsp.resources import ProjectTrustStore, protected_paths

from .trees import build, write


def test_closest_ancestor_decision_applies(tmp_path: Path) -> None:
    store = ProjectTrustStore(tmp_path / "data" / "project-trust.json")
    parent, child = tmp_path / "p", tmp_path / "p" / "c" / "d"
    child.mkdir(parents=True)
    assert store.decision(str(child)) is None
    store.remember(str(parent), "trusted")
    assert store.decision(str(child)) == "trusted"
    store.remember(str(tmp_path / "p" / "c"), "untrusted")
    assert store.decision(str(child)) == "untrusted"
    assert store.decision(str(parent)) == "trusted"
    store.forget(str(tmp_path / "p" / "c"))
    assert store.decision(str(child)) == "trusted"
    assert (tmp_path / "data" / "project-trust.json").stat().st_mode & 0o777 == 0o600


def test_an_unreadable_store_asks_again(tmp_path: Path) -> None:
    path = write(tmp_path / "project-trust.json", "{broken")
    assert ProjectTrustStore(path).decision(str(tmp_path)) is None


def test_what_needs_trust(tmp_path: Path) -> None:
    tree = build(tmp_path)
    write(tree.cwd / ".pi" / "SYSTEM.md", "x")
    found = protected_paths(str(tree.cwd), home=str(tree.home))
    assert found == [
        str(tree.cwd / ".pi" / "SYSTEM.md"),
        str(tree.cwd / ".pi" / "skills"),
        str(tree.repo / ".agents" / "skills"),
        str(tree.cwd / ".pi" / "prompts"),
    ]
    bare = tmp_path / "bare"
    (bare / ".pi").mkdir(parents=True)
    write(bare / "AGENTS.md", "context files need no trust")
    assert protected_paths(str(bare), home=str(tree.home)) == []
