"""Start-up: how long after spawn the first provider request leaves ``pi-lsp run``, and how
long after spawn the language server answers ``initialize`` and the first ``pi/prompt``.

Each figure is the median (and minimum) over ``--runs`` fresh processes, with bytecode
already cached (one unmeasured run first). Prints one JSON line (``pi-startup-bench/1``):

- ``python_bare_ms``: ``python -c pass``, spawn → exit (the interpreter's own floor);
- ``cli_import_ms``: ``python -c "import pi_lsp.cli.run"``, spawn → exit;
- ``cli_first_request_ms``: ``python -m pi_lsp run hi --provider openai-compatible`` pointed at
  a scripted OpenAI-compatible server on 127.0.0.1 in this process: spawn → the request
  received there (target ≤ 150 ms);
- ``lsp_initialize_ms`` / ``lsp_first_prompt_ms``: ``python -m pi_lsp`` over stdio; the client
  sends ``initialize``, ``initialized`` and ``pi/prompt`` at once, as an editor does: spawn →
  each answer received (target for the prompt ≤ 300 ms), and ``lsp_prompt_request_ms``:
  spawn → that prompt's model request received.

``python bench/startup_bench.py [--runs 7]``. Not a test; see docs/performance.md#start-up.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.lsp_bench import Client  # noqa: E402
from tests.support.http_server import ScriptedHTTPServer, sse_response  # noqa: E402


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def answer() -> Any:
    return sse_response([chunk({"role": "assistant", "content": "Hi"}), chunk({}, "stop")])


def spawn_to_exit(args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1000


async def cli_first_request(srv: ScriptedHTTPServer, ws: Path, data: Path) -> float:
    srv.enqueue(answer())
    before = len(srv.requests)
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pi_lsp", "run", "hi", "--provider", "openai-compatible",
        "--base-url", srv.url + "/v1", "--model", "m", "--no-save", "--cwd", str(ws),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL, cwd=ROOT,
        env={**os.environ, "PI_LSP_DATA_DIR": str(data)},
    )  # fmt: skip
    await srv.wait_for_requests(before + 1)
    elapsed = (time.perf_counter() - started) * 1000
    await proc.wait()
    return elapsed


async def lsp_first_prompt(srv: ScriptedHTTPServer, ws: Path, data: Path) -> dict[str, float]:
    srv.enqueue(answer())
    before = len(srv.requests)
    client, started = await Client.spawn(data)
    try:
        init = client.wait(lambda m: m.get("id") == 1 and "method" not in m)
        prompt = client.wait(lambda m: m.get("id") == 2 and "method" not in m)
        pi = {"provider": "openai-compatible", "baseUrl": srv.url + "/v1", "model": "m"}
        client.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": os.getpid(), "rootUri": ws.as_uri(), "capabilities": {},
            "initializationOptions": {"pi": pi}}})  # fmt: skip
        client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        client.send({"jsonrpc": "2.0", "id": 2, "method": "pi/prompt", "params": {"text": "hi"}})
        client._next = 2
        await init
        init_ms = (time.perf_counter() - started) * 1000
        answered = await prompt
        prompt_ms = (time.perf_counter() - started) * 1000
        if "error" in answered:
            raise RuntimeError(f"pi/prompt failed: {answered['error']}")
        await srv.wait_for_requests(before + 1)
        request_ms = (time.perf_counter() - started) * 1000
    finally:
        await client.close()
    return {"init": init_ms, "prompt": prompt_ms, "request": request_ms}


def summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 1), "min": round(min(values), 1)}


async def main_async(runs: int) -> dict[str, Any]:
    bare = [spawn_to_exit([sys.executable, "-c", "pass"]) for _ in range(runs + 1)][1:]
    imports = [
        spawn_to_exit([sys.executable, "-c", "import pi_lsp.cli.run"]) for _ in range(runs + 1)
    ][1:]
    cli: list[float] = []
    init: list[float] = []
    prompt: list[float] = []
    request: list[float] = []
    with tempfile.TemporaryDirectory(prefix="pi-startup-bench-") as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        (ws / "README.md").write_text("a project\n")
        async with ScriptedHTTPServer() as srv:
            for i in range(runs + 1):
                ms = await cli_first_request(srv, ws, Path(tmp) / f"cli-{i}")
                if i:
                    cli.append(ms)
            for i in range(runs + 1):
                got = await lsp_first_prompt(srv, ws, Path(tmp) / f"lsp-{i}")
                if i:
                    init.append(got["init"])
                    prompt.append(got["prompt"])
                    request.append(got["request"])
    return {
        "schema": "pi-startup-bench/1",
        "runtime": f"{platform.python_implementation().lower()} {platform.python_version()}",
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
        "runs": runs,
        "bytecode": "cached (one unmeasured run first)",
        "python_bare_ms": summary(bare),
        "cli_import_ms": summary(imports),
        "cli_first_request_ms": summary(cli),
        "lsp_initialize_ms": summary(init),
        "lsp_first_prompt_ms": summary(prompt),
        "lsp_prompt_request_ms": summary(request),
        "targets_ms": {"cli_first_request": 150, "lsp_first_prompt": 300},
        "loadavg_1m": os.getloadavg()[0],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    # Measure what an installed copy does: bytecode written by the first (unmeasured) run and
    # read by the others, even where the environment says not to write it.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    print(json.dumps(asyncio.run(main_async(args.runs))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
