"""docs/reference/pi.md#checklist items 29–35: how a batch of tool calls is scheduled (0.80.2)."""

from __future__ import annotations

import asyncio
from typing import Any

from pi_lsp.agent import AgentToolResult, BeforeToolCallResult, run_agent_loop
from pi_lsp.ai import AbortSignal
from pi_lsp.ai.providers.faux import FauxProvider, FauxResponse

from .helpers import Recorder, config, context, echo_tool, fn_tool, ok, user


def _three(name: str = "t") -> FauxResponse:
    return FauxResponse.tool_calls((name, {"key": "1"}), (name, {"key": "2"}), (name, {"key": "3"}))


async def test_item_29_every_before_hook_runs_before_any_execute() -> None:
    timeline: list[str] = []

    async def tool(call_id: str, params: Any, *_: Any) -> AgentToolResult:
        timeline.append(f"execute {params.key}")
        return ok(params.key)

    async def before(ctx: Any, signal: Any) -> None:
        timeline.append(f"before {ctx.args.key}")

    faux = FauxProvider([_three(), FauxResponse.text("done")])
    await run_agent_loop(
        [user("u")],
        context(fn_tool("t", tool)),
        config(before_tool_call=before),
        Recorder(),
        stream_fn=faux.stream,
    )
    assert timeline[:3] == ["before 1", "before 2", "before 3"]
    assert sorted(timeline[3:]) == ["execute 1", "execute 2", "execute 3"]


async def test_item_30_end_in_completion_order_results_in_source_order() -> None:
    rec = Recorder()
    gates = {k: asyncio.Event() for k in "123"}

    async def tool(call_id: str, params: Any, *_: Any) -> AgentToolResult:
        await gates[params.key].wait()
        nxt = {"3": "2", "2": "1"}.get(params.key)
        if nxt:
            gates[nxt].set()
        return ok(params.key)

    async def release(*_: Any) -> None:
        gates["3"].set()

    faux = FauxProvider([_three(), FauxResponse.text("done")])
    tools = context(fn_tool("t", tool))
    cfg = config(before_tool_call=None)
    task = asyncio.ensure_future(
        run_agent_loop([user("u")], tools, cfg, rec, stream_fn=faux.stream)
    )
    await rec.on(lambda e: e.type == "tool_execution_start").wait()
    await release()
    await task
    ends = [e.result.content[0].text for e in rec.of("tool_execution_end")]
    assert ends == ["3", "2", "1"]
    results = [m.content[0].text for m in rec.ended_messages() if m.role == "toolResult"]
    assert results == ["1", "2", "3"]
    assert [r.content[0].text for r in rec.of("turn_end")[0].tool_results] == ["1", "2", "3"]
    # every end precedes every result message
    labels = rec.labels()
    last_end = max(i for i, x in enumerate(labels) if x.startswith("tool_execution_end"))
    first_result = labels.index("message_start(toolResult)")
    assert last_end < first_result


async def test_item_31_immediate_errors_end_during_preparation() -> None:
    rec = Recorder()
    started = asyncio.Event()
    release = asyncio.Event()

    async def good(*_: Any) -> AgentToolResult:
        started.set()
        await release.wait()
        return ok("good")

    def before(ctx: Any, signal: Any) -> BeforeToolCallResult | None:
        return BeforeToolCallResult(block=True) if ctx.tool_call.name == "blocked" else None

    faux = FauxProvider([
        FauxResponse.tool_calls(("good", {}), ("ghost", {}), ("echo", {"n": "many"}),
                                ("blocked", {})),
        FauxResponse.text("done"),
    ])  # fmt: skip
    tools = context(fn_tool("good", good), echo_tool(), fn_tool("blocked", good))
    task = asyncio.ensure_future(
        run_agent_loop(
            [user("u")], tools, config(before_tool_call=before), rec, stream_fn=faux.stream
        )
    )
    await started.wait()
    # "good" is executing; the three immediate errors already ended, in call order
    labels = [x for x in rec.labels() if x.startswith("tool_execution")]
    assert labels == [
        "tool_execution_start(good)",
        "tool_execution_start(ghost)", "tool_execution_end(ghost)",
        "tool_execution_start(echo)", "tool_execution_end(echo)",
        "tool_execution_start(blocked)", "tool_execution_end(blocked)",
    ]  # fmt: skip
    release.set()
    await task
    assert [e.is_error for e in rec.of("tool_execution_end")] == [True, True, True, False]


