"""grep (both backends), find and ls: .gitignore (nested), formats, limits, confinement."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.tools import (
    DiskWorkspace,
    FindTool,
    GrepTool,
    LsTool,
    OutsideWorkspaceError,
    ToolError,
)

from .conftest import call, text


@pytest.fixture
def tree(root: Path) -> Path:
    """A small project with ignore files at two levels, a .git dir and hidden files."""
    files = {
        ".gitignore": "*.log\nbuild/\n/secret.txt\n",
        "secret.txt": "needle in root secret\n",
        "app.py": "import os\nneedle = 1\n",
        "debug.log": "needle in a log\n",
        "build/out.py": "needle built\n",
        ".hidden/conf.py": "needle hidden\n",
        ".git/config": "needle in git\n",
        "pkg/.gitignore": "generated.py\n!keep.log\n",
        "pkg/generated.py": "needle generated\n",
        "pkg/keep.log": "needle kept log\n",
        "pkg/mod.py": "def f():\n    return 'needle'\n",
        "pkg/sub/secret.txt": "needle nested secret\n",
        "pkg/sub/deep.ts": "const needle = 2\n",
    }
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    (root / "blob.bin").write_bytes(b"needle\x00\x01\x02")
    return root


BLOB_SKIPPED = (
    "1 binary file skipped (NUL bytes), with matches: blob.bin; search one as text by giving "
    "its path as path, or read it with read"
)


def _grep(ws: DiskWorkspace, backend: str) -> GrepTool:
    return GrepTool(ws, backend=backend)  # type: ignore[arg-type]


async def test_grep_respects_nested_gitignore(
    ws: DiskWorkspace, tree: Path, grep_backend: str
) -> None:
    out = text(await call(_grep(ws, grep_backend), {"pattern": "needle"}))
    assert out.split("\n") == [
        ".hidden/conf.py:1: needle hidden",
        "app.py:2: needle = 1",
        "pkg/keep.log:1: needle kept log",
        "pkg/mod.py:2:     return 'needle'",
        "pkg/sub/deep.ts:1: const needle = 2",
        "pkg/sub/secret.txt:1: needle nested secret",
        "",
        f"[{BLOB_SKIPPED}]",  # blob.bin matches but holds a NUL byte: named, never silent
    ]


async def test_grep_in_a_subdirectory_still_applies_parent_ignores(
    ws: DiskWorkspace, tree: Path, grep_backend: str
) -> None:
    (tree / "pkg" / "noise.log").write_text("needle noise\n")
    out = text(await call(_grep(ws, grep_backend), {"pattern": "needle", "path": "pkg"}))
    assert out.split("\n") == [
        "keep.log:1: needle kept log",
        "mod.py:2:     return 'needle'",
        "sub/deep.ts:1: const needle = 2",
        "sub/secret.txt:1: needle nested secret",
    ]


async def test_grep_glob_case_literal_and_context(
    ws: DiskWorkspace, tree: Path, grep_backend: str
) -> None:
    tool = _grep(ws, grep_backend)
    py = text(await call(tool, {"pattern": "needle", "glob": "*.py"}))
    assert [line.split(":")[0] for line in py.split("\n")] == [
        ".hidden/conf.py",
        "app.py",
        "pkg/generated.py",
        "pkg/mod.py",
    ]  # as with rg, a matching --glob brings back ignored files (not ignored directories)
    no_py = text(await call(tool, {"pattern": "needle", "glob": "!*.py"}))
    assert no_py.endswith(f"\n\n[{BLOB_SKIPPED}]")
    assert [line.split(":")[0] for line in no_py.split("\n\n")[0].split("\n")] == [
        "pkg/keep.log",
        "pkg/sub/deep.ts",
        "pkg/sub/secret.txt",
    ]
    deep = text(await call(tool, {"pattern": "needle", "glob": "**/sub/*.ts"}))
    assert deep == "pkg/sub/deep.ts:1: const needle = 2"
    assert text(await call(tool, {"pattern": "NEEDLE = 1"})) == "No matches found"
    assert text(await call(tool, {"pattern": "NEEDLE = 1", "ignoreCase": True})) == (
        "app.py:2: needle = 1"
    )
    (tree / "regex.txt").write_text("a.b\naxb\n")
    assert text(await call(tool, {"pattern": "a.b", "literal": True})) == "regex.txt:1: a.b"
    assert len(text(await call(tool, {"pattern": "a.b", "path": "regex.txt"})).split("\n")) == 2
    ctx = text(await call(tool, {"pattern": "return", "context": 1, "path": "pkg/mod.py"}))
    # Pi splits the file on \n, so the empty string after the last newline is line 3
    assert ctx.split("\n") == ["mod.py-1- def f():", "mod.py:2:     return 'needle'", "mod.py-3- "]


async def test_grep_long_lines_and_byte_limit(
    ws: DiskWorkspace, root: Path, grep_backend: str
) -> None:
    (root / "long.txt").write_text("needle " + "y" * 600 + "\n")
    result = await call(_grep(ws, grep_backend), {"pattern": "needle"})
    body, notice = text(result).split("\n\n")
    assert body == "long.txt:1: needle " + "y" * 493 + "... [truncated]"
    assert notice == "[Some lines truncated to 500 chars. Use read tool to see full lines]"
    assert result.details == {"linesTruncated": True}
    (root / "long.txt").unlink()
    (root / "wide.txt").write_text(("needle " + "z" * 400 + "\n") * 200)
    wide = await call(_grep(ws, grep_backend), {"pattern": "needle", "limit": 300})
    assert text(wide).endswith("\n\n[50.0KB limit reached]")
    assert wide.details["truncation"]["truncatedBy"] == "bytes"


async def test_grep_limit_and_errors(ws: DiskWorkspace, tree: Path, grep_backend: str) -> None:
    tool = _grep(ws, grep_backend)
    one = await call(tool, {"pattern": "needle", "limit": 0})  # at least one match
    assert text(one).endswith("[1 matches limit reached. Use limit=2 for more, or refine pattern]")
    with pytest.raises(ToolError) as err:
        await call(tool, {"pattern": "x", "path": "nowhere"})
    assert str(err.value) == f"Path not found: {tree / 'nowhere'}"
    with pytest.raises(ToolError, match="regex parse error"):
        await call(tool, {"pattern": "(unclosed"})
    with pytest.raises(OutsideWorkspaceError):
        await call(tool, {"pattern": "root", "path": "/etc"})


async def test_grep_does_not_follow_symlinks_out(
    ws: DiskWorkspace, root: Path, tmp_path: Path, grep_backend: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.txt").write_text("needle outside\n")
    (root / "out").symlink_to(outside)
    (root / "leak.txt").symlink_to(outside / "leak.txt")
    (root / "in.txt").write_text("needle inside\n")
    out = text(await call(_grep(ws, grep_backend), {"pattern": "needle"}))
    assert out == "in.txt:1: needle inside"


async def test_find_respects_gitignore_and_marks_directories(ws: DiskWorkspace, tree: Path) -> None:
    everything = text(await call(FindTool(ws), {"pattern": "*"}))
    assert everything.split("\n") == [
        ".gitignore",
        ".hidden/",
        ".hidden/conf.py",
        "app.py",
        "blob.bin",
        "pkg/",
        "pkg/.gitignore",
        "pkg/keep.log",
        "pkg/mod.py",
        "pkg/sub/",
        "pkg/sub/deep.ts",
        "pkg/sub/secret.txt",
    ]
    logs = text(await call(FindTool(ws), {"pattern": "*.log"}))
    assert logs == "pkg/keep.log"


async def test_find_patterns(ws: DiskWorkspace, tree: Path) -> None:
    tool = FindTool(ws)
    assert text(await call(tool, {"pattern": "pkg/**/*.ts"})) == "pkg/sub/deep.ts"
    assert text(await call(tool, {"pattern": "sub/*.ts"})) == "pkg/sub/deep.ts"
    assert text(await call(tool, {"pattern": "*.{ts,py}", "path": "pkg"})).split("\n") == [
        "mod.py",
        "sub/deep.ts",
    ]
    (tree / "README.md").write_text("")
    assert text(await call(tool, {"pattern": "readme*"})) == "README.md"  # smart case
    assert text(await call(tool, {"pattern": "Readme*"})) == "No files found matching pattern"
    assert text(await call(tool, {"pattern": "sub"})) == "pkg/sub/"


async def test_find_limit_and_errors(ws: DiskWorkspace, root: Path) -> None:
    for i in range(5):
        (root / f"f{i}.txt").write_text("")
    result = await call(FindTool(ws), {"pattern": "*.txt", "limit": 3})
    assert text(result) == (
        "f0.txt\nf1.txt\nf2.txt\n\n"
        "[3 results limit reached. Use limit=6 for more, or refine pattern]"
    )
    assert result.details == {"resultLimitReached": 3}
    with pytest.raises(ToolError, match="Path not found"):
        await call(FindTool(ws), {"pattern": "*", "path": "nope"})
    with pytest.raises(ToolError, match="Not a directory"):
        await call(FindTool(ws), {"pattern": "*", "path": "f0.txt"})


async def test_ls_limit_errors_and_symlinks(ws: DiskWorkspace, root: Path) -> None:
    for name in ("c", "a", "b"):
        (root / name).write_text("")
    (root / "real").mkdir()
    (root / "to-real").symlink_to(root / "real")
    (root / "dangling").symlink_to(root / "missing")
    out = text(await call(LsTool(ws), {}))
    assert out.split("\n") == ["a", "b", "c", "real/", "to-real/"]
    limited = await call(LsTool(ws), {"limit": 2})
    assert text(limited) == "a\nb\n\n[2 entries limit reached. Use limit=4 for more]"
    assert limited.details == {"entryLimitReached": 2}
    with pytest.raises(ToolError) as err:
        await call(LsTool(ws), {"path": "a"})
    assert str(err.value) == f"Not a directory: {root / 'a'}"
    with pytest.raises(ToolError) as err:
        await call(LsTool(ws), {"path": "zzz"})
    assert str(err.value) == f"Path not found: {root / 'zzz'}"
    with pytest.raises(OutsideWorkspaceError):
        await call(LsTool(ws), {"path": ".."})


async def test_ls_shows_ignored_files(ws: DiskWorkspace, tree: Path) -> None:
    out = text(await call(LsTool(ws), {}))
    assert "debug.log" in out.split("\n")  # ls lists everything, like Pi's
    assert ".git/" in out.split("\n")


async def test_grep_skips_fifos(ws: DiskWorkspace, root: Path, grep_backend: str) -> None:
    import os

    os.mkfifo(root / "pipe")
    (root / "a.txt").write_text("needle\n")
    out = text(await call(_grep(ws, grep_backend), {"pattern": "needle"}))
    assert out == "a.txt:1: needle"


async def test_aborted_before_start(ws: DiskWorkspace, root: Path, grep_backend: str) -> None:
    from pi_lsp.ai import AbortSignal

    signal = AbortSignal()
    signal.abort()
    for tool, args in [
        (_grep(ws, grep_backend), {"pattern": "x"}),
        (FindTool(ws), {"pattern": "*"}),
        (LsTool(ws), {}),
    ]:
        with pytest.raises(ToolError, match=r"^Operation aborted$"):
            await call(tool, args, signal=signal)


@pytest.fixture
def logs(root: Path) -> Path:
    """Issue 47: a log whose first line matches and which holds NUL bytes past the first
    8 KiB (a preallocated log), one with a NUL past ripgrep's first buffer, one with a NUL at
    once, a binary file that does not match, and a plain log."""
    d = root / "logs"
    d.mkdir()
    (d / "app.log").write_bytes(b"NEEDLE start\n" + b"x" * 9020 + b"\n\0\0\0 tail\n")
    (d / "late.log").write_bytes(b"NEEDLE early\n" + b"y" * 300_000 + b"\n\0 end NEEDLE\n")
    (d / "head.db").write_bytes(b"\0\0SQLite NEEDLE\n")
    (d / "other.bin").write_bytes(b"\0\0 nothing here\n")
    (d / "plain.log").write_text("a NEEDLE in text\n")
    return d


SKIPPED_LOGS = (
    "3 binary files skipped (NUL bytes), with matches: app.log, head.db, late.log; search one "
    "as text by giving its path as path, or read it with read"
)


async def test_files_with_nul_bytes_get_one_answer_with_and_without_ripgrep(
    ws: DiskWorkspace, logs: Path, grep_backend: str
) -> None:
    """The same text from ripgrep and from the Python fallback (ripgrep skipped app.log
    silently, the fallback searched it): binary files that match are named, never dropped."""
    tool = _grep(ws, grep_backend)
    out = await call(tool, {"pattern": "NEEDLE", "path": "logs"})
    assert text(out) == f"plain.log:1: a NEEDLE in text\n\n[{SKIPPED_LOGS}]"
    assert out.details == {"binaryFilesSkipped": ["app.log", "head.db", "late.log"]}
    (logs / "plain.log").unlink()
    none = text(await call(tool, {"pattern": "NEEDLE", "path": "logs"}))
    assert none == f"No matches found in text files\n\n[{SKIPPED_LOGS}]"
    assert text(await call(tool, {"pattern": "absent", "path": "logs"})) == "No matches found"
    # the narrower path the notice suggests: the file itself, searched as text
    one = text(await call(tool, {"pattern": "NEEDLE", "path": "logs/late.log"}))
    assert one == "late.log:1: NEEDLE early\nlate.log:3: \x00 end NEEDLE"


async def test_the_limit_counts_text_matches_only(
    ws: DiskWorkspace, root: Path, grep_backend: str
) -> None:
    (root / "a.bin").write_bytes(b"hit\n" * 5 + b"\0")
    (root / "b.txt").write_text("hit\n" * 3)
    out = text(await call(_grep(ws, grep_backend), {"pattern": "hit", "limit": 2}))
    assert out.startswith("b.txt:1: hit\nb.txt:2: hit\n\n[2 matches limit reached.")
    assert "1 binary file skipped (NUL bytes), with matches: a.bin;" in out


async def test_find_and_ls_give_one_answer_with_and_without_ripgrep(
    ws: DiskWorkspace, logs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """find and ls have a single implementation (the Python walk): no rg on PATH changes
    nothing, binary files included."""
    find, ls = FindTool(ws), LsTool(ws)
    with_rg = [text(await call(find, {"pattern": "*"})), text(await call(ls, {"path": "logs"}))]
    monkeypatch.setenv("PATH", "/nonexistent")
    without = [text(await call(find, {"pattern": "*"})), text(await call(ls, {"path": "logs"}))]
    assert with_rg == without
    assert "logs/app.log" in with_rg[0]
    assert "head.db" in with_rg[1]
