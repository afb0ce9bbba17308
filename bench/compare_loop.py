"""Interleaved Python-vs-Node runs of the loop benchmark; prints one JSON line of ratios.

``python bench/compare_loop.py [--pairs 7] [--workloads stream,turns,parallel,history]
[--event-loops default,asyncio] [--api loop|agent] [--warmup N]`` runs ``bench/loop_bench.py``
and ``bench/node/loop_bench.mjs`` (Pi 0.80.2's own loop; ``npm install --prefix bench/node``
first) alternately, each in a fresh process, and reports per event loop and workload the
median of the per-pair ratios Python ÷ Node (> 1: Python slower) for ``per_event_us``,
``per_turn_overhead_measured_us`` and ``cpu_s``, with both sides' medians. By default the
Python side runs on the front ends' default loop (uvloop where installed) and on asyncio's
own (the fallback). Schema ``pi-loop-compare/2``. Not a test; see
docs/performance.md#agent-loop.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
NODE_DIR = HERE / "node"
FIELDS = ("per_event_us", "per_turn_overhead_measured_us", "cpu_s", "wall_s")


def run(cmd: list[str], cwd: Path) -> dict[str, Any]:
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def run_pairs(
    py_cmd: list[str], node_cmd: list[str], count: int
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``count`` Python/Node pairs, alternating which side runs first."""
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for i in range(count):
        if i % 2 == 0:
            py = run(py_cmd, HERE.parent)
            node = run(node_cmd, NODE_DIR)
        else:
            node = run(node_cmd, NODE_DIR)
            py = run(py_cmd, HERE.parent)
        pairs.append((py, node))
    return pairs


def figures_of(pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for field in FIELDS:
        ratios = [py[field] / node[field] for py, node in pairs if node[field]]
        figures[field] = {
            "ratio_median": round(statistics.median(ratios), 3),
            "python_median": round(statistics.median(p[field] for p, _ in pairs), 4),
            "node_median": round(statistics.median(n[field] for _, n in pairs), 4),
        }
    figures["parallel_speedup"] = {
        "python_median": statistics.median(p["parallel_speedup"] or 0 for p, _ in pairs),
        "node_median": statistics.median(n["parallel_speedup"] or 0 for _, n in pairs),
    }
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--workloads", default="stream,turns,parallel,history")
    parser.add_argument(
        "--event-loops",
        default="default,asyncio",
        help="comma-separated: default (the front ends' loop), asyncio, uvloop",
    )
    parser.add_argument("--api", default="loop", choices=("loop", "agent"))
    parser.add_argument("--warmup", type=int, default=0)
    args = parser.parse_args(argv)
    loops = args.event_loops.split(",")
    if not set(loops) <= {"default", "asyncio", "uvloop"}:
        parser.error(f"--event-loops: not one of default, asyncio, uvloop: {args.event_loops}")
    if not (NODE_DIR / "node_modules" / "@earendil-works" / "pi-agent-core").is_dir():
        print("Pi's packages are missing: run `npm install --prefix bench/node`", file=sys.stderr)
        return 2
    common = ["--api", args.api, "--warmup", str(args.warmup)]
    report: dict[str, Any] = {
        "schema": "pi-loop-compare/2",
        "pairs": args.pairs,
        "api": args.api,
        "warmup": args.warmup,
        "loadavg_1m_start": os.getloadavg()[0],
        "event_loops": {},
    }
    for loop in loops:
        by_workload: dict[str, Any] = {}
        ran = None
        for workload in args.workloads.split(","):
            py_cmd = [sys.executable, str(HERE / "loop_bench.py"), "--workload", workload,
                      *common, "--event-loop", loop]  # fmt: skip
            node_cmd = ["node", str(NODE_DIR / "loop_bench.mjs"), "--workload", workload, *common]
            pairs = run_pairs(py_cmd, node_cmd, args.pairs)
            ran = pairs[0][0]["event_loop"]
            by_workload[workload] = figures_of(pairs)
        report["event_loops"][loop] = {"event_loop": ran, "workloads": by_workload}
    report["loadavg_1m_end"] = os.getloadavg()[0]
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
