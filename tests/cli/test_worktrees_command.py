"""``pi-lsp worktrees list|prune`` and no stale worktree after ``kill -9``: a ``pi-lsp run``
whose worktree child is busy is killed; ``git worktree list`` shows the orphan until the
prune (which every new session also runs at start)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.subagents.helpers import calls, task, text

from .helpers import ROOT, clean_env, faux_script

RUN = [sys.executable, "-m", "pi_lsp", "run"]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def worktrees(repo: Path) -> list[str]:
    out = git(repo, "worktree", "list", "--porcelain")
    return [line.split(" ", 1)[1] for line in out.splitlines() if line.startswith("worktree ")]


def pi(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pi_lsp", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


def test_no_stale_worktree_after_kill_9(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.txt").write_text("a\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    marker = tmp_path / "busy.pid"
    script = faux_script(
        tmp_path / "script.json",
        [
            calls(task("busy", "CHILD-W: wait", isolation="worktree")),
            calls(("bash", {"command": f"echo $$ > {marker}; exec sleep 30"}), when="CHILD-W"),
            text("never", when="CHILD-W"),
            text("never"),
        ],
    )
    env = clean_env(tmp_path)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pi_lsp",
            "run",
            "go",
            "--cwd",
            str(repo),
            "--faux-script",
            str(script),
            "--yes",
        ],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 60
        while not (marker.exists() and marker.read_text().strip()):
            assert proc.poll() is None, "the run ended early"
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert len(worktrees(repo)) == 2
        listed = [json.loads(x) for x in pi(["worktrees", "list"], env).stdout.splitlines()]
        assert [w["kept"] for w in listed] == [False]
        assert pi(["worktrees", "prune"], env).stdout == ""  # its owner still runs
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
        if marker.exists() and marker.read_text().strip():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(marker.read_text()), signal.SIGKILL)
    assert len(worktrees(repo)) == 2  # the orphan, until a prune
    pruned = pi(["worktrees", "prune"], env)
    assert pruned.returncode == 0, pruned.stderr
    assert pruned.stdout.strip() == listed[0]["path"]
    assert worktrees(repo) == [str(repo)]
    assert pi(["worktrees", "nonsense"], env).returncode == 2
