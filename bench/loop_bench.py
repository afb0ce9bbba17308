"""The agent-loop benchmark of docs/performance.md#agent-loop (schema ``pi-loop-bench/1``), Python
side.

Synthetic, network-free workloads drive ``run_agent_loop`` (``--api loop``) or ``Agent``
(``--api agent``) with a scripted fake stream function; one measured run per process, the
JSON result on the last line of stdout. The run fails (exit 1) when any event count differs
from the contract's formulas. Not a test: ``python bench/loop_bench.py --workload turns``.

Event loop (``--event-loop``): ``default`` is the front ends' own choice
(``pi_lsp.runtime.event_loop``: uvloop where installed, ``PI_LSP_EVENT_LOOP`` honoured);
``asyncio`` and ``uvloop`` force one. The result names the loop that ran (``event_loop``).

Producers: ``macro`` (default; a producer task that yields with ``asyncio.sleep(0)`` after
every push, like Node's ``setImmediate``) and ``sync`` (everything pushed before the stream
function returns). ``micro`` has no asyncio equivalent and is rejected.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import resource
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

_KEYS = (
    "tool_turns",
    "deltas_per_turn",
    "tool_calls_per_turn",
    "tool_sleep_ms",
    "tool_result_bytes",
    "serialize_context",
)
WORKLOADS: dict[str, dict[str, Any]] = {
    name: dict(zip(_KEYS, row, strict=True))
    for name, row in {
        "stream": (0, 20000, 0, 0, 0, False),
        "turns": (500, 50, 1, 0, 0, False),
        "parallel": (50, 50, 8, 5, 0, False),
        "history": (200, 50, 1, 0, 20480, False),
        "history_json": (200, 50, 1, 0, 20480, True),
    }.items()
}
OVERRIDES = {
    "turns": "tool_turns",
    "deltas": "deltas_per_turn",
    "tools": "tool_calls_per_turn",
    "sleep_ms": "tool_sleep_ms",
    "result_bytes": "tool_result_bytes",
}
PATTERN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"
SYSTEM_PROMPT = "You are a benchmark agent."
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def rss_mb() -> float:
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * PAGE / 1048576
    except OSError:
        return 0.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--workload", choices=sorted(WORKLOADS), default="stream")
    parser.add_argument("--api", choices=["loop", "agent"], default="loop")
    parser.add_argument("--producer", choices=["macro", "micro", "sync"], default="macro")
    parser.add_argument("--warmup", type=int, default=0)
    for flag in OVERRIDES:
        parser.add_argument("--" + flag.replace("_", "-"), type=int, default=None, dest=flag)
    parser.add_argument(
        "--event-loop",
        choices=["default", "asyncio", "uvloop"],
        default="default",
        help="default: the front ends' loop (uvloop where installed); or force one",
    )
    args = parser.parse_args(argv)
    if args.producer == "micro":
        parser.error(
            "--producer micro has no asyncio equivalent (asyncio has no microtask "
            "queue); compare 'macro' (the anchor) or 'sync' instead"
        )
    return args


# ------------------------------------------------------------------------ the workload


class Workload:
    """Fresh fixtures for one run: the echo tool, the fake stream function, the sink."""

    def __init__(self, params: dict[str, Any], producer: str) -> None:
        from pydantic import BaseModel, Field

        from pi_lsp.agent import AgentTool, AgentToolResult
        from pi_lsp.ai import (
            AssistantMessage,
            AssistantMessageEventStream,
            DoneEvent,
            Model,
            StartEvent,
            TextContent,
            TextDeltaEvent,
            TextEndEvent,
            TextStartEvent,
            ToolCall,
            ToolCallDeltaEvent,
            ToolCallEndEvent,
            ToolCallStartEvent,
            Usage,
            now_ms,
        )
        from pi_lsp.ai.grow import append_to_field as append
        from pi_lsp.ai.types import ModelCost

        self.params = params
        self.model = Model(
            id="bench-model",
            name="Bench Model",
            api="bench",
            provider="bench",
            base_url="",
            reasoning=False,
            input=["text"],
            cost=ModelCost(),
            context_window=10_000_000,
            max_tokens=100_000,
        )
        sleep_ms = params["tool_sleep_ms"]
        self.sleeps: dict[int, list[float]] = {}
        sleeps = self.sleeps

        class EchoParams(BaseModel):
            text: str = Field(description="Text to echo")
            size: int | None = Field(default=None, description="Exact output length in characters")

        class EchoTool(AgentTool[EchoParams]):
            name = "echo"
            label = "Echo"
            description = (
                "Echo the input text. If size is given, repeat text+newline and cut "
                "to exactly size characters."
            )
            parameters = EchoParams

            async def execute(
                self,
                tool_call_id: str,
                params: EchoParams,
                signal: Any = None,
                on_update: Any = None,
            ) -> AgentToolResult:
                if sleep_ms > 0:
                    turn = int(tool_call_id.split("_")[1])
                    start = time.perf_counter()
                    await asyncio.sleep(sleep_ms / 1000)
                    end = time.perf_counter()
                    span = sleeps.get(turn)
                    if span is None:
                        sleeps[turn] = [start, end]
                    else:
                        span[0] = min(span[0], start)
                        span[1] = max(span[1], end)
                text = params.text
                if params.size is not None:
                    unit = text + "\n"
                    text = (unit * (params.size // len(unit) + 1))[: params.size]
                return AgentToolResult(content=[TextContent(text=text)], details={})

        self.tool = EchoTool()
        self.llm_calls = 0
        self.max_backlog = 0
        self.serialized_chars = 0
        self.arg_chunks: list[int] = []
        model = self.model

        def events(turn: int, output: AssistantMessage) -> Iterator[Any]:
            yield StartEvent(output)
            deltas = params["deltas_per_turn"]
            if deltas > 0:
                block = TextContent(text="")
                output.content.append(block)
                index = len(output.content) - 1
                yield TextStartEvent(index, output)
                for i in range(deltas):
                    offset = (4 * i) % 64
                    delta = PATTERN[offset : offset + 4]
                    append(block, "text", delta)  # as the providers accumulate text (_base.py)
                    yield TextDeltaEvent(index, delta, output)
                yield TextEndEvent(index, block.text, output)
            if turn < params["tool_turns"]:
                for k in range(params["tool_calls_per_turn"]):
                    call = ToolCall(id=f"call_{turn}_{k}", name="echo", arguments={})
                    output.content.append(call)
                    index = len(output.content) - 1
                    yield ToolCallStartEvent(index, output)
                    args: dict[str, Any] = {"text": f"turn-{turn:04d}-call-{k}"}
                    if params["tool_result_bytes"] > 0:
                        args["size"] = params["tool_result_bytes"]
                    raw = json.dumps(args, separators=(",", ":"))
                    self.arg_chunks.append(math.ceil(len(raw) / 4))
                    for j in range(0, len(raw), 4):
                        yield ToolCallDeltaEvent(index, raw[j : j + 4], output)
                    call.arguments = args
                    yield ToolCallEndEvent(index, call, output)
            yield DoneEvent(output.stop_reason, output)  # type: ignore[arg-type]

        def stream_fn(m: Any, context: Any, options: Any) -> Any:
            turn = self.llm_calls
            self.llm_calls += 1
            if params["serialize_context"]:
                self.serialized_chars += len(serialize(m, context))
            output = AssistantMessage(
                api="bench",
                provider="bench",
                model="bench-model",
                usage=Usage(),
                stop_reason="toolUse" if turn < params["tool_turns"] else "stop",
                timestamp=now_ms(),
            )
            stream = AssistantMessageEventStream()
            if producer == "sync":
                for event in events(turn, output):
                    stream.push(event)
                stream.end(output)
                self.max_backlog = max(self.max_backlog, stream.max_backlog)
                return stream

            async def produce() -> None:
                for event in events(turn, output):
                    stream.push(event)
                    if event.type == "done":
                        break
                    await asyncio.sleep(0)
                stream.end(output)
                self.max_backlog = max(self.max_backlog, stream.max_backlog)

            stream.attach_task(asyncio.get_running_loop().create_task(produce()))
            return stream

        def serialize(m: Any, context: Any) -> str:
            from pi_lsp.agent import messages_adapter

            parts = [
                '{"model":', m.model_dump_json(by_alias=True, exclude_none=True),
                ',"system":', json.dumps(context.system_prompt),
                ',"messages":', messages_adapter.dump_json(
                    context.messages, by_alias=True, exclude_none=True).decode(),
                ',"tools":', json.dumps([t.to_wire() for t in context.tools or []],
                                        separators=(",", ":")),
                "}",
            ]  # fmt: skip
            return "".join(parts)

        del model
        self.stream_fn = stream_fn
        self.sink = Sink()


class Sink:
    """Counts events (per type, updates per stream event type), stamps turns, samples RSS."""

    def __init__(self) -> None:
        self.events = 0
        self.by_type: dict[str, int] = {}
        self.updates: dict[str, int] = {}
        self.text_deltas = 0
        self.turn_starts: list[float] = []
        self.turn_ends: list[float] = []
        self.rss_max = 0.0

    async def __call__(self, event: Any, signal: Any = None) -> None:
        self.events += 1
        kind = event.type
        by_type = self.by_type
        by_type[kind] = by_type.get(kind, 0) + 1
        if kind == "message_update":
            sub = event.assistant_message_event.type
            self.updates[sub] = self.updates.get(sub, 0) + 1
            if sub == "text_delta":
                self.text_deltas += 1
        elif kind == "turn_start":
            self.turn_starts.append(time.perf_counter())
        elif kind == "turn_end":
            self.turn_ends.append(time.perf_counter())
        if self.events % 256 == 0:
            self.rss_max = max(self.rss_max, rss_mb())


async def run_once(
    params: dict[str, Any], api: str, producer: str
) -> tuple[Workload, list[Any], float, float]:
    from pi_lsp.agent import (
        Agent,
        AgentContext,
        AgentLoopConfig,
        convert_to_llm_default,
        run_agent_loop,
    )
    from pi_lsp.ai import TextContent, UserMessage

    work = Workload(params, producer)
    prompt = UserMessage(content=[TextContent(text="go")])

    async def transform_context(messages: list[Any], signal: Any) -> list[Any]:
        return messages

    if api == "loop":
        context = AgentContext(SYSTEM_PROMPT, [], [work.tool])
        config = AgentLoopConfig(
            model=work.model,
            convert_to_llm=convert_to_llm_default,
            transform_context=transform_context,
            tool_execution="parallel",
        )
        cpu0, wall0 = time.process_time(), time.perf_counter()
        messages = await run_agent_loop([prompt], context, config, work.sink, None, work.stream_fn)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    else:
        agent = Agent(
            system_prompt=SYSTEM_PROMPT,
            model=work.model,
            tools=[work.tool],
            convert_to_llm=convert_to_llm_default,
            transform_context=transform_context,
            stream_fn=work.stream_fn,
            tool_execution="parallel",
        )
        agent.subscribe(work.sink)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        await agent.prompt(prompt)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        messages = agent.state.messages
    return work, messages, wall, cpu


def expected_counts(
    params: dict[str, Any], work: Workload
) -> tuple[dict[str, int], dict[str, int]]:
    """Event counts the contract's formulas give for this run."""
    llm = params["tool_turns"] + 1
    tools = params["tool_turns"] * params["tool_calls_per_turn"]
    deltas = params["deltas_per_turn"]
    updates: dict[str, int] = {}
    if deltas > 0:
        updates.update(text_start=llm, text_delta=llm * deltas, text_end=llm)
    if tools:
        updates.update(
            toolcall_start=tools, toolcall_delta=sum(work.arg_chunks), toolcall_end=tools
        )
    by_type = {
        "agent_start": 1, "agent_end": 1, "turn_start": llm, "turn_end": llm,
        "message_start": 1 + llm + tools, "message_end": 1 + llm + tools,
        "message_update": sum(updates.values()),
    }  # fmt: skip
    if tools:
        by_type.update(tool_execution_start=tools, tool_execution_end=tools)
    return by_type, updates


