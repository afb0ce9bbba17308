"""The start-up benchmark: how long a fresh process takes before it does useful work.

Prints one JSON line (schema ``pi-startup-bench/1``) with the median and minimum over
``--runs`` fresh processes (default 7) of:

- ``python_bare_ms``: ``python -c pass``, spawn → exit: the interpreter's own floor;
- ``cli_import_ms``: ``python -c "import pi_lsp.cli.run"``, spawn → exit;
- ``cli_first_request_ms``: ``pi-lsp run "hi"`` against a scripted OpenAI-compatible server
  on 127.0.0.1 (a small threaded ``http.server`` in this process, which notes
  ``time.perf_counter()`` when the POST arrives and answers a short SSE stream): spawn →
  the first provider request's arrival (issue target ≤ 150 ms). The warm-up run leaves the
  request template ``cli/prefetch.py`` keeps, so this is a repeated command, whose first
  request goes out at spawn;
- ``cli_first_request_cold_ms``: the same with ``PI_LSP_NO_PREFETCH=1``: a command run for
  the first time (or changed, or on another day), whose request waits for the imports;
- ``lsp_initialize_ms`` / ``lsp_first_prompt_ms``: ``python -m pi_lsp`` over stdio, driven by
  the raw JSON-RPC client of ``bench/lsp_bench.py``; ``initialize``, ``initialized`` and a first
  ``pi/prompt`` are written at once right after spawn (as an editor does), and the figures are
  spawn → the ``initialize`` answer and spawn → the ``pi/prompt`` answer (target ≤ 300 ms);
  ``lsp_first_model_request_ms`` is spawn → that prompt's request reaching the model server;
- ``lsp_prompt_after_start_ms`` / ``lsp_model_request_after_start_ms``: the same server, but
  the ``pi/prompt`` is written 2 s after ``initialize`` was answered (an editor starts the
  server with the workspace; the user types later): from writing it → its answer, → its
  request reaching the model server;
- ``acp_initialize_ms`` / ``acp_session_new_ms`` / ``acp_first_model_request_ms``:
  ``pi-lsp acp`` over stdio (newline-delimited JSON-RPC, a raw client here), as an editor
  drives it for each chat: ``initialize`` written at spawn, ``session/new`` when it is
  answered, a ``session/prompt`` when that is; spawn → the ``initialize`` answer (target
  ≤ 300 ms), → the ``session/new`` answer, → the prompt's request at the model server.

Every figure measured in the same run as ``python_bare_ms`` also gets ``ratio_to_python``:
its median over ``python_bare_ms``'s, which carries over between machines better than the
milliseconds do.

Bytecode is cached: one unmeasured warm-up process of each kind runs first (with
``PYTHONDONTWRITEBYTECODE`` removed from the children's environment), so every measured
process reads ``__pycache__`` instead of compiling. The kinds are interleaved run by run so a
burst of load on the machine spreads over all figures. ``python bench/startup_bench.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.lsp_bench import Client, chunk, is_event  # noqa: E402

SCHEMA = "pi-startup-bench/1"
BASELINE = "python_bare_ms"
IDLE_S = 2.0
"""How long after ``initialize`` the ``lsp_idle`` kind writes its prompt."""
TARGETS_MS = {"cli_first_request_ms": 150, "lsp_first_prompt_ms": 300, "acp_initialize_ms": 300}


# ------------------------------------------------------------------- scripted model server


class ModelServer:
    """A threaded OpenAI-compatible endpoint: every POST is answered with a short SSE stream
    ("Hello", then stop); ``arrivals`` holds ``time.perf_counter()`` of each POST's arrival."""

    def __init__(self) -> None:
        self.arrivals: list[float] = []
        self._arrived = threading.Condition()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                arrived = time.perf_counter()
                length = int(self.headers.get("content-length") or 0)
                self.rfile.read(length)
                body = b"".join(
                    b"data: %s\n\n" % json.dumps(event).encode()
                    for event in (
                        chunk({"role": "assistant", "content": ""}),
                        chunk({"content": "Hello"}),
                        chunk({}, "stop"),
                    )
                )
                body += b"data: [DONE]\n\n"
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()
                with owner._arrived:
                    owner.arrivals.append(arrived)
                    owner._arrived.notify_all()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def wait_for(self, count: int, timeout: float) -> float:
        """The arrival time of request number ``count`` (1-based), waiting for it."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self.arrivals) >= count, timeout):
                raise TimeoutError(f"no model request #{count} within {timeout} s")
            return self.arrivals[count - 1]

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


# ---------------------------------------------------------------------------- processes


def child_env(data_dir: Path) -> dict[str, str]:
    """The children's environment: ``HOME`` is a scratch directory, so the sessions go where
    they go for a user (``platformdirs``: ``~/.local/share/pi-lsp`` on Linux) but not into
    the real one."""
    env = {**os.environ, "HOME": str(data_dir)}
    for name in ("PI_LSP_DATA_DIR", "XDG_DATA_HOME", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)  # the children read (and on warm-up write) bytecode caches
    return env


def time_process(argv: list[str], env: dict[str, str]) -> float:
    """Spawn → exit of a process, in ms."""
    started = time.perf_counter()
    subprocess.run(argv, check=True, env=env, stdin=subprocess.DEVNULL, cwd=ROOT)
    return (time.perf_counter() - started) * 1000


def pi_lsp_command() -> list[str]:
    """The installed console script next to this interpreter (what a user runs), else
    ``python -m pi_lsp``."""
    script = Path(sys.executable).with_name("pi-lsp")
    if script.exists():
        return [str(script)]
    found = shutil.which("pi-lsp")
    return [found] if found else [sys.executable, "-m", "pi_lsp"]


def cli_first_request(
    server: ModelServer, ws: Path, data_dir: Path, extra_env: dict[str, str] | None = None
) -> float:
    """Spawn of ``pi-lsp run "hi"`` → its first provider request arriving, in ms."""
    argv = [
        *pi_lsp_command(),
        "run",
        "hi",
        "--cwd",
        str(ws),
        "--provider",
        "openai-compatible",
        "--base-url",
        server.url,
        "--model",
        "m",
    ]
    before = len(server.arrivals)
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        env={**child_env(data_dir), **(extra_env or {})},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ws,
    )
    try:
        arrived = server.wait_for(before + 1, timeout=60)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if proc.returncode != 0 or b"Hello" not in out:
        raise RuntimeError(f"pi-lsp run failed ({proc.returncode}): {out!r} {err!r}")
    return (arrived - started) * 1000


async def lsp_first_prompt(
    server: ModelServer, ws: Path, data_dir: Path, idle_s: float = 0.0
) -> dict[str, float]:
    """Spawn of the server → ``initialize`` answered, → first ``pi/prompt`` answered, → that
    prompt's model request arriving (ms); the three requests are written at once.

    With ``idle_s``, the prompt is written ``idle_s`` after the ``initialize`` answer instead
    (an editor starts the server when a workspace opens; the user types later), and the
    figures are that prompt's answer and model request, from when it was written."""
    before = len(server.arrivals)
    # the raw JSON-RPC client of bench/lsp_bench.py, the server run in the scratch workspace
    client, started = await Client.spawn(data_dir, cwd=ws, env=child_env(data_dir))
    try:
        answers = {
            msg_id: client.wait(lambda m, i=msg_id: m.get("id") == i and "method" not in m)
            for msg_id in (1, 2)
        }
        ended = client.wait(is_event("agent_end"))
        client.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "processId": os.getpid(),
                    "rootUri": ws.as_uri(),
                    "capabilities": {"window": {"workDoneProgress": False}},
                    "initializationOptions": {
                        "pi": {"provider": "openai-compatible", "baseUrl": server.url, "model": "m"}
                    },
                },
            }
        )
        client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        prompt = {"jsonrpc": "2.0", "id": 2, "method": "pi/prompt", "params": {"text": "hi"}}
        times: dict[str, float] = {}
        if idle_s:
            await asyncio.wait_for(answers[1], 60)
            await asyncio.sleep(idle_s)
            started = time.perf_counter()
            client.send(prompt)
            names = {2: "lsp_prompt_after_start_ms"}
            model_name = "lsp_model_request_after_start_ms"
        else:
            client.send(prompt)
            names = {1: "lsp_initialize_ms", 2: "lsp_first_prompt_ms"}
            model_name = "lsp_first_model_request_ms"
        for msg_id, name in names.items():
            answer = await asyncio.wait_for(answers[msg_id], 60)
            if "result" not in answer:
                raise RuntimeError(f"request {msg_id} failed: {answer}")
            times[name] = (arrival(client, msg_id) - started) * 1000
        await asyncio.wait_for(ended, 60)
        model = await asyncio.to_thread(server.wait_for, before + 1, 60)
        times[model_name] = (model - started) * 1000
        return times
    finally:
        await client.close()


