"""Worktree isolation on a real temporary git repository (docs/subagents.md#worktree-isolation):
the child starts from what the user sees, its change comes back merged, what cannot be merged
is listed and its worktree kept, and nothing is left behind after a prune."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pi_lsp.ai import TextContent, ToolResultMessage
from pi_lsp.subagents.definitions import BUILTIN_GENERAL
from pi_lsp.subagents.runner import ChildSpec
from pi_lsp.subagents.worktrees import GitWorktrees, list_worktrees, prune
from pi_lsp.tools.disk_workspace import DiskWorkspace
from tests.subagents.helpers import calls, make_session, task, text


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PI_LSP_DATA_DIR", str(tmp_path / "data"))


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q")
    (root / "app.py").write_text("a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n")
    (root / ".gitignore").write_text("ignored.txt\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    # what the user sees: a dirty tracked file, an untracked one, an ignored one
    (root / "app.py").write_text("a = 1\nb = 2\nc = 3\nd = 4\ne = 50\n")
    (root / "notes.txt").write_text("untracked notes\n")
    (root / "ignored.txt").write_text("secret-ish\n")
    return root


def worktree_list(repo: Path) -> list[str]:
    return [
        line.split(" ", 1)[1]
        for line in git(repo, "worktree", "list", "--porcelain").splitlines()
        if line.startswith("worktree ")
    ]


def results(session: object) -> list[ToolResultMessage]:
    messages = session.agent.state.messages  # type: ignore[attr-defined]
    return [m for m in messages if isinstance(m, ToolResultMessage)]


def body(result: ToolResultMessage) -> str:
    return "".join(b.text for b in result.content if isinstance(b, TextContent))


async def test_the_child_sees_the_users_state_and_its_edit_comes_back_merged(
    tmp_path: Path, repo: Path
) -> None:
    seen = tmp_path / "seen.txt"
    edit = {"path": "app.py", "edits": [{"oldText": "a = 1\n", "newText": "a = 100\n"}]}
    session = make_session(
        tmp_path,
        [
            calls(task("fix a", "CHILD-W: fix a", isolation="worktree")),
            calls(
                ("bash", {"command": f"cat app.py notes.txt > {seen}; ls ignored.txt || true"}),
                ("edit", edit),
                when="CHILD-W",
            ),
            text("fixed a", when="CHILD-W"),
            text("Parent: applied"),
        ],
        cwd=repo,
        permissions={"bash": "allow"},
        tool_execution="sequential",
    )
    await session.prompt("go")
    [result] = results(session)
    assert not result.is_error, body(result)
    # the child started from the dirty file and the untracked one, not a clean checkout
    assert seen.read_text() == "a = 1\nb = 2\nc = 3\nd = 4\ne = 50\nuntracked notes\n"
    # its edit came back, merged with the user's own change
    assert (repo / "app.py").read_text() == "a = 100\nb = 2\nc = 3\nd = 4\ne = 50\n"
    assert "Applied from its worktree: app.py" in body(result)
    # the worktree was outside the repository, and is gone
    assert worktree_list(repo) == [str(repo)]
    assert list_worktrees() == []
    session.close()


async def test_an_overlapping_change_is_listed_and_the_worktree_kept(
    tmp_path: Path, repo: Path
) -> None:
    edit = {"path": "app.py", "edits": [{"oldText": "c = 3\n", "newText": "c = 30\n"}]}
    user_edit = f"sed -i 's/c = 3/c = 33/' {repo / 'app.py'}"  # the user, meanwhile
    session = make_session(
        tmp_path,
        [
            calls(task("fix c", "CHILD-W: fix c", isolation="worktree")),
            calls(("edit", edit), ("bash", {"command": user_edit}), when="CHILD-W"),
            calls(("write", {"path": "new.txt", "content": "brand new\n"}), when="CHILD-W"),
            text("fixed c", when="CHILD-W"),
            text("Parent: saw it"),
        ],
        cwd=repo,
        permissions={"bash": "allow"},
        tool_execution="sequential",
    )
    await session.prompt("go")
    [result] = results(session)
    text_ = body(result)
    assert "Applied from its worktree: new.txt" in text_
    assert "app.py (overlaps your changes at line 3)" in text_
    assert (repo / "app.py").read_text().splitlines()[2] == "c = 33"  # the user's kept
    assert (repo / "new.txt").read_text() == "brand new\n"
    [kept] = list_worktrees()
    assert kept.kept
    assert f"Its worktree is kept at {kept.path}" in text_
    assert "c = 30" in (Path(kept.path) / "app.py").read_text()
    assert await prune() == []  # a kept one stays until asked
    assert await prune(kept_too=True) == [kept.path]
    assert worktree_list(repo) == [str(repo)]
    session.close()


async def test_a_worktree_left_by_a_crash_is_pruned(tmp_path: Path, repo: Path) -> None:
    worktrees = GitWorktrees(DiskWorkspace([repo]), "root-session")
    path = await worktrees.start(
        ChildSpec("child-1", "root-session", "call-1", BUILTIN_GENERAL, "x")
    )
    assert path in worktree_list(repo)
    # the process dies here (kill -9): nothing finishes it; the next start prunes
    assert await prune() == [path]
    assert worktree_list(repo) == [str(repo)]
    assert not Path(path).exists()


async def test_outside_a_repository_the_task_fails_clearly(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    session = make_session(
        tmp_path,
        [calls(task("x", "CHILD-W: x", isolation="worktree")), text("Parent: ok")],
        cwd=plain,
    )
    await session.prompt("go")
    [result] = results(session)
    assert result.is_error
    assert "worktree: worktree isolation needs a git repository" in body(result)
    session.close()


async def test_deletions_and_binaries_are_listed_not_applied(tmp_path: Path, repo: Path) -> None:
    (repo / "old.txt").write_text("old\n")
    git(repo, "add", "old.txt")
    git(repo, "commit", "-qm", "old")
    command = "rm old.txt && printf 'a\\0b' > blob.bin"
    session = make_session(
        tmp_path,
        [
            calls(task("tidy", "CHILD-W: tidy", isolation="worktree")),
            calls(("bash", {"command": command}), when="CHILD-W"),
            text("tidied", when="CHILD-W"),
            text("Parent: seen"),
        ],
        cwd=repo,
        permissions={"bash": "allow"},
    )
    await session.prompt("go")
    [result] = results(session)
    text_ = body(result)
    assert "old.txt (deleted: not applied)" in text_
    assert "blob.bin (binary: not applied)" in text_
    assert (repo / "old.txt").exists()
    assert not (repo / "blob.bin").exists()
    [kept] = list_worktrees()
    assert kept.kept
    assert f"Its worktree is kept at {kept.path}" in text_
    session.close()