def text_chars(messages: list[Any]) -> int:
    total = 0
    for m in messages:
        content = getattr(m, "content", None)
        if isinstance(content, str):
            total += len(content)
        elif content:
            total += sum(len(b.text) for b in content if getattr(b, "type", None) == "text")
    return total


async def main_async(args: argparse.Namespace, params: dict[str, Any], import_s: float) -> int:
    for _ in range(args.warmup):
        await run_once(params, args.api, args.producer)
    baseline = rss_mb()
    work, messages, wall, cpu = await run_once(params, args.api, args.producer)
    sink = work.sink
    llm, tools = work.llm_calls, params["tool_turns"] * params["tool_calls_per_turn"]

    want_types, want_updates = expected_counts(params, work)
    problems = []
    if llm != params["tool_turns"] + 1:
        problems.append(f"llm_calls {llm} != {params['tool_turns'] + 1}")
    if len(messages) != 1 + llm + tools:
        problems.append(f"messages {len(messages)} != {1 + llm + tools}")
    if sink.by_type != want_types:
        problems.append(f"events_by_type {sink.by_type} != {want_types}")
    if sink.updates != want_updates:
        problems.append(f"updates_by_type {sink.updates} != {want_updates}")
    if sink.events != 2 + 2 * llm + 2 * (1 + llm + tools) + 2 * tools + sum(want_updates.values()):
        problems.append(f"events {sink.events} differ from the contract's formula")
    if problems:
        print(
            "loop_bench: event counts differ from the contract's formulas:\n  "
            + "\n  ".join(problems),
            file=sys.stderr,
        )
        return 1

    durations = [
        (end - start) * 1e6 for start, end in zip(sink.turn_starts, sink.turn_ends, strict=True)
    ]
    n = max(1, min(20, len(durations) // 2))
    scripted = params["tool_turns"] * params["tool_sleep_ms"] / 1000
    measured = sum(end - start for start, end in work.sleeps.values())
    sink.rss_max = max(sink.rss_max, rss_mb())
    from pi_lsp.runtime.event_loop import loop_name

    version = metadata.version("pi-lsp")
    result = {
        "schema": "pi-loop-bench/1",
        "impl": "pi-py",
        "impl_version": f"pi-lsp@{version} (pi_lsp.agent)",
        "llm_version": f"pi-lsp@{version} (pi_lsp.ai)",
        "runtime": f"cpython {platform.python_version()}"
        + (" + uvloop" if loop_name(asyncio.get_running_loop()) == "uvloop" else ""),
        "api": args.api,
        "producer": args.producer,
        "workload": args.workload,
        "params": params,
        "warmup": args.warmup,
        "llm_calls": llm,
        "tool_calls": tools,
        "messages": len(messages),
        "events": sink.events,
        "text_deltas": sink.text_deltas,
        "wall_s": wall,
        "cpu_s": cpu,
        "events_per_s": sink.events / wall,
        "deltas_per_s": sink.text_deltas / wall,
        "scripted_sleep_s": scripted,
        "per_turn_overhead_us": (wall - scripted) / llm * 1e6,
        "measured_sleep_s": measured,
        "per_turn_overhead_measured_us": (wall - measured) / llm * 1e6,
        "per_event_us": (wall - scripted) / sink.events * 1e6,
        "parallel_speedup": (
            tools * params["tool_sleep_ms"] / 1000 / wall if params["tool_sleep_ms"] > 0 else None
        ),
        "turn_us_p50": statistics.median(durations),
        "turn_us_first20": statistics.fmean(durations[:n]),
        "turn_us_last20": statistics.fmean(durations[-n:]),
        "context_text_chars": text_chars(messages),
        "serialized_chars": work.serialized_chars,
        "max_backlog": work.max_backlog,
        "import_s": import_s,
        "rss_baseline_mb": baseline,
        "rss_sampled_max_mb": sink.rss_max,
        "rss_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "loadavg_1m": os.getloadavg()[0],
        "events_by_type": sink.by_type,
        "updates_by_type": sink.updates,
        "text_accumulation": "pi_lsp.ai.grow.append_to_field (as pi_lsp's providers do; "
        "amortised O(len(delta)) per append)",
        "event_loop": loop_name(asyncio.get_running_loop()),
        "event_loop_choice": args.event_loop,
    }
    print(json.dumps(result))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    params = dict(WORKLOADS[args.workload])
    for flag, key in OVERRIDES.items():
        value = getattr(args, flag)
        if value is not None:
            params[key] = value
    start = time.perf_counter()
    import pi_lsp.agent
    import pi_lsp.ai

    import_s = time.perf_counter() - start
    del pi_lsp
    from pi_lsp.runtime import event_loop

    factory: Callable[[], asyncio.AbstractEventLoop] | None
    if args.event_loop == "uvloop":
        try:
            import uvloop
        except ImportError:
            print("loop_bench: --event-loop uvloop needs the uvloop package", file=sys.stderr)
            return 2
        factory = uvloop.new_event_loop
    elif args.event_loop == "asyncio":
        factory = None
    else:
        factory = event_loop.loop_factory()  # what the server and pi-lsp run use
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main_async(args, params, import_s))


if __name__ == "__main__":
    sys.exit(main())