class AcpClient:
    """Newline-delimited JSON-RPC over a ``pi-lsp acp`` child's stdio; notes when each
    response arrives."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.answered: dict[int, tuple[float, dict[str, Any]]] = {}
        self._waiters: dict[int, asyncio.Future[float]] = {}
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while line := await out.readline():
            arrived = time.perf_counter()
            message = json.loads(line)
            msg_id = message.get("id")
            if "method" in message or not isinstance(msg_id, int):
                continue  # session updates, the agent's own requests
            self.answered[msg_id] = (arrived, message)
            waiter = self._waiters.pop(msg_id, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(arrived)

    async def call(self, msg_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Write the request; its result once answered (``answered`` has the time)."""
        waiter = asyncio.get_running_loop().create_future()
        self._waiters[msg_id] = waiter
        assert self.proc.stdin is not None
        request = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
        self.proc.stdin.write(json.dumps(request).encode() + b"\n")
        await asyncio.wait_for(waiter, 60)
        message = self.answered[msg_id][1]
        if "result" not in message:
            raise RuntimeError(f"{method} failed: {message}")
        return message["result"]  # type: ignore[no-any-return]

    async def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 30)
        finally:
            if self.proc.returncode is None:
                self.proc.kill()
                await self.proc.wait()
            self.reader.cancel()


