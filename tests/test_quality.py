"""Lint and type checks are part of the suite, so the one test command covers them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_clean() -> None:
    if shutil.which("ruff") is None and _run(sys.executable, "-m", "ruff", "--version").returncode:
        pytest.fail("ruff is not installed: install the test extra")
    res = _run(sys.executable, "-m", "ruff", "check", "pi_lsp", "tests", "bench")
    assert res.returncode == 0, res.stdout + res.stderr


def test_ruff_format_check() -> None:
    res = _run(sys.executable, "-m", "ruff", "format", "--check", "pi_lsp", "tests", "bench")
    assert res.returncode == 0, "run `ruff format pi_lsp tests bench`:\n" + res.stdout + res.stderr


@pytest.mark.slow  # ≈ 20 s of CPU without mypy's cache: handed out first under xdist
def test_mypy_strict() -> None:
    res = _run(sys.executable, "-m", "mypy", "--no-error-summary", "pi_lsp")
    assert res.returncode == 0, res.stdout + res.stderr
