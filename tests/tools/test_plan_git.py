"""Plan mode against a hostile repository (issue 46): every git setting that names a program,
end to end — the real ``bash`` tool runs the real git in a workspace holding a repository
whose configuration (or hooks, attributes, submodule, remote) would run ``touch MARKER``.

Each case first runs the same command with the act-mode ``bash`` (when git would run the
program from a pipe at all) and sees the marker appear: the fixture is live. Then the
plan-mode ``bash`` runs it (or refuses it) and the marker must not appear."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from pi_lsp.tools import DiskWorkspace, ToolError
from pi_lsp.tools.bash import BashTool
from pi_lsp.tools.plan_mode import PlanModeBashTool
from tests.support.http_server import ScriptedHTTPServer, ScriptedResponse

from .conftest import call, text

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

MARK = "PWNED"


def git(repo: Path, *args: str) -> str:
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        ["git", "-c", "protocol.file.allow=always", *args],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


def new_repo(path: Path, *, bare: bool = False) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", *(["--bare"] if bare else []))
    if bare:
        return path
    git(path, "config", "user.email", "x@example.invalid")
    git(path, "config", "user.name", "x")
    (path / "a.txt").write_text("hello\n")
    (path / ".gitattributes").write_text("*.txt diff=evil filter=evil\n")
    git(path, "add", ".")
    git(path, "commit", "-qm", "init")
    return path


def touching(marker: Path) -> str:
    return f"touch {marker}; false"


def script(path: Path, marker: Path) -> str:
    path.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def dirty(repo: Path) -> None:
    """A change git must read through the filters (and a refreshed index to write)."""
    (repo / "a.txt").write_text("hello\nchanged\n")


def restat(repo: Path) -> None:
    """Same content, another modification time: ``git status`` refreshes the index entry
    and writes the index (when it may take the lock), which runs the index hook."""
    path = repo / "a.txt"
    path.write_text(path.read_text())
    os.utime(path, (1_000_000_000, 1_000_000_000))


def same_size(repo: Path) -> None:
    """Changed content of the same size: only hashing it (through the filters) tells."""
    (repo / "a.txt").write_text("HELLO\n")


def lazy_object(repo: Path, url: str) -> None:
    """A partial clone whose commit names a blob it does not have: reading it fetches from
    the promisor remote at ``url``."""
    git(repo, "config", "core.repositoryformatversion", "1")
    git(repo, "config", "extensions.partialClone", "origin")
    git(repo, "config", "remote.origin.url", url)
    git(repo, "config", "remote.origin.promisor", "true")
    missing = "1" * 40
    tree = subprocess.run(
        ["git", "mktree", "--missing"],
        cwd=repo,
        input=f"100644 blob {missing}\tmissing.txt\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    commit = git(repo, "commit-tree", tree, "-p", "HEAD", "-m", "lazy")
    git(repo, "update-ref", "refs/heads/lazy", commit)


def signed_commit(repo: Path) -> None:
    """HEAD with a (bogus) signature: showing it runs the gpg program to verify it."""
    body = git(repo, "cat-file", "commit", "HEAD")
    head, _, message = body.partition("\n\n")
    sig = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEz\n -----END PGP SIGNATURE-----"
    raw = f"{head}\n{sig}\n\n{message}\n"
    new = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=repo,
        input=raw,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    git(repo, "update-ref", "HEAD", new)


@dataclass(frozen=True)
class Case:
    name: str
    setup: Callable[[Path, Path], None]
    """(workspace root, marker) -> the hostile repository is at root/repo (or as named)."""
    command: str
    live_in_act_mode: bool = True
    """Whether the unguarded command really runs the program (from a pipe, no terminal)."""


def _cfg(key: str, value: Callable[[Path, Path], str], *, then: Callable[[Path], None] = dirty):
    def setup(root: Path, marker: Path) -> None:
        repo = new_repo(root / "repo")
        git(repo, "config", key, value(repo, marker))
        then(repo)

    return setup


def _hooks(root: Path, marker: Path) -> None:
    repo = new_repo(root / "repo")
    hook = repo / ".git" / "hooks" / "post-index-change"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    restat(repo)


def _hooks_path(root: Path, marker: Path) -> None:
    repo = new_repo(root / "repo")
    hooks = repo / "tools-hooks"
    hooks.mkdir()
    (hooks / "post-index-change").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (hooks / "post-index-change").chmod(0o755)
    git(repo, "config", "core.hooksPath", str(hooks))
    restat(repo)


def _ext_remote(root: Path, marker: Path) -> None:
    repo = new_repo(root / "repo")
    git(repo, "config", "protocol.ext.allow", "always")
    lazy_object(repo, f"ext::sh -c touch% {marker}")


def _ssh_remote(root: Path, marker: Path) -> None:
    repo = new_repo(root / "repo")
    git(repo, "config", "core.sshCommand", touching(marker))
    git(repo, "config", "protocol.ssh.allow", "always")
    lazy_object(repo, "ssh://example.invalid/repo.git")


def _gpg(root: Path, marker: Path) -> None:
    repo = new_repo(root / "repo")
    git(repo, "config", "gpg.program", script(repo / "gpg.sh", marker))
    git(repo, "config", "log.showSignature", "true")
    signed_commit(repo)


def _bare_fsmonitor(root: Path, marker: Path) -> None:
    bare = new_repo(root / "vendor.git", bare=True)
    git(bare, "config", "core.fsmonitor", touching(marker))
    git(bare, "config", "core.bare", "false")  # and its work tree is the workspace:
    git(bare, "config", "core.worktree", "..")  # `cd vendor.git && git status` runs it
    (root / "a.txt").write_text("x\n")


def _submodule(root: Path, marker: Path) -> None:
    lib = new_repo(root.parent / f"lib-{root.name}")
    repo = new_repo(root / "repo")
    git(repo, "submodule", "add", "-q", str(lib), "sub")
    git(repo, "commit", "-qm", "sub")
    git(repo, "config", "-f", ".git/modules/sub/config", "filter.evil.clean", touching(marker))
    git(repo, "config", "status.submoduleSummary", "true")
    git(repo, "config", "diff.submodule", "diff")
    dirty(repo / "sub")


def _include(root: Path, marker: Path) -> None:
    repo = new_repo(root / "repo")
    extra = repo / "more.cfg"
    extra.write_text(f'[diff "evil"]\n\ttextconv = "{script(repo / "t.sh", marker)}"\n')
    git(repo, "config", "include.path", str(extra))


def _alias(root: Path, marker: Path) -> None:
    repo = new_repo(root / "repo")
    git(repo, "config", "alias.status", f"!touch {marker}")


CASES = [
    Case("core.fsmonitor", _cfg("core.fsmonitor", lambda r, m: touching(m)), "git status"),
    Case(
        "core.pager",
        _cfg("core.pager", lambda r, m: f"touch {m}; cat"),
        "git log",
        live_in_act_mode=False,  # a pager starts only on a terminal
    ),
    Case("pager.log", _cfg("pager.log", lambda r, m: f"touch {m}; cat"), "git log", False),
    Case("hooks (.git/hooks)", _hooks, "git status"),
    Case("core.hooksPath", _hooks_path, "git status"),
    Case("diff.external", _cfg("diff.external", lambda r, m: touching(m)), "git diff"),
    Case(
        "diff.<driver>.command",
        _cfg("diff.evil.command", lambda r, m: touching(m)),
        "git diff",
    ),
    Case(
        "diff.<driver>.textconv",
        _cfg("diff.evil.textconv", lambda r, m: script(r / "t.sh", m)),
        "git log -p",
    ),
    Case(
        "textconv in blame",
        _cfg("diff.evil.textconv", lambda r, m: script(r / "t.sh", m)),
        "git blame a.txt",
    ),
    Case(
        "filter.<driver>.clean",
        _cfg("filter.evil.clean", lambda r, m: script(r / "c.sh", m), then=same_size),
        "git status",
    ),
    Case(
        "filter.<driver>.process",
        _cfg("filter.evil.process", lambda r, m: touching(m)),
        "git diff",
    ),
    Case("include.path", _include, "git show"),
    Case("ext:: remote (lazy fetch)", _ext_remote, "git show lazy:missing.txt"),
    Case("core.sshCommand (lazy fetch)", _ssh_remote, "git show lazy:missing.txt"),
    Case("gpg.program", _gpg, "git log"),
    Case("submodule config", _submodule, "git status; git diff"),
    Case("bare repository, cd into it", _bare_fsmonitor, "cd vendor.git && git status"),
    Case("`!` alias shadowing a subcommand", _alias, "git status", live_in_act_mode=False),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_a_hostile_repository_runs_nothing_in_plan_mode(
    case: Case, ws: DiskWorkspace, root: Path, tmp_path: Path
) -> None:
    if case.live_in_act_mode:  # the same repository beside, in act mode: the fixture is live
        act_root, act_marker = tmp_path / "act", tmp_path / "ACT-MARKER"
        act_root.mkdir()
        case.setup(act_root, act_marker)
        await _run(BashTool(DiskWorkspace([act_root])), _command(case, act_root))
        assert act_marker.exists(), "the fixture runs no program: the test would prove nothing"
    marker = tmp_path / MARK
    case.setup(root, marker)
    await _run(PlanModeBashTool(BashTool(ws)), _command(case, root))
    assert not marker.exists(), f"plan mode ran the repository's program ({case.name})"


def _command(case: Case, root: Path) -> str:
    return f"cd repo && {case.command}" if (root / "repo").is_dir() else case.command


async def _run(tool: BashTool, command: str) -> None:
    with contextlib.suppress(ToolError):  # refused, or git failed: only the marker matters
        await call(tool, {"command": command})


@pytest.mark.parametrize("plan", [False, True], ids=["act (the attack is live)", "plan"])
async def test_credential_helper_on_a_lazy_fetch_over_http(
    ws: DiskWorkspace, root: Path, tmp_path: Path, plan: bool
) -> None:
    """credential.helper runs when a remote asks for credentials: a partial clone's promisor
    at a local HTTP server answering 401. In plan mode no transport starts at all."""
    marker = tmp_path / MARK
    async with ScriptedHTTPServer() as srv:
        for _ in range(4):  # git may retry once it has credentials
            srv.enqueue(ScriptedResponse(401, {"WWW-Authenticate": 'Basic realm="x"'}, b"no"))
        repo = new_repo(root / "repo")
        git(repo, "config", "credential.helper", f"!touch {marker}; false")
        git(repo, "config", "protocol.http.allow", "always")
        lazy_object(repo, f"{srv.url}/repo.git")
        tool = PlanModeBashTool(BashTool(ws)) if plan else BashTool(ws)
        await _run(tool, "cd repo && git show lazy:missing.txt")
        assert marker.exists() is not plan
        assert bool(srv.requests) is not plan  # plan mode: git never connected


async def test_the_original_report_git_dir_and_work_tree_are_refused(
    ws: DiskWorkspace, root: Path, tmp_path: Path
) -> None:
    marker = tmp_path / MARK
    _bare_fsmonitor(root, marker)
    command = "git --git-dir=vendor.git --work-tree=. status"
    with contextlib.suppress(ToolError):
        await call(BashTool(ws), {"command": command})
    assert marker.exists()  # live: git ran the repository's fsmonitor
    marker.unlink()
    with pytest.raises(ToolError, match=r"plan mode.*git --git-dir=vendor\.git"):
        await call(PlanModeBashTool(BashTool(ws)), {"command": command})
    assert not marker.exists()


async def test_plan_mode_git_still_reads_a_plain_repository(ws: DiskWorkspace, root: Path) -> None:
    repo = new_repo(root / "repo")
    git(repo, "config", "core.hooksPath", ".husky")  # a common, harmless local setting
    dirty(repo)
    plan = PlanModeBashTool(BashTool(ws))
    out = text(await call(plan, {"command": "cd repo && git status --short && git diff"}))
    assert "M a.txt" in out
    assert "+changed" in out
    assert "init" in text(await call(plan, {"command": "cd repo && git log --oneline"}))


async def test_a_repository_naming_a_driver_is_refused_with_a_reason(
    ws: DiskWorkspace, root: Path, tmp_path: Path
) -> None:
    repo = new_repo(root / "repo")
    git(repo, "config", "diff.evil.textconv", "cat")
    plan = PlanModeBashTool(BashTool(ws))
    with pytest.raises(ToolError, match=r"git not run \(plan mode\).*diff\.evil\.textconv"):
        await call(plan, {"command": "cd repo && git show"})


@pytest.mark.parametrize("plan", [False, True], ids=["act (the attack is live)", "plan"])
def test_pi_lsp_run_plan_yes_against_the_reported_workspace(tmp_path: Path, plan: bool) -> None:
    """The report end to end: `pi-lsp run --yes` (no question), the model running git in a
    workspace holding `vendor.git/` (and a nested repository) whose config sets
    core.fsmonitor. In act mode the program runs (control); in plan mode never."""
    from tests.cli.helpers import clean_env, faux_script, pi_run

    ws = tmp_path / "ws"
    ws.mkdir()
    marker = tmp_path / MARK
    _bare_fsmonitor(ws, marker)
    nested = new_repo(ws / "sub")
    git(nested, "config", "core.fsmonitor", touching(marker))
    commands = [
        "git --git-dir=vendor.git --work-tree=. status",
        "cd vendor.git && git status",
        "cd sub && git status",
    ]
    calls = [{"type": "toolCall", "name": "bash", "arguments": {"command": c}} for c in commands]
    script = faux_script(
        tmp_path / "script.json",
        [{"content": calls}, {"content": [{"type": "text", "text": "Looked."}]}],
    )
    args = ["look", "--cwd", str(ws), "--faux-script", str(script), "--yes"]
    res = pi_run([*args, "--plan"] if plan else args, clean_env(tmp_path))
    assert res.returncode == 0, res.stderr
    assert "Looked." in res.stdout
    assert marker.exists() is not plan, res.stdout
    if plan:
        assert "git --git-dir=vendor.git can write or run programs" in res.stdout
        assert "cannot use bare repository" in res.stdout
