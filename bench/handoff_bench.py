"""What one streamed chunk costs the event loop, without the agent loop around it.

Prints one JSON line (``pi-handoff-bench/1``): per chunk, in µs (median of ``--runs``):

- ``two_tasks``: a producer task pushes into ``AssistantMessageEventStream`` and yields with
  ``asyncio.sleep(0)`` (the loop benchmark's ``macro`` producer); a consumer task iterates it
  doing nothing — two task steps per chunk;
- ``direct``: the same producer, with the consumer handling each chunk at push time
  (``stream.direct``, as the agent loop does) — one task step per chunk;
- ``sleep0``: one task doing ``await asyncio.sleep(0)``: the event loop's floor per chunk.

Each on asyncio's loop and, when installed, uvloop's. ``python bench/handoff_bench.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pi_lsp.ai import AssistantMessage, AssistantMessageEventStream, TextDeltaEvent

CHUNKS = 20_000


async def produce(stream: AssistantMessageEventStream, event: Any) -> None:
    for _ in range(CHUNKS):
        stream.push(event)
        await asyncio.sleep(0)
    stream.end()


async def two_tasks() -> float:
    stream = AssistantMessageEventStream()
    event = TextDeltaEvent(0, "abcd", AssistantMessage())
    started = time.perf_counter()
    task = asyncio.get_running_loop().create_task(produce(stream, event))
    async for _ in stream:
        pass
    await task
    return (time.perf_counter() - started) / CHUNKS * 1e6


async def direct() -> float:
    stream = AssistantMessageEventStream()
    event = TextDeltaEvent(0, "abcd", AssistantMessage())
    seen = 0

    def handle(_: Any) -> None:
        nonlocal seen
        seen += 1

    stream.direct = handle
    started = time.perf_counter()
    task = asyncio.get_running_loop().create_task(produce(stream, event))
    async for _ in stream:
        pass
    await task
    assert seen == CHUNKS
    return (time.perf_counter() - started) / CHUNKS * 1e6


async def sleep0() -> float:
    started = time.perf_counter()
    for _ in range(CHUNKS):
        await asyncio.sleep(0)
    return (time.perf_counter() - started) / CHUNKS * 1e6


def measure(factory: Callable[[], asyncio.AbstractEventLoop] | None, runs: int) -> dict[str, float]:
    out: dict[str, list[float]] = {"two_tasks": [], "direct": [], "sleep0": []}
    for _ in range(runs):
        for name, fn in (("two_tasks", two_tasks), ("direct", direct), ("sleep0", sleep0)):
            with asyncio.Runner(loop_factory=factory) as runner:
                out[name].append(runner.run(fn()))
    return {name: round(statistics.median(values), 2) for name, values in out.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    result: dict[str, Any] = {
        "schema": "pi-handoff-bench/1",
        "chunks": CHUNKS,
        "runs": args.runs,
        "asyncio_us": measure(None, args.runs),
    }
    try:
        import uvloop
    except ImportError:
        result["uvloop_us"] = None
    else:
        result["uvloop_us"] = measure(uvloop.new_event_loop, args.runs)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