async def test_item_32_one_sequential_tool_makes_the_batch_sequential() -> None:
    rec = Recorder()
    faux = FauxProvider([
        FauxResponse.tool_calls(("echo", {"text": "a"}), ("seq", {"text": "b"}),
                                ("echo", {"text": "c"})),
        FauxResponse.text("done"),
    ])  # fmt: skip
    tools = context(echo_tool(), echo_tool("seq", mode="sequential"))
    await run_agent_loop([user("u")], tools, config(), rec, stream_fn=faux.stream)
    tool_labels = [x for x in rec.labels() if "tool" in x]
    assert tool_labels == [
        "tool_execution_start(echo)", "tool_execution_end(echo)",
        "message_start(toolResult)", "message_end(toolResult)",
        "tool_execution_start(seq)", "tool_execution_end(seq)",
        "message_start(toolResult)", "message_end(toolResult)",
        "tool_execution_start(echo)", "tool_execution_end(echo)",
        "message_start(toolResult)", "message_end(toolResult)",
    ]  # fmt: skip

    # an unknown tool has no mode and does not veto parallel execution
    rec2 = Recorder()
    faux2 = FauxProvider([
        FauxResponse.tool_calls(("echo", {"text": "a"}), ("ghost", {}), ("echo", {"text": "c"})),
        FauxResponse.text("done"),
    ])  # fmt: skip
    await run_agent_loop([user("u")], context(echo_tool()), config(), rec2, stream_fn=faux2.stream)
    assert [x for x in rec2.labels() if "tool" in x][:4] == [
        "tool_execution_start(echo)", "tool_execution_start(ghost)",
        "tool_execution_end(ghost)", "tool_execution_start(echo)",
    ]  # fmt: skip


async def test_item_33_global_sequential_start_end_result_per_tool() -> None:
    rec = Recorder()
    faux = FauxProvider([_three("echo"), FauxResponse.text("done")])
    await run_agent_loop(
        [user("u")],
        context(echo_tool()),
        config(tool_execution="sequential"),
        rec,
        stream_fn=faux.stream,
    )
    tool_labels = [x for x in rec.labels() if "tool" in x]
    assert (
        tool_labels
        == [
            "tool_execution_start(echo)",
            "tool_execution_end(echo)",
            "message_start(toolResult)",
            "message_end(toolResult)",
        ]
        * 3
    )


async def test_item_34_abort_mid_batch_starts_no_more_tools() -> None:
    # sequential: the first tool aborts; the rest get no events and no results
    signal = AbortSignal()
    executed: list[str] = []

    async def aborting(call_id: str, params: Any, sig: Any, _: Any) -> AgentToolResult:
        executed.append(params.key)
        signal.abort()
        return ok(params.key)

    rec = Recorder()
    faux = FauxProvider([_three(), FauxResponse.text("never")])
    out = await run_agent_loop(
        [user("u")],
        context(fn_tool("t", aborting)),
        config(tool_execution="sequential"),
        rec,
        signal,
        faux.stream,
    )
    assert executed == ["1"]
    assert rec.types.count("tool_execution_start") == 1
    assert len(rec.of("turn_end")[0].tool_results) == 1
    # the next request sees the aborted signal: a hard stop
    assert out[-1].role == "assistant"
    assert out[-1].stop_reason == "aborted"
    assert rec.types[-2:] == ["turn_end", "agent_end"]

    # parallel: abort during preparation of call 2 -> call 2 "Operation aborted", call 3 nothing
    signal2 = AbortSignal()
    executed.clear()

    async def record(call_id: str, params: Any, sig: Any, _: Any) -> AgentToolResult:
        executed.append(params.key)
        return ok(params.key)

    def before(ctx: Any, sig: Any) -> None:
        if ctx.args.key == "2":
            signal2.abort()

    rec2 = Recorder()
    faux2 = FauxProvider([_three(), FauxResponse.text("never")])
    await run_agent_loop(
        [user("u")],
        context(fn_tool("t", record)),
        config(before_tool_call=before),
        rec2,
        signal2,
        faux2.stream,
    )
    assert rec2.types.count("tool_execution_start") == 2
    results = rec2.of("turn_end")[0].tool_results
    assert [r.content[0].text for r in results] == ["1", "Operation aborted"]
    assert executed == ["1"]  # the already prepared call still runs


async def test_item_35_updates_before_end_and_none_after_settling() -> None:
    rec = Recorder()
    saved: list[Any] = []

    async def streaming(call_id: str, params: Any, sig: Any, on_update: Any) -> AgentToolResult:
        on_update(ok("one"))  # not awaited: still delivered, in order
        await on_update(ok("two"))
        on_update(ok("three"))
        saved.append(on_update)
        return ok("final")

    faux = FauxProvider([FauxResponse.tool_calls(("s", {})), FauxResponse.text("done")])
    await run_agent_loop(
        [user("u")], context(fn_tool("s", streaming)), config(), rec, stream_fn=faux.stream
    )
    await saved[0](ok("late"))  # after the tool settled: ignored
    tool_labels = [x for x in rec.labels() if x.startswith("tool_execution")]
    assert tool_labels == ["tool_execution_start(s)"] + ["tool_execution_update(s)"] * 3 + [
        "tool_execution_end(s)"
    ]
    texts = [e.partial_result.content[0].text for e in rec.of("tool_execution_update")]
    assert texts == ["one", "two", "three"]
    update = rec.of("tool_execution_update")[0]
    assert update.args == {}  # the raw arguments, as in the start event
