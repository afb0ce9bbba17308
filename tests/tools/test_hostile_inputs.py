"""Files and patterns that must not wedge the tools (issue 10 item 6, issue 11 finding 4):
FIFOs are skipped or refused (never opened blocking), large files are streamed, and a
model-supplied regex or glob runs on a linear-time engine."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi_lsp.tools import DiskWorkspace, FindTool, GrepTool, ToolError
from pi_lsp.tools.grep_search import READ_CHUNK

from .conftest import call, text


def _grep(ws: DiskWorkspace, backend: str) -> GrepTool:
    return GrepTool(ws, backend=backend)  # type: ignore[arg-type]


@pytest.mark.timeout(30)
async def test_grep_skips_a_fifo_in_the_tree(
    ws: DiskWorkspace, root: Path, grep_backend: str
) -> None:
    (root / "a.txt").write_text("needle\n")
    os.mkfifo(root / "pipe")
    out = text(await call(_grep(ws, grep_backend), {"pattern": "needle"}))
    assert out == "a.txt:1: needle"


@pytest.mark.timeout(30)
async def test_grep_on_a_fifo_path_is_refused_at_once(
    ws: DiskWorkspace, root: Path, grep_backend: str
) -> None:
    os.mkfifo(root / "pipe")
    with pytest.raises(ToolError, match="Not a regular file"):
        await call(_grep(ws, grep_backend), {"pattern": "x", "path": "pipe"})


@pytest.mark.timeout(30)
async def test_a_fifo_named_gitignore_does_not_block_the_walk(
    ws: DiskWorkspace, root: Path
) -> None:
    (root / "sub").mkdir()
    os.mkfifo(root / "sub" / ".gitignore")
    (root / "sub" / "a.py").write_text("needle\n")
    out = text(await call(_grep(ws, "python"), {"pattern": "needle"}))
    assert out == "sub/a.py:1: needle"
    found = text(await call(FindTool(ws), {"pattern": "*.py"}))
    assert found == "sub/a.py"


async def test_large_file_is_streamed_with_correct_line_numbers(
    ws: DiskWorkspace, root: Path, grep_backend: str
) -> None:
    line = b"x" * 99 + b"\n"
    count = 3 * READ_CHUNK // len(line)
    with open(root / "big.log", "wb") as fh:
        fh.write(line * count)
        fh.write(b"the needle\n")
        fh.write(line * 10)
    tool = _grep(ws, grep_backend)
    out = text(await call(tool, {"pattern": "needle", "path": "big.log"}))
    assert out == f"big.log:{count + 1}: the needle"
    ctx = text(await call(tool, {"pattern": "needle", "path": "big.log", "context": 1}))
    assert ctx.split("\n") == [
        f"big.log-{count}- {'x' * 99}",
        f"big.log:{count + 1}: the needle",
        f"big.log-{count + 2}- {'x' * 99}",
    ]


@pytest.mark.timeout(30)
async def test_backtracking_regex_does_not_freeze_python_grep(
    ws: DiskWorkspace, root: Path
) -> None:
    (root / "evil.txt").write_text("a" * 32 + "!\n" + "aaa\n")
    out = text(await call(_grep(ws, "python"), {"pattern": "(a+)+$"}))
    assert out == "evil.txt:2: aaa"


@pytest.mark.timeout(30)
async def test_backtracking_glob_does_not_freeze_find(ws: DiskWorkspace, root: Path) -> None:
    (root / ("a" * 200)).write_text("")
    (root / "ab").write_text("")
    out = text(await call(FindTool(ws), {"pattern": "*a*a*a*a*a*a*a*a*a*a*a*b"}))
    assert out == "No files found matching pattern"
    glob = text(
        await call(_grep(ws, "python"), {"pattern": "x", "glob": "*a*a*a*a*a*a*a*a*a*a*a*b"})
    )
    assert glob == "No matches found"


async def test_unsupported_regex_syntax_is_a_clear_error(ws: DiskWorkspace, root: Path) -> None:
    (root / "a.txt").write_text("ab\n")
    with pytest.raises(ToolError, match="regex parse error"):
        await call(_grep(ws, "python"), {"pattern": "(?<=a)b"})


@pytest.mark.timeout(30)
async def test_a_backtracking_gitignore_pattern_does_not_freeze_the_walk(
    ws: DiskWorkspace, root: Path
) -> None:
    (root / ".gitignore").write_text("*a*a*a*a*a*a*a*a*a*a*a*b\n")
    (root / ("a" * 200 + ".txt")).write_text("needle\n")
    out = text(await call(FindTool(ws), {"pattern": "*.txt"}))
    assert out == "a" * 200 + ".txt"
