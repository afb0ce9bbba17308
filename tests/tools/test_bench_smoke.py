"""The tools benchmark script still runs and prints its JSON (a tiny tree, one run)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_tools_bench_smoke() -> None:
    res = subprocess.run(
        [sys.executable, "bench/tools_bench.py", "--files", "300", "--runs", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout.strip().splitlines()[-1])
    assert report["schema"] == "pi-tools-bench/1"
    assert report["tree"]["source_files"] == 300
    for name in (
        "find_all_py",
        "grep_full_scan_python",
        "read_9mb_first_page",
        "edit_50k_line_file",
        "bash_true",
    ):
        assert report["results"][name]["runs"] == 1
