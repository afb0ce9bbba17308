"""Coding-tool benchmark: the tools on a generated 50k-file tree (schema ``pi-tools-bench/1``).

Builds a synthetic project in a temp directory (``--files`` source files in nested packages,
plus an ignored ``node_modules`` and ``build`` the walks must skip), then times each tool call
through ``execute`` (median of ``--runs``). grep runs on both backends when ripgrep is
installed. Not a test: ``python bench/tools_bench.py [--files 50000] [--runs 5]``; the JSON
result is the last line of stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pi_lsp.tools import (
    BashTool,
    DiskWorkspace,
    EditTool,
    FindTool,
    GrepTool,
    LsTool,
    ReadTool,
)

FILES_PER_DIR = 100


def build_tree(root: Path, files: int) -> dict[str, int]:
    """``files`` small Python files in ``pkgNNN/subN`` dirs; ignored trees beside them."""
    (root / ".gitignore").write_text("node_modules/\nbuild/\n*.log\n")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    body = (
        "import os\n\n\ndef handler_{n}(event):\n    value = event.get('k{n}')\n"
        "    return value  # TODO review\n"
    )
    made = 0
    d = 0
    while made < files:
        directory = root / f"pkg{d // 10:03d}" / f"sub{d % 10}"
        directory.mkdir(parents=True, exist_ok=True)
        for i in range(min(FILES_PER_DIR, files - made)):
            n = made + i
            text = body.format(n=n)
            if n % 5000 == 0:
                text += "RARE_MARKER = True\n"
            (directory / f"mod_{i:03d}.py").write_text(text)
        made += min(FILES_PER_DIR, files - made)
        d += 1
    ignored = 0
    for name in ("node_modules/lib", "build/out"):
        directory = root / name
        directory.mkdir(parents=True)
        for i in range(min(2000, max(10, files // 25))):
            (directory / f"junk_{i}.py").write_text("RARE_MARKER = 'ignored'\n")
            ignored += 1
    big = root / "data"
    big.mkdir()
    (big / "big.txt").write_text("".join(f"row {i} " + "x" * 90 + "\n" for i in range(100_000)))
    (big / "lines.py").write_text("".join(f"value_{i} = {i}\n" for i in range(50_000)))
    wide = root / "wide"
    wide.mkdir()
    for i in range(min(1000, files)):
        (wide / f"entry_{i:04d}.txt").write_text("")
    return {"source_files": files, "ignored_files": ignored}


async def time_call(fn: Callable[[], Awaitable[Any]], runs: int) -> dict[str, Any]:
    samples: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        await fn()
        samples.append((time.perf_counter() - start) * 1000)
    return {
        "median_ms": round(statistics.median(samples), 2),
        "min_ms": round(min(samples), 2),
        "runs": len(samples),
    }


async def run(root: Path, runs: int) -> dict[str, Any]:
    ws = DiskWorkspace([root])
    read, edit, bash = ReadTool(ws), EditTool(ws), BashTool(ws)
    find, ls = FindTool(ws), LsTool(ws)
    P = {  # parameter models per tool
        "find": FindTool.parameters,
        "grep": GrepTool.parameters,
        "ls": LsTool.parameters,
        "read": ReadTool.parameters,
        "edit": EditTool.parameters,
        "bash": BashTool.parameters,
    }
    results: dict[str, Any] = {}

    async def find_all() -> None:
        out = await find.execute("b", P["find"].model_validate({"pattern": "*.py", "limit": 10**6}))
        assert "junk_" not in out.content[0].text  # type: ignore[union-attr]

    results["find_all_py"] = await time_call(find_all, runs)
    results["find_default_limit"] = await time_call(
        lambda: find.execute("b", P["find"].model_validate({"pattern": "*.py"})), runs
    )
    backends = ["python"] + (["rg"] if shutil.which("rg") else [])
    for backend in backends:
        grep = GrepTool(ws, backend=backend)  # type: ignore[arg-type]

        async def rare(tool: GrepTool = grep) -> None:
            out = await tool.execute("b", P["grep"].model_validate({"pattern": "RARE_MARKER"}))
            text = out.content[0].text  # type: ignore[union-attr]
            assert "ignored" not in text
            assert "RARE_MARKER" in text

        results[f"grep_full_scan_{backend}"] = await time_call(rare, runs)
        results[f"grep_limit_100_{backend}"] = await time_call(
            lambda tool=grep: tool.execute(  # type: ignore[misc]
                "b", P["grep"].model_validate({"pattern": "def handler_"})
            ),
            runs,
        )
        results[f"grep_glob_ignore_case_{backend}"] = await time_call(
            lambda tool=grep: tool.execute(  # type: ignore[misc]
                "b",
                P["grep"].model_validate(
                    {
                        "pattern": "todo REVIEW",
                        "glob": "pkg00*/**/*.py",
                        "ignoreCase": True,
                        "limit": 1000,
                    }
                ),
            ),
            runs,
        )
    results["ls_1000_entries"] = await time_call(
        lambda: ls.execute("b", P["ls"].model_validate({"path": "wide", "limit": 2000})), runs
    )
    results["read_9mb_first_page"] = await time_call(
        lambda: read.execute("b", P["read"].model_validate({"path": "data/big.txt"})), runs
    )
    results["read_9mb_offset_90000"] = await time_call(
        lambda: read.execute(
            "b", P["read"].model_validate({"path": "data/big.txt", "offset": 90000})
        ),
        runs,
    )
    counter = iter(range(10**6))

    async def edit_big() -> None:
        k = next(counter)
        old, new = (
            (f"value_25000 = {k}", f"value_25000 = {k + 1}")
            if k
            else ("value_25000 = 25000", "value_25000 = 1")
        )
        await edit.execute(
            "b",
            P["edit"].model_validate(
                {"path": "data/lines.py", "edits": [{"oldText": old, "newText": new}]}
            ),
        )

    results["edit_50k_line_file"] = await time_call(edit_big, runs)
    results["bash_true"] = await time_call(
        lambda: bash.execute("b", P["bash"].model_validate({"command": "true"})), runs
    )

    async def seq() -> None:
        out = await bash.execute("b", P["bash"].model_validate({"command": "seq 1 200000"}))
        Path(out.details["fullOutputPath"]).unlink()

    results["bash_200k_lines_output"] = await time_call(seq, runs)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rg = shutil.which("rg")
    rg_version = (
        subprocess.run([rg, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
        if rg
        else None
    )
    with tempfile.TemporaryDirectory(prefix="pi-tools-bench-") as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        start = time.perf_counter()
        tree = build_tree(root, args.files)
        build_s = time.perf_counter() - start
        results = asyncio.run(run(root, args.runs))
    print(
        json.dumps(
            {
                "schema": "pi-tools-bench/1",
                "tree": {**tree, "build_seconds": round(build_s, 1)},
                "python": platform.python_version(),
                "platform": platform.platform(),
                "cpus": __import__("os").cpu_count(),
                "ripgrep": rg_version,
                "results": results,
            }
        )
    )


if __name__ == "__main__":
    main()
