"""The lsp tool's overhead over its language server (docs/performance.md#the-lsp-tool).

On a copy of tests/fixtures/lsp_project with jedi-language-server started by pi-lsp
(Backend B), warmed by a first query, each of ``definition`` and ``references`` is timed
``--runs`` times two ways, interleaved:

- ``server``: the same request sent straight through the pool's client (``LanguageServerProcess
  .request``): the server's own time as a client sees it — the baseline;
- ``tool``: ``LspTool.execute`` end to end — the path resolved, the document read and synced
  (unchanged: no didChange), the symbol's column found, the request, the answer rendered with
  each location's source line.

Prints one JSON line (``pi-lsptool-bench/1``) with the medians and ``ratio`` = tool / server
per operation (target ≤ 1.2), the median of each run's own tool / server ratio, pi-lsp's own
CPU time per call both ways (steadier than wall time on a loaded machine), and the cold start
(first query, server start included).
``python bench/lsptool_bench.py [--runs 30] [--server PATH]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pi_lsp.langserv import LoadedLspConfig, LspServerConfig, ServerPool
from pi_lsp.tools.disk_workspace import DiskWorkspace
from pi_lsp.tools.lsp import LspParams, LspTool

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "lsp_project"
OPERATIONS = {
    "definition": (
        {"path": "app/main.py", "line": 5, "symbol": "load_config"},
        "textDocument/definition",
        {"line": 4, "character": 15},
        {},
    ),
    "references": (
        {"path": "app/config.py", "line": 18, "symbol": "load_config"},
        "textDocument/references",
        {"line": 17, "character": 4},
        {"context": {"includeDeclaration": True}},
    ),
}


async def run(root: Path, server: str, runs: int) -> dict[str, Any]:
    config = LspServerConfig.model_validate(
        {"name": "python", "command": server, "extensionToLanguage": {".py": "python"}}
    )
    ws = DiskWorkspace([root])
    pool = ServerPool(LoadedLspConfig({"python": config}), ws, timeout=60)
    tool = LspTool(ws, pool)
    out: dict[str, Any] = {}
    try:
        t0 = time.perf_counter()
        await tool.execute("cold", LspParams(operation="definition", **OPERATIONS["definition"][0]))
        out["cold_start_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        proc = next(iter(pool.servers.values()))
        for name, (args, method, position, extra) in OPERATIONS.items():
            path = root / args["path"]
            params = {"textDocument": {"uri": path.as_uri()}, "position": position, **extra}
            params_model = LspParams(operation=name, **args)
            await tool.execute("warm", params_model)  # the document opened, the server warm
            wall: dict[str, list[float]] = {"server": [], "tool": []}
            cpu: dict[str, list[float]] = {"server": [], "tool": []}
            for i in range(runs):  # interleaved, each first every other time (a request
                # right after another is faster: the order must not favour either)
                for which in ("server", "tool") if i % 2 else ("tool", "server"):
                    t, c = time.perf_counter(), time.process_time()
                    if which == "server":
                        await proc.request(method, params, limit=60, signal=None)
                    else:
                        await tool.execute("t", params_model)
                    wall[which].append((time.perf_counter() - t) * 1000)
                    cpu[which].append((time.process_time() - c) * 1000)
            server_med = statistics.median(wall["server"])
            tool_med = statistics.median(wall["tool"])
            out[name] = {
                "server_median_ms": round(server_med, 2),
                "tool_median_ms": round(tool_med, 2),
                "ratio": round(tool_med / server_med, 3),
                # each run's tool / server (the two calls back to back, under the same load):
                # steadier than the ratio of the medians on a busy machine
                "paired_ratio_median": round(
                    statistics.median(
                        t / b for t, b in zip(wall["tool"], wall["server"], strict=True)
                    ),
                    3,
                ),
                # pi-lsp's own CPU per call (the server's runs in its process): what the tool
                # adds on top of the client's share of the bare request
                "server_client_cpu_ms": round(statistics.median(cpu["server"]), 3),
                "tool_cpu_ms": round(statistics.median(cpu["tool"]), 3),
            }
    finally:
        await pool.aclose()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=30)
    default = Path(sys.executable).parent / "jedi-language-server"
    ap.add_argument("--server", default=str(default))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        shutil.copytree(FIXTURE, root)
        result = asyncio.run(run(root.resolve(), args.server, args.runs))
    print(
        json.dumps(
            {
                "bench": "pi-lsptool-bench/1",
                "python": platform.python_version(),
                "server": Path(args.server).name,
                "runs": args.runs,
                **result,
            }
        )
    )


if __name__ == "__main__":
    main()
