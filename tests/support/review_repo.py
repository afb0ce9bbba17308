"""A fixture git repository with seeded defects, for the review tests of every front end.

``make_review_repo(root)`` commits a small project, then leaves in the working tree:

- ``calc.py`` modified: ``average`` divides by ``len(values)`` (line ``DIV_LINE``: zero for
  an empty list) and ``read_config`` opens a file it never closes (line ``OPEN_LINE``);
- ``util.py`` untracked: ``run`` calls ``eval`` on its input (line ``EVAL_LINE``);
- ``logo.png`` (binary) and ``package-lock.json`` (generated), both modified: skipped;
- ``old.py`` deleted: skipped.

``python -m tests.support.review_repo DIR`` makes one (the editor and CI script tests).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DIV_LINE = 5
OPEN_LINE = 9
EVAL_LINE = 5

CALC_BEFORE = """\
def average(values):
    if not values:
        return 0.0
    return sum(values) / len(values)
"""
CALC_AFTER = """\
def average(values):
    total = 0
    for v in values:
        total += v
    return total / len(values)


def read_config(path):
    f = open(path)
    return f.read()
"""
UTIL = """\
import sys


def run(expression):
    return eval(expression)


if __name__ == "__main__":
    print(run(sys.argv[1]))
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def make_review_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    (root / "calc.py").write_text(CALC_BEFORE)
    (root / "old.py").write_text("print('old')\n")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(32)))
    (root / "package-lock.json").write_text('{"lockfileVersion": 3}\n')
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    (root / "calc.py").write_text(CALC_AFTER)
    (root / "util.py").write_text(UTIL)
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(64)))
    (root / "package-lock.json").write_text('{"lockfileVersion": 3, "packages": {}}\n')
    (root / "old.py").unlink()
    return root


def commit_all(root: Path, message: str = "change") -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


if __name__ == "__main__":
    print(make_review_repo(Path(sys.argv[1])))
