"""The subagents benchmark still runs and reports its figures (tiny parameters; the numbers
themselves are measured in bench/, never asserted here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import subagents_bench


async def test_the_bench_reports_overhead_and_the_parallel_ratio(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_LSP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    result = await subagents_bench.bench(runs=1, delay_ms=0.0)
    assert result["schema"] == "pi-subagents-bench/1"
    assert result["overhead_ms"] >= 0
    assert result["ratio"] > 0
    assert {"parallel_ms", "slowest_alone_ms", "overhead_ok", "ratio_ok"} <= set(result)


async def test_the_bench_runs_with_pi_lsp_runs_printer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_LSP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(subagents_bench, "PRINTER", "json")
    result = await subagents_bench.bench(runs=1, delay_ms=0.0)
    assert result["printer"] == "json"
    assert {"overhead_cpu_ms", "ratio_of_pairs", "load"} <= set(result)