async def acp_first_prompt(server: ModelServer, ws: Path, data_dir: Path) -> dict[str, float]:
    """Spawn of ``pi-lsp acp`` → ``initialize`` answered, → ``session/new`` answered, → the
    first prompt's model request arriving (ms); each request written when the one before it
    was answered, as an editor's ACP client does."""
    before = len(server.arrivals)
    argv = [
        *pi_lsp_command(),
        "acp",
        "--provider",
        "openai-compatible",
        "--base-url",
        server.url,
        "--model",
        "m",
    ]
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd=ws,
        env=child_env(data_dir),
        limit=1 << 24,
    )
    client = AcpClient(proc)
    try:
        caps = {"fs": {"readTextFile": True, "writeTextFile": True}}
        await client.call(0, "initialize", {"protocolVersion": 1, "clientCapabilities": caps})
        new = await client.call(1, "session/new", {"cwd": str(ws), "mcpServers": []})
        prompt = [{"type": "text", "text": "hi"}]
        await client.call(2, "session/prompt", {"sessionId": new["sessionId"], "prompt": prompt})
        model = await asyncio.to_thread(server.wait_for, before + 1, 60)
        return {
            "acp_initialize_ms": (client.answered[0][0] - started) * 1000,
            "acp_session_new_ms": (client.answered[1][0] - started) * 1000,
            "acp_first_model_request_ms": (model - started) * 1000,
        }
    finally:
        await client.close()


def arrival(client: Client, msg_id: int) -> float:
    return next(t for t, _, m in client.messages if m.get("id") == msg_id and "method" not in m)


# ---------------------------------------------------------------------------------- main


def summarise(samples: dict[str, list[float]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    base = statistics.median(samples[BASELINE]) if BASELINE in samples else None
    for name, values in samples.items():
        median = statistics.median(values)
        out[name] = {"median": round(median, 1), "min": round(min(values), 1)}
        if name in TARGETS_MS:
            out[name]["target"] = TARGETS_MS[name]
        if base and name != BASELINE:
            out[name]["ratio_to_python"] = round(median / base, 2)
    return out


KINDS = ("python", "cli_import", "cli", "cli_cold", "lsp", "lsp_idle", "acp")


def run(runs: int, only: str | None) -> dict[str, Any]:
    samples: dict[str, list[float]] = {}
    server = ModelServer()
    with tempfile.TemporaryDirectory(prefix="pi-startup-bench-") as raw:
        tmp = Path(raw)
        ws = tmp / "ws"
        ws.mkdir()
        env = child_env(tmp / "data")
        kinds: dict[str, Callable[[], dict[str, float]]] = {
            "python": lambda: {"python_bare_ms": time_process([sys.executable, "-c", "pass"], env)},
            "cli_import": lambda: {
                "cli_import_ms": time_process([sys.executable, "-c", "import pi_lsp.cli.run"], env)
            },
            "cli": lambda: {"cli_first_request_ms": cli_first_request(server, ws, tmp / "data")},
            "cli_cold": lambda: {
                "cli_first_request_cold_ms": cli_first_request(
                    server, ws, tmp / "data", {"PI_LSP_NO_PREFETCH": "1"}
                )
            },
            "lsp": lambda: asyncio.run(lsp_first_prompt(server, ws, tmp / "data")),
            "lsp_idle": lambda: asyncio.run(
                lsp_first_prompt(server, ws, tmp / "data", idle_s=IDLE_S)
            ),
            "acp": lambda: asyncio.run(acp_first_prompt(server, ws, tmp / "data")),
        }
        if only:
            kinds = {kind: kinds[kind] for kind in only.split(",")}
        for measure in kinds.values():  # warm-up: writes the bytecode caches
            measure()
        for _ in range(runs):
            for measure in kinds.values():
                for name, value in measure().items():
                    samples.setdefault(name, []).append(value)
    server.close()
    return {
        "schema": SCHEMA,
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cpus",
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "runs": runs,
        "bytecode": "cached (one unmeasured warm-up process of each kind first)",
        **summarise(samples),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per figure")
    parser.add_argument("--only", help=f"measure these kinds (comma-separated: {', '.join(KINDS)})")
    args = parser.parse_args(argv)
    if args.only and not set(args.only.split(",")) <= set(KINDS):
        parser.error(f"--only: not among {', '.join(KINDS)}: {args.only}")
    print(json.dumps(run(args.runs, args.only)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
