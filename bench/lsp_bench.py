"""The language-server benchmark: what the editor receives, how fast, and what it costs.

Drives a real ``python -m pi_lsp`` over stdio with a minimal raw JSON-RPC client (no
pytest-lsp overhead on the measuring side) and prints one JSON object:

- ``stream``: bytes and notifications sent to the editor for a 10,000-token answer (faux
  provider), from a fast model (~2000 tokens/s, 8 tokens a chunk) and unthrottled:
  message_update count and rate, the bytes of the streaming notifications and of the whole
  run, each over the answer's own JSON (the final assistant message as in ``message_end``);
- ``first_delta``: latency from the model server writing the first text chunk (a scripted
  OpenAI-compatible server on 127.0.0.1, in this process) to the client receiving that
  ``text_delta`` — after a quiet period, so coalescing adds nothing;
- ``cold_start``: process spawn → ``initialize`` answered, and → first ``pi/*`` answered;
- ``rss``: resident memory of the idle server, and after the 10,000-token run;
- ``many_sessions``: one server, N sessions (default 20): resident memory per idle session,
  then first-delta latency (as above) in one session while the other N-1 stream at once
  (each ~100 chunks/s from the scripted server).

Each on the server's default event loop (uvloop where installed) and on asyncio's own
(``PI_LSP_EVENT_LOOP=asyncio``, the fallback), results under ``event_loops``;
``--event-loops default`` runs one.

Targets (docs/performance.md): bytes ≤ 1.3× the answer's JSON, ≤ 60 notifications/s,
first-delta p50 ≤ 5 ms, initialize ≤ 0.35 s, idle RSS ≤ 80 MB. ``python bench/lsp_bench.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.http_server import (  # noqa: E402
    Delay,
    Pause,
    ScriptedHTTPServer,
    ScriptedResponse,
    sse,
)

TOKENS = 10_000


class Client:
    """Raw LSP over a child's stdio, recording every message with its size and arrival time."""

    event_loop: str | None = None
    """``PI_LSP_EVENT_LOOP`` for the servers spawned (``None``: the default)."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.messages: list[tuple[float, int, dict[str, Any]]] = []
        self._next = 0
        self._waiters: list[tuple[Any, asyncio.Future[dict[str, Any]]]] = []
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def spawn(
        cls, data_dir: Path, *, cwd: Path = ROOT, env: dict[str, str] | None = None
    ) -> tuple[Client, float]:
        """``python -m pi_lsp`` with sessions under ``data_dir`` (or the given environment);
        returns the client and the ``perf_counter`` taken just before the spawn."""
        started = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "pi_lsp",
            "--log-level",
            "WARNING",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=cwd,
            env={
                **(env if env is not None else {**os.environ, "PI_LSP_DATA_DIR": str(data_dir)}),
                **({"PI_LSP_EVENT_LOOP": cls.event_loop} if cls.event_loop else {}),
            },
            limit=1 << 24,
        )
        return cls(proc), started

    async def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            header = await out.readuntil(b"\r\n\r\n")
            length = int(header.split(b":")[1].split(b"\r\n")[0])
            body = await out.readexactly(length)
            message = json.loads(body)
            self.messages.append((time.perf_counter(), len(header) + length, message))
            for pred, fut in list(self._waiters):
                if not fut.done() and pred(message):
                    fut.set_result(message)
                    self._waiters.remove((pred, fut))

    def wait(self, pred: Any) -> asyncio.Future[dict[str, Any]]:
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters.append((pred, fut))
        return fut

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def call(self, method: str, params: Any = None) -> dict[str, Any]:
        self._next += 1
        msg_id = self._next
        fut = self.wait(lambda m: m.get("id") == msg_id and "method" not in m)
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params or {}})
        return await fut

    async def initialize(self, root: Path, pi: dict[str, Any]) -> None:
        await self.call(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "capabilities": {"window": {"workDoneProgress": False}},
                "initializationOptions": {"pi": pi},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def rss_mb(self) -> float:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
        return round(kb / 1024, 1)

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self.call("shutdown"), 10)
            self.send({"jsonrpc": "2.0", "method": "exit"})
            await asyncio.wait_for(self.proc.wait(), 10)
        except (TimeoutError, ConnectionError):
            self.proc.kill()
        self.reader.cancel()


def is_event(kind: str) -> Any:
    return lambda m: m.get("method") == "pi/event" and m["params"]["event"]["type"] == kind


# ------------------------------------------------------------------------------ stream


async def bench_stream(
    tmp: Path, *, delay_ms: float, chunk: int, compact: bool = False
) -> dict[str, Any]:
    """With ``compact`` the client declares ``compactEvents``: ``message_end`` leaves out the
    streamed text, so the answer's JSON is taken from ``pi/resumeSession`` instead."""
    words = [f"tok{i % 997}" for i in range(TOKENS)]
    text = " ".join(words)  # ~10,000 tokens of ~4-5 characters
    script = tmp / f"stream-{delay_ms}.json"
    script.write_text(
        json.dumps(
            {
                "chunkSize": chunk,
                "delayMs": delay_ms,
                "responses": [{"content": [{"type": "text", "text": text}]}],
            }
        )
    )
    ws = tmp / "ws"
    ws.mkdir(exist_ok=True)
    client, _ = await Client.spawn(tmp / "data")
    try:
        caps = {"events": True, "compactEvents": compact}
        await client.initialize(
            ws, {"provider": "faux", "fauxScript": str(script), "clientCapabilities": caps}
        )
        await client.call("pi/sessions")
        idle_rss = client.rss_mb()
        mark = len(client.messages)
        done = client.wait(is_event("agent_end"))
        started = time.perf_counter()
        await client.call("pi/prompt", {"text": "write"})
        await done
        elapsed = time.perf_counter() - started
        run = client.messages[mark:]
        events = [
            (t, size, m["params"]["event"]) for t, size, m in run if m.get("method") == "pi/event"
        ]
        updates = [(t, size, e) for t, size, e in events if e["type"] == "message_update"]
        deltas = [u for u in updates if u[2]["assistantMessageEvent"]["type"] == "text_delta"]
        sid = next(m["params"]["sessionId"] for _, _, m in run if m.get("method") == "pi/event")
        resumed = await client.call("pi/resumeSession", {"sessionId": sid})
        final = next(m for m in resumed["result"]["messages"] if m["role"] == "assistant")
        answer_json = len(json.dumps(final, separators=(",", ":"), ensure_ascii=False).encode())
        stream_s = (deltas[-1][0] - deltas[0][0]) if len(deltas) > 1 else 0.0
        per_second = [0] * (int(stream_s) + 1)
        for t, _, _ in deltas:
            per_second[int(t - deltas[0][0])] += 1
        total_bytes = sum(size for _, size, _ in run)
        update_bytes = sum(size for _, size, _ in updates)
        after_rss = client.rss_mb()
        return {
            "answer_chars": len(text),
            "answer_json_bytes": answer_json,
            "run_seconds": round(elapsed, 3),
            "stream_seconds": round(stream_s, 3),
            "model_tokens_per_second": round(TOKENS / stream_s) if stream_s else None,
            "model_chunks": -(-len(text) // chunk),
            "update_notifications": len(updates),
            "delta_notifications": len(deltas),
            "deltas_per_second_avg": round(len(deltas) / stream_s, 1) if stream_s else None,
            "deltas_per_second_max": max(per_second),
            "notifications_total": len(run),
            "update_bytes": update_bytes,
            "update_bytes_over_answer": round(update_bytes / answer_json, 3),
            "run_bytes": total_bytes,
            "run_bytes_over_answer": round(total_bytes / answer_json, 3),
            "idle_rss_mb": idle_rss,
            "rss_after_run_mb": after_rss,
        }
    finally:
        await client.close()


# ------------------------------------------------------------------------- first delta


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


async def bench_first_delta(tmp: Path, rounds: int) -> dict[str, Any]:
    latencies: list[float] = []
    ws = tmp / "ws"
    ws.mkdir(exist_ok=True)
    async with ScriptedHTTPServer() as srv:
        client, _ = await Client.spawn(tmp / "data-latency")
        try:
            await client.initialize(
                ws, {"provider": "openai-compatible", "baseUrl": srv.url + "/v1", "model": "m"}
            )
            for _ in range(rounds):
                gate = Pause(asyncio.Event())
                body = [
                    *sse([chunk({"role": "assistant", "content": ""})], done=False),
                    gate,
                    *sse([chunk({"content": "Hello"}), chunk({}, "stop")]),
                ]
                srv.enqueue(ScriptedResponse(200, {"content-type": "text/event-stream"}, body))
                before = len(srv.requests)
                first = client.wait(
                    lambda m: (
                        m.get("method") == "pi/event"
                        and m["params"]["event"]["type"] == "message_update"
                        and m["params"]["event"]["assistantMessageEvent"]["type"] == "text_delta"
                    )
                )
                end = client.wait(is_event("agent_end"))
                await client.call("pi/prompt", {"text": "hi"})
                await srv.wait_for_requests(before + 1)
                await asyncio.sleep(0.05)  # quiet period: the role chunk is in, nothing else
                sent = time.perf_counter()
                gate.event.set()
                await first
                received = next(
                    t
                    for t, _, m in reversed(client.messages)
                    if m.get("method") == "pi/event"
                    and m["params"]["event"]["type"] == "message_update"
                    and m["params"]["event"]["assistantMessageEvent"]["type"] == "text_delta"
                )
                latencies.append((received - sent) * 1000)
                await end
        finally:
            await client.close()
    latencies.sort()
    return {
        "rounds": rounds,
        "p50_ms": round(statistics.median(latencies), 2),
        "p90_ms": round(latencies[int(len(latencies) * 0.9) - 1], 2),
        "max_ms": round(latencies[-1], 2),
    }


# ------------------------------------------------------------------------ many sessions


async def bench_many_sessions(tmp: Path, sessions: int, rounds: int) -> dict[str, Any]:
    ws = tmp / "ws"
    ws.mkdir(exist_ok=True)
    latencies: list[float] = []
    async with ScriptedHTTPServer() as srv:
        client, _ = await Client.spawn(tmp / "data-many")
        try:
            await client.initialize(
                ws, {"provider": "openai-compatible", "baseUrl": srv.url + "/v1", "model": "m"}
            )
            first_id = (await client.call("pi/newSession"))["result"]["sessionId"]
            await client.call("pi/state", {"sessionId": first_id})
            rss_one = client.rss_mb()
            ids = [first_id]
            for _ in range(sessions - 1):
                ids.append((await client.call("pi/newSession"))["result"]["sessionId"])
            for sid in ids:
                await client.call("pi/state", {"sessionId": sid})
            rss_all = client.rss_mb()
            # N-1 background sessions stream ~100 chunks/s each until released.
            release = asyncio.Event()
            body: list[Any] = [*sse([chunk({"role": "assistant", "content": ""})], done=False)]
            for i in range(3000):
                body += [*sse([chunk({"content": f"w{i} "})], done=False), Delay(0.01)]
                if i == 20:
                    body.append(Pause(release))
            body += sse([chunk({}, "stop")])
            background = ids[1:]
            ends = [
                client.wait(
                    lambda m, sid=sid: (
                        m.get("method") == "pi/event"
                        and m["params"]["sessionId"] == sid
                        and m["params"]["event"]["type"] == "agent_end"
                    )
                )
                for sid in background
            ]
            for sid in background:
                srv.enqueue(
                    ScriptedResponse(200, {"content-type": "text/event-stream"}, list(body))
                )
                await client.call("pi/prompt", {"text": "stream", "sessionId": sid})
            await srv.wait_for_requests(len(background))
            release.set()
            await asyncio.sleep(0.3)  # every background stream is flowing
            measured = ids[0]
            for _ in range(rounds):
                gate = Pause(asyncio.Event())
                srv.enqueue(
                    ScriptedResponse(
                        200,
                        {"content-type": "text/event-stream"},
                        [
                            *sse([chunk({"role": "assistant", "content": ""})], done=False),
                            gate,
                            *sse([chunk({"content": "Hello"}), chunk({}, "stop")]),
                        ],
                    )
                )
                before = len(srv.requests)

                def first_delta(m: dict[str, Any]) -> bool:
                    return (
                        m.get("method") == "pi/event"
                        and m["params"]["sessionId"] == measured
                        and m["params"]["event"]["type"] == "message_update"
                        and m["params"]["event"]["assistantMessageEvent"]["type"] == "text_delta"
                    )

                first = client.wait(first_delta)
                end = client.wait(
                    lambda m: (
                        m.get("method") == "pi/event"
                        and m["params"]["sessionId"] == measured
                        and m["params"]["event"]["type"] == "agent_end"
                    )
                )
                await client.call("pi/prompt", {"text": "hi", "sessionId": measured})
                await srv.wait_for_requests(before + 1)
                await asyncio.sleep(0.05)
                sent = time.perf_counter()
                gate.event.set()
                await first
                received = next(t for t, _, m in reversed(client.messages) if first_delta(m))
                latencies.append((received - sent) * 1000)
                await end
            streaming = sum(1 for f in ends if not f.done())
            for sid in background:
                await client.call("pi/abort", {"sessionId": sid})
            await asyncio.wait_for(asyncio.gather(*ends), 30)
        finally:
            await client.close()
    latencies.sort()
    return {
        "sessions": sessions,
        "rss_one_session_mb": rss_one,
        "rss_all_sessions_mb": rss_all,
        "idle_mb_per_session": round((rss_all - rss_one) / max(1, sessions - 1), 3),
        "background_still_streaming_at_end": streaming,
        "rounds": rounds,
        "first_delta_p50_ms": round(statistics.median(latencies), 2),
        "first_delta_p90_ms": round(latencies[int(len(latencies) * 0.9) - 1], 2),
        "first_delta_max_ms": round(latencies[-1], 2),
    }


# -------------------------------------------------------------------------- cold start


async def bench_cold_start(tmp: Path, rounds: int) -> dict[str, Any]:
    init: list[float] = []
    ready: list[float] = []
    ws = tmp / "ws"
    ws.mkdir(exist_ok=True)
    for i in range(rounds):
        client, started = await Client.spawn(tmp / f"data-cold-{i}")
        try:
            await client.call(
                "initialize", {"processId": os.getpid(), "rootUri": ws.as_uri(), "capabilities": {}}
            )
            init.append(time.perf_counter() - started)
            client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
            await client.call("pi/sessions")
            ready.append(time.perf_counter() - started)
        finally:
            await client.close()
    return {
        "rounds": rounds,
        "initialize_s_median": round(statistics.median(init), 3),
        "initialize_s_min": round(min(init), 3),
        "first_request_s_median": round(statistics.median(ready), 3),
    }


async def bench_one_loop(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    result: dict[str, Any] = {}
    if args.only == "many_sessions":
        result["many_sessions"] = await bench_many_sessions(
            tmp, args.sessions, args.latency_rounds // 2
        )
        return result
    if args.only == "stream":
        for compact in (False, True):
            key = "stream_fast_model" + ("_compact" if compact else "")
            result[key] = await bench_stream(tmp, delay_ms=2.0, chunk=36, compact=compact)
        return result
    result["cold_start"] = await bench_cold_start(tmp, args.cold_rounds)
    result["stream_fast_model"] = await bench_stream(tmp, delay_ms=2.0, chunk=36)
    result["stream_unthrottled"] = await bench_stream(tmp, delay_ms=0.0, chunk=18)
    result["stream_fast_model_compact"] = await bench_stream(
        tmp, delay_ms=2.0, chunk=36, compact=True
    )
    result["first_delta"] = await bench_first_delta(tmp, args.latency_rounds)
    result["many_sessions"] = await bench_many_sessions(
        tmp, args.sessions, args.latency_rounds // 2
    )
    return result


def loop_that_runs(choice: str) -> str:
    """The loop a server spawned with this choice runs on (it uses the same module)."""
    from pi_lsp.runtime import event_loop

    previous = os.environ.get(event_loop.ENV_VAR)
    os.environ[event_loop.ENV_VAR] = "auto" if choice == "default" else choice
    try:
        return "uvloop" if event_loop.loop_factory() is not None else "asyncio"
    finally:
        if previous is None:
            del os.environ[event_loop.ENV_VAR]
        else:
            os.environ[event_loop.ENV_VAR] = previous


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    result: dict[str, Any] = {
        "schema": "pi-lsp-bench/2",
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cpus",
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "event_loops": {},
    }
    for choice in args.event_loops.split(","):
        Client.event_loop = None if choice == "default" else choice
        with tempfile.TemporaryDirectory(prefix="pi-lsp-bench-") as raw:
            figures = await bench_one_loop(args, Path(raw))
        result["event_loops"][choice] = {"event_loop": loop_that_runs(choice), **figures}
    result["load_avg_1m_end"] = round(os.getloadavg()[0], 2)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cold-rounds", type=int, default=5)
    parser.add_argument("--latency-rounds", type=int, default=40)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--only", choices=["many_sessions", "stream"], help="run one workload")
    parser.add_argument(
        "--event-loops",
        default="default,asyncio",
        help="comma-separated: default (the server's own choice), asyncio, uvloop",
    )
    args = parser.parse_args(argv)
    if not set(args.event_loops.split(",")) <= {"default", "asyncio", "uvloop"}:
        parser.error(f"--event-loops: not one of default, asyncio, uvloop: {args.event_loops}")
    print(json.dumps(asyncio.run(main_async(args)), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
