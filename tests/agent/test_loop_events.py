"""docs/reference/pi.md#checklist items 1–9 (events and sequencing) and the reference traces A–F
(docs/reference/pi.md#reference-traces)."""

from __future__ import annotations

import asyncio
from typing import Any

from pi_lsp.agent import (
    Agent,
    AgentToolResult,
    agent_loop,
    agent_loop_continue,
    run_agent_loop,
    run_agent_loop_continue,
)
from pi_lsp.ai import (
    AbortSignal,
    AssistantMessage,
    DoneEvent,
    StartEvent,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingContent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from pi_lsp.ai.providers.faux import FAUX_MODEL, FauxProvider, FauxResponse

from .helpers import (
    Recorder,
    ScriptedStream,
    config,
    context,
    echo_tool,
    fn_tool,
    ok,
    squash_updates,
    user,
)

# ------------------------------------------------------------------------ reference traces


async def test_trace_a_one_prompt_no_tools() -> None:
    rec = Recorder()
    prompt = user("hi")
    faux = FauxProvider([FauxResponse.text("hello there")])
    out = await run_agent_loop([prompt], context(), config(), rec, stream_fn=faux.stream)
    assert squash_updates(rec.labels(updates=True)) == [
        "agent_start", "turn_start",
        "message_start(user)", "message_end(user)",
        "message_start(assistant)", "message_update*", "message_end(assistant)",
        "turn_end(0)", "agent_end",
    ]  # fmt: skip
    assistant = rec.of("message_end")[1].message
    assert rec.of("turn_end")[0].message is assistant
    assert rec.of("turn_end")[0].tool_results == []
    assert rec.of("agent_end")[0].messages == [prompt, assistant]
    assert out == [prompt, assistant]


async def test_trace_b_one_tool_then_final_reply() -> None:
    async def read(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        await on_update(ok("partial"))
        return ok("file body")

    rec = Recorder()
    prompt = user("read it")
    faux = FauxProvider([FauxResponse.tool_calls(("read", {"key": "a"})), FauxResponse.text("ok")])
    await run_agent_loop(
        [prompt], context(fn_tool("read", read)), config(), rec, stream_fn=faux.stream
    )
    assert squash_updates(rec.labels(updates=True)) == [
        "agent_start", "turn_start",
        "message_start(user)", "message_end(user)",
        "message_start(assistant)", "message_update*", "message_end(assistant)",
        "tool_execution_start(read)", "tool_execution_update(read)", "tool_execution_end(read)",
        "message_start(toolResult)", "message_end(toolResult)",
        "turn_end(1)",
        "turn_start",
        "message_start(assistant)", "message_update*", "message_end(assistant)",
        "turn_end(0)", "agent_end",
    ]  # fmt: skip
    user_m, a1, tr1, a2 = rec.ended_messages()
    turn_ends = rec.of("turn_end")
    assert turn_ends[0].message is a1
    assert turn_ends[0].tool_results == [tr1]
    assert turn_ends[1].message is a2
    assert turn_ends[1].tool_results == []
    assert rec.of("agent_end")[0].messages == [user_m, a1, tr1, a2]


async def test_trace_c_parallel_completion_order_and_immediate_error() -> None:
    rec = Recorder()
    b_ended = rec.on(lambda e: e.type == "tool_execution_end" and e.tool_name == "B")

    async def slow(*_: Any) -> AgentToolResult:
        await b_ended.wait()  # A finishes only after B's end event was emitted
        return ok("a")

    async def fast(*_: Any) -> AgentToolResult:
        return ok("b")

    tools = (fn_tool("A", slow), fn_tool("B", fast))
    faux = FauxProvider([FauxResponse.tool_calls(("A", {}), ("B", {})), FauxResponse.text("x")])
    await run_agent_loop([user("go")], context(*tools), config(), rec, stream_fn=faux.stream)
    labels = rec.labels()
    start = labels.index("tool_execution_start(A)")
    assert labels[start : start + 8] == [
        "tool_execution_start(A)", "tool_execution_start(B)",
        "tool_execution_end(B)", "tool_execution_end(A)",
        "message_start(toolResult)", "message_end(toolResult)",
        "message_start(toolResult)", "message_end(toolResult)",
    ]  # fmt: skip
    results = rec.of("turn_end")[0].tool_results
    assert [r.tool_name for r in results] == ["A", "B"]

    # With A unknown: its end comes during preparation, before B even starts.
    rec2 = Recorder()
    faux2 = FauxProvider([FauxResponse.tool_calls(("A", {}), ("B", {})), FauxResponse.text("x")])
    await run_agent_loop(
        [user("go")], context(fn_tool("B", fast)), config(), rec2, stream_fn=faux2.stream
    )
    labels = rec2.labels()
    start = labels.index("tool_execution_start(A)")
    assert labels[start : start + 8] == [
        "tool_execution_start(A)", "tool_execution_end(A)",
        "tool_execution_start(B)", "tool_execution_end(B)",
        "message_start(toolResult)", "message_end(toolResult)",
        "message_start(toolResult)", "message_end(toolResult)",
    ]  # fmt: skip
    end_a = rec2.of("tool_execution_end")[0]
    assert end_a.is_error
    assert end_a.result.content[0].text == "Tool A not found"
    assert [r.tool_name for r in rec2.of("turn_end")[0].tool_results] == ["A", "B"]


async def test_trace_d_provider_error_on_first_call() -> None:
    rec = Recorder()
    follow_up_polls = 0

    def follow_ups() -> list[Any]:
        nonlocal follow_up_polls
        follow_up_polls += 1
        return [user("queued")]

    faux = FauxProvider([FauxResponse.error("500 boom")])
    prompt = user("u")
    await run_agent_loop(
        [prompt], context(), config(get_follow_up_messages=follow_ups), rec, stream_fn=faux.stream
    )
    assert rec.labels(updates=True) == [
        "agent_start", "turn_start",
        "message_start(user)", "message_end(user)",
        "message_start(assistant)", "message_end(assistant)",
        "turn_end(0)", "agent_end",
    ]  # fmt: skip
    error = rec.of("message_end")[1].message
    assert error.stop_reason == "error"
    assert error.error_message == "500 boom"
    assert rec.of("agent_end")[0].messages == [prompt, error]
    assert follow_up_polls == 0


async def test_trace_e_steering_queued_while_tools_run() -> None:
    agent: Agent

    async def work(*_: Any) -> AgentToolResult:
        agent.steer("also check the tests")
        return ok("done")

    faux = FauxProvider([FauxResponse.tool_calls(("work", {})), FauxResponse.text("fine")])
    agent = Agent(model=FAUX_MODEL, tools=[fn_tool("work", work)], stream_fn=faux.stream)
    rec = Recorder()
    agent.subscribe(rec.listener)
    await agent.prompt("go")
    labels = rec.labels()
    first_end = labels.index("turn_end(1)")
    assert labels[first_end + 1 : first_end + 5] == [
        "turn_start", "message_start(user)", "message_end(user)", "message_start(assistant)",
    ]  # fmt: skip
    steer = rec.of("message_end")[3].message
    assert steer.content[0].text == "also check the tests"
    assert steer in faux.calls[1].messages  # injected before the second model call


async def test_trace_f_follow_up_after_the_model_stops() -> None:
    agent: Agent

    def answer(ctx: Any, opts: Any) -> FauxResponse:
        agent.follow_up("and then this")
        return FauxResponse.text("first answer")

    faux = FauxProvider([answer, FauxResponse.text("second answer")])
    agent = Agent(model=FAUX_MODEL, stream_fn=faux.stream)
    rec = Recorder()
    agent.subscribe(rec.listener)
    await agent.prompt("go")
    assert rec.labels() == [
        "agent_start", "turn_start",
        "message_start(user)", "message_end(user)",
        "message_start(assistant)", "message_end(assistant)", "turn_end(0)",
        "turn_start", "message_start(user)", "message_end(user)",
        "message_start(assistant)", "message_end(assistant)", "turn_end(0)",
        "agent_end",
    ]  # fmt: skip
    assert rec.types.count("agent_start") == 1


# ------------------------------------------------------------------------------ items 1–9


async def test_item_01_agent_start_and_turn_start_before_prompts() -> None:
    rec = Recorder()
    faux = FauxProvider([FauxResponse.text("a")])
    await run_agent_loop([user("1"), user("2")], context(), config(), rec, stream_fn=faux.stream)
    assert rec.labels()[:6] == [
        "agent_start", "turn_start",
        "message_start(user)", "message_end(user)", "message_start(user)", "message_end(user)",
    ]  # fmt: skip


async def test_item_02_one_turn_start_per_turn_including_follow_ups() -> None:
    follow = [[user("f")], []]
    rec = Recorder()
    faux = FauxProvider([
        FauxResponse.tool_calls(("echo", {"text": "x"})), FauxResponse.text("a"),
        FauxResponse.text("b"),
    ])  # fmt: skip
    await run_agent_loop(
        [user("go")],
        context(echo_tool()),
        config(get_follow_up_messages=lambda: follow.pop(0)),
        rec,
        stream_fn=faux.stream,
    )
    assert rec.types.count("turn_start") == 3 == rec.types.count("turn_end")
    assert rec.types[:2] == ["agent_start", "turn_start"]
    # each turn_start opens a turn: it is followed by a turn_end before the next turn_start
    opened = 0
    for kind in rec.types:
        if kind == "turn_start":
            assert opened == 0
            opened = 1
        elif kind == "turn_end":
            assert opened == 1
            opened = 0


async def test_item_03_agent_end_messages_prompt_and_continue_runs() -> None:
    rec = Recorder()
    prompt = user("go")
    old = [user("old"), AssistantMessage(content=[TextContent(text="old reply")])]
    faux = FauxProvider([FauxResponse.text("a"), FauxResponse.text("b")])
    out = await run_agent_loop(
        [prompt], context(messages=old), config(), rec, stream_fn=faux.stream
    )
    assert rec.of("agent_end")[0].messages[0] is prompt
    assert out[0] is prompt
    assert len(out) == 2

    rec2 = Recorder()
    history = [user("q"), AssistantMessage(content=[TextContent(text="r")]), user("again")]
    out2 = await run_agent_loop_continue(
        context(messages=history), config(), rec2, stream_fn=faux.stream
    )
    ended = rec2.of("agent_end")[0].messages
    assert ended == out2
    assert len(ended) == 1
    assert ended[0].role == "assistant"
    assert rec2.labels()[:3] == ["agent_start", "turn_start", "message_start(assistant)"]


async def test_item_04_message_start_is_a_copy_of_the_partial() -> None:
    partials: list[AssistantMessage] = []

    def script(p: AssistantMessage) -> list[Any]:
        partials.append(p)
        p.content.append(TextContent(text=""))
        return [StartEvent(p), TextStartEvent(0, p)]

    stream = ScriptedStream(script)
    rec = Recorder()

    def mutate(event: Any) -> None:
        if event.type == "message_update":  # the provider keeps mutating its partial
            partials[0].stop_reason = "length"
            partials[0].response_id = "changed"

    rec.hooks.append(mutate)
    await run_agent_loop([user("u")], context(), config(), rec, stream_fn=stream)
    started = rec.of("message_start")[1].message
    update = rec.of("message_update")[0].message
    assert started is not partials[0]
    assert update is not partials[0]
    assert started.stop_reason == "stop"
    assert started.response_id is None
    assert update.stop_reason == "stop"


async def test_item_05_message_update_for_each_content_event_after_start() -> None:
    def script(p: AssistantMessage) -> list[Any]:
        early = TextDeltaEvent(0, "ignored: before start", p)
        events: list[Any] = [early, StartEvent(p)]
        p.content.append(ThinkingContent(thinking="hm"))
        events += [
            ThinkingStartEvent(0, p),
            ThinkingDeltaEvent(0, "hm", p),
            ThinkingEndEvent(0, "hm", p),
        ]
        p.content.append(TextContent(text="hi"))
        events += [TextStartEvent(1, p), TextDeltaEvent(1, "hi", p), TextEndEvent(1, "hi", p)]
        call = ToolCall(id="c1", name="nope", arguments={})
        p.content.append(call)
        events += [
            ToolCallStartEvent(2, p),
            ToolCallDeltaEvent(2, "{}", p),
            ToolCallEndEvent(2, call, p),
        ]
        p.stop_reason = "toolUse"
        return [*events, DoneEvent("toolUse", p)]

    stream = ScriptedStream(script, lambda p: [StartEvent(p), DoneEvent("stop", p)])
    rec = Recorder()
    await run_agent_loop([user("u")], context(), config(), rec, stream_fn=stream)
    updates = rec.of("message_update")
    assert [u.assistant_message_event.type for u in updates] == [
        "thinking_start", "thinking_delta", "thinking_end",
        "text_start", "text_delta", "text_end",
        "toolcall_start", "toolcall_delta", "toolcall_end",
    ]  # fmt: skip
    assert all(u.message.role == "assistant" for u in updates)
    # no update for the user prompt or the tool result
    idx = rec.labels(updates=True)
    assert "message_update(user)" not in idx
    assert "message_update(toolResult)" not in idx


async def test_item_06_error_before_start_gives_one_start_and_one_end() -> None:
    rec = Recorder()
    faux = FauxProvider([FauxResponse.error("401 bad key", before_start=True)])
    await run_agent_loop([user("u")], context(), config(), rec, stream_fn=faux.stream)
    assistant_labels = [x for x in rec.labels(updates=True) if "assistant" in x]
    assert assistant_labels == ["message_start(assistant)", "message_end(assistant)"]
    start, end = rec.of("message_start")[1].message, rec.of("message_end")[1].message
    assert start is not end
    assert start.error_message == end.error_message == "401 bad key"


async def test_item_07_tool_result_messages_follow_end() -> None:
    rec = Recorder()
    faux = FauxProvider([
        FauxResponse.tool_calls(("echo", {"text": "a"}), ("echo", {"text": "b"})),
        FauxResponse.text("done"),
    ])  # fmt: skip
    await run_agent_loop(
        [user("u")],
        context(echo_tool()),
        config(tool_execution="sequential"),
        rec,
        stream_fn=faux.stream,
    )
    for end in rec.of("tool_execution_end"):
        i_end = rec.events.index(end)
        starts = [
            i
            for i, e in enumerate(rec.events)
            if e.type == "message_start"
            and e.message.role == "toolResult"
            and e.message.tool_call_id == end.tool_call_id
        ]
        ends = [
            i
            for i, e in enumerate(rec.events)
            if e.type == "message_end"
            and e.message.role == "toolResult"
            and e.message.tool_call_id == end.tool_call_id
        ]
        assert len(starts) == 1
        assert len(ends) == 1
        assert i_end < starts[0] < ends[0]


async def test_item_08_turn_end_carries_message_and_results_in_source_order() -> None:
    rec = Recorder()
    gate = asyncio.Event()

    async def first(*_: Any) -> AgentToolResult:
        await gate.wait()
        return ok("1")

    async def second(*_: Any) -> AgentToolResult:
        gate.set()
        return ok("2")

    faux = FauxProvider(
        [FauxResponse.tool_calls(("first", {}), ("second", {})), FauxResponse.text("done")]
    )
    await run_agent_loop(
        [user("u")],
        context(fn_tool("first", first), fn_tool("second", second)),
        config(),
        rec,
        stream_fn=faux.stream,
    )
    turn_end = rec.of("turn_end")[0]
    assert turn_end.message is rec.of("message_end")[1].message
    assert [r.tool_name for r in turn_end.tool_results] == ["first", "second"]
    assert [e.tool_name for e in rec.of("tool_execution_end")] == ["second", "first"]


async def test_item_09_agent_end_last_and_event_stream_result() -> None:
    faux = FauxProvider(
        [FauxResponse.tool_calls(("echo", {"text": "a"})), FauxResponse.text("done")]
    )
    stream = agent_loop([user("u")], context(echo_tool()), config(), stream_fn=faux.stream)
    events = [event async for event in stream]
    assert events[-1].type == "agent_end"
    assert [e.type for e in events].count("agent_end") == 1
    assert await stream.result() == events[-1].messages
    assert len(events[-1].messages) == 4

    history = [user("q")]
    faux2 = FauxProvider([FauxResponse.text("r")])
    cont = agent_loop_continue(context(messages=history), config(), stream_fn=faux2.stream)
    kinds = [e.type async for e in cont]
    assert kinds[-1] == "agent_end"
    assert [m.role for m in await cont.result()] == ["assistant"]


async def test_event_stream_continue_rejects_at_once() -> None:
    import pytest

    with pytest.raises(ValueError, match="no messages in context"):
        agent_loop_continue(context(), config())
    with pytest.raises(ValueError, match="message role: assistant"):
        agent_loop_continue(context(messages=[AssistantMessage()]), config())


async def test_abort_signal_reaches_the_provider_options() -> None:
    signal = AbortSignal()
    faux = FauxProvider([FauxResponse.text("a")])
    await run_agent_loop([user("u")], context(), config(), Recorder(), signal, faux.stream)
    assert faux.options[0].signal is signal
