"""The loop benchmark harness still runs and its event-count checks pass (tiny parameters).

Not a performance test: no timings are asserted, only that every workload shape produces the
event counts of the loop-bench contract (docs/performance.md#agent-loop) through both APIs and both
producers.
"""

from __future__ import annotations

import json

import pytest

from bench import loop_bench


@pytest.mark.parametrize(
    "argv",
    [
        ["--workload", "turns", "--turns", "3", "--deltas", "5"],
        [
            "--workload",
            "parallel",
            "--turns",
            "2",
            "--deltas",
            "2",
            "--sleep-ms",
            "0",
            "--api",
            "agent",
        ],
        [
            "--workload",
            "history_json",
            "--turns",
            "2",
            "--deltas",
            "1",
            "--result-bytes",
            "64",
            "--producer",
            "sync",
        ],
        ["--workload", "stream", "--deltas", "50", "--warmup", "1"],
    ],
)
def test_bench_workloads_keep_the_contract_counts(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert loop_bench.main(argv) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["schema"] == "pi-loop-bench/1"
    assert result["messages"] == 1 + result["llm_calls"] + result["tool_calls"]
    assert result["events_by_type"]["turn_start"] == result["llm_calls"]


def test_micro_producer_is_rejected(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        loop_bench.main(["--workload", "stream", "--producer", "micro"])
    assert info.value.code == 2
    assert "no asyncio equivalent" in capsys.readouterr().err
