"""The start-up and hand-off benchmark scripts still run and print their JSON (one run each;
no timing is asserted: the figures are in docs/performance.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> dict[str, object]:
    res = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=180
    )
    assert res.returncode == 0, res.stderr
    report: dict[str, object] = json.loads(res.stdout.strip().splitlines()[-1])
    return report


def test_startup_bench_measures_the_cli_and_the_server() -> None:
    report = _run("bench/startup_bench.py", "--runs", "1", "--only", "cli,lsp")
    assert report["schema"] == "pi-startup-bench/1"
    for name in ("cli_first_request_ms", "lsp_initialize_ms", "lsp_first_prompt_ms"):
        figure = report[name]
        assert isinstance(figure, dict)
        assert figure["median"] > 0


def test_startup_bench_measures_the_acp_agent_against_bare_python() -> None:
    report = _run("bench/startup_bench.py", "--runs", "1", "--only", "python,acp")
    assert report["schema"] == "pi-startup-bench/1"
    for name in ("acp_initialize_ms", "acp_session_new_ms", "acp_first_model_request_ms"):
        figure = report[name]
        assert isinstance(figure, dict)
        assert figure["median"] > 0
        assert figure["ratio_to_python"] > 0  # measured in the same run as python -c pass
    assert report["acp_initialize_ms"]["target"] == 300  # type: ignore[index]


def test_handoff_bench_measures_each_loop() -> None:
    report = _run("bench/handoff_bench.py", "--runs", "1")
    assert report["schema"] == "pi-handoff-bench/1"
    figures = report["asyncio_us"]
    assert isinstance(figures, dict)
    assert set(figures) == {"two_tasks", "direct", "sleep0"}
