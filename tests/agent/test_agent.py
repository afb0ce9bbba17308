"""docs/reference/pi.md#checklist items 45–55 (the Agent class) and the rest of the contract in
docs/agent-loop.md#the-agent."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from pi_lsp.agent import (
    DEFAULT_MODEL,
    Agent,
    AgentBusyError,
    AgentLoopTurnUpdate,
    AgentToolResult,
    PendingMessageQueue,
)
from pi_lsp.ai import AbortSignal, AssistantMessage, ImageContent, Model, StreamOptions, TextContent
from pi_lsp.ai.providers.faux import FAUX_MODEL, FauxProvider, FauxResponse

from .helpers import Recorder, echo_tool, fn_tool, text_of, user


def _agent(faux: FauxProvider, **kw: Any) -> tuple[Agent, Recorder]:
    agent = Agent(model=FAUX_MODEL, stream_fn=faux.stream, **kw)
    rec = Recorder()
    agent.subscribe(rec.listener)
    return agent, rec


def _gated(gate: asyncio.Event, response: FauxResponse) -> Any:
    async def factory(ctx: Any, opts: Any) -> FauxResponse:
        await gate.wait()
        return response

    return factory


async def test_item_45_prompt_during_a_run_raises_busy() -> None:
    gate = asyncio.Event()
    agent, _ = _agent(FauxProvider([_gated(gate, FauxResponse.text("a"))]))
    task = agent.prompt("first")
    assert agent.is_running
    assert agent.state.is_streaming
    with pytest.raises(AgentBusyError) as info:
        agent.prompt("second")
    assert str(info.value) == (
        "Agent is already processing a prompt. Use steer() or followUp() to queue messages, "
        "or wait for completion."
    )
    with pytest.raises(AgentBusyError) as info2:
        agent.continue_()
    assert str(info2.value) == "Agent is already processing. Wait for completion before continuing."
    gate.set()
    await task
    assert not agent.is_running


async def test_item_46_one_at_a_time_steering_delivers_one_per_drain() -> None:
    agent: Agent

    def first(ctx: Any, opts: Any) -> FauxResponse:
        for i in range(3):
            agent.steer(f"s{i}")
        return FauxResponse.text("a")

    faux = FauxProvider(
        [first, FauxResponse.text("b"), FauxResponse.text("c"), FauxResponse.text("d")]
    )
    agent, rec = _agent(faux)
    await agent.prompt("go")
    users_per_request = [[text_of(m) for m in c.messages if m.role == "user"] for c in faux.calls]
    assert users_per_request == [["go"], ["go", "s0"], ["go", "s0", "s1"], ["go", "s0", "s1", "s2"]]
    assert rec.types.count("turn_start") == 4


async def test_item_47_all_mode_delivers_everything_at_the_next_drain() -> None:
    agent: Agent

    def first(ctx: Any, opts: Any) -> FauxResponse:
        for i in range(3):
            agent.steer(f"s{i}")
            agent.follow_up(f"f{i}")
        return FauxResponse.text("a")

    faux = FauxProvider([first, FauxResponse.text("b"), FauxResponse.text("c")])
    agent, rec = _agent(faux, steering_mode="all", follow_up_mode="all")
    await agent.prompt("go")
    assert [text_of(m) for m in faux.calls[1].messages if m.role == "user"] == [
        "go",
        "s0",
        "s1",
        "s2",
    ]
    assert [text_of(m) for m in faux.calls[2].messages if m.role == "user"][-3:] == [
        "f0",
        "f1",
        "f2",
    ]
    assert rec.types.count("turn_start") == 3


async def test_item_48_continue_runs_queued_steering_as_the_prompt() -> None:
    faux = FauxProvider([FauxResponse.text("a"), FauxResponse.text("b"), FauxResponse.text("c")])
    agent, rec = _agent(faux)
    await agent.prompt("go")
    agent.steer("one")
    agent.steer("two")
    rec.events.clear()
    await agent.continue_()
    labels = rec.labels()
    # "one" is the prompt; "two" is NOT injected in the first turn (initial poll skipped)
    assert labels[:6] == [
        "agent_start",
        "turn_start",
        "message_start(user)",
        "message_end(user)",
        "message_start(assistant)",
        "message_end(assistant)",
    ]
    assert [text_of(m) for m in faux.calls[1].messages if m.role == "user"] == ["go", "one"]
    # it arrives at the next drain point, after the first turn
    assert [text_of(m) for m in faux.calls[2].messages if m.role == "user"] == ["go", "one", "two"]

    # follow-ups are used when there is no steering
    faux.push(FauxResponse.text("d"))
    agent.follow_up("later")
    await agent.continue_()
    assert text_of(faux.calls[3].messages[-1]) == "later"


async def test_item_49_continue_from_assistant_with_empty_queues_raises() -> None:
    agent, _ = _agent(FauxProvider([FauxResponse.text("a")]))
    with pytest.raises(ValueError, match=r"^No messages to continue from$"):
        agent.continue_()
    await agent.prompt("go")
    with pytest.raises(ValueError) as info:
        agent.continue_()
    assert str(info.value) == "Cannot continue from message role: assistant"
    assert not agent.is_running


async def test_continue_from_a_user_message_runs_the_continue_loop() -> None:
    faux = FauxProvider([FauxResponse.text("r")])
    agent, rec = _agent(faux, messages=[user("pending question")])
    await agent.continue_()
    assert rec.labels()[:3] == ["agent_start", "turn_start", "message_start(assistant)"]
    assert [m.role for m in agent.state.messages] == ["user", "assistant"]
    assert rec.of("agent_end")[0].messages == agent.state.messages[1:]


async def test_item_50_messages_come_only_from_message_end() -> None:
    replacement_seen: list[Any] = []

    def prepare(signal: AbortSignal | None) -> AgentLoopTurnUpdate:
        replacement_seen.append(signal)
        return AgentLoopTurnUpdate()

    faux = FauxProvider(
        [FauxResponse.tool_calls(("echo", {"text": "a"}), ("ghost", {})), FauxResponse.text("b")]
    )
    agent, rec = _agent(
        faux, tools=[echo_tool()], prepare_next_turn=prepare, messages=[user("old")]
    )
    states: list[int] = []
    agent.subscribe(lambda e, s: states.append(len(agent.state.messages)))
    await agent.prompt("go")
    assert agent.state.messages[1:] == rec.ended_messages()
    ends_so_far = 0
    for event, count in zip(rec.events, states, strict=True):
        if event.type == "message_end":
            ends_so_far += 1
        assert count == 1 + ends_so_far  # reduced before the listeners ran
    assert len(replacement_seen) == 2
    assert all(isinstance(s, AbortSignal) for s in replacement_seen)


async def test_item_51_streaming_until_agent_end_listeners_finish() -> None:
    gate = asyncio.Event()
    reached = asyncio.Event()
    agent, _ = _agent(FauxProvider([FauxResponse.text("a")]))

    async def slow_end(event: Any, signal: Any) -> None:
        if event.type == "agent_end":
            reached.set()
            await gate.wait()

    agent.subscribe(slow_end)
    task = agent.prompt("go")
    await reached.wait()
    idle = asyncio.ensure_future(agent.wait_for_idle())
    await asyncio.sleep(0)  # let the waiter run once: it must still be blocked
    assert agent.state.is_streaming
    assert not idle.done()
    assert not task.done()
    gate.set()
    await idle
    assert not agent.state.is_streaming
    assert task.done()
    await agent.wait_for_idle()  # idle: returns at once


async def test_item_52_listeners_are_awaited_in_order() -> None:
    gate = asyncio.Event()
    blocked = asyncio.Event()
    faux = FauxProvider([FauxResponse.text("a")])
    agent = Agent(model=FAUX_MODEL, stream_fn=faux.stream)
    order: list[str] = []

    async def slow(event: Any, signal: Any) -> None:
        order.append(f"slow {event.type}")
        if event.type == "message_end" and event.message.role == "user":
            blocked.set()
            await gate.wait()

    agent.subscribe(slow)
    agent.subscribe(lambda e, s: order.append(f"fast {e.type}"))
    task = agent.prompt("go")
    await blocked.wait()
    for _ in range(5):
        await asyncio.sleep(0)
    assert faux.calls == []  # the loop is held by the slow listener
    assert order[-1] == "slow message_end"
    gate.set()
    await task
    assert order[:4] == [
        "slow agent_start",
        "fast agent_start",
        "slow turn_start",
        "fast turn_start",
    ]


async def test_item_53_reset_clears_messages_queues_and_error() -> None:
    agent, _ = _agent(FauxProvider([FauxResponse.error("boom")]))
    await agent.prompt("go")
    assert agent.state.error_message == "boom"
    agent.steer("s")
    agent.follow_up("f")
    assert agent.has_queued_messages()
    agent.reset()
    assert agent.state.messages == []
    assert agent.state.error_message is None
    assert not agent.has_queued_messages()
    assert agent.queued_steering == []
    assert agent.queued_follow_ups == []


async def test_item_54_loop_failure_becomes_a_synthetic_error_message() -> None:
    def broken(messages: Any) -> Any:
        raise RuntimeError("convert exploded")

    agent, rec = _agent(FauxProvider([FauxResponse.text("a")]), convert_to_llm=broken)
    await agent.prompt("go")
    assert rec.labels() == [
        "agent_start", "turn_start", "message_start(user)", "message_end(user)",
        "message_start(assistant)", "message_end(assistant)", "turn_end(0)", "agent_end",
    ]  # fmt: skip
    failure = rec.of("message_end")[1].message
    assert failure.stop_reason == "error"
    assert failure.error_message == "convert exploded"
    assert failure.content == [TextContent(text="")]
    assert (failure.api, failure.provider, failure.model) == ("faux", "faux", "faux-1")
    assert rec.of("agent_end")[0].messages == [failure]
    assert agent.state.error_message == "convert exploded"
    assert agent.state.messages[-1] is failure
    assert not agent.is_running

    # an unknown api (the default stream raises before any stream exists) fails the same way
    agent2 = Agent()
    await agent2.prompt("go")
    last = agent2.state.messages[-1]
    assert isinstance(last, AssistantMessage)
    assert last.error_message == "No API provider registered for api: unknown"
    assert agent2.state.model is DEFAULT_MODEL


async def test_item_54_aborted_failure_is_marked_aborted() -> None:
    agent: Agent

    def broken(messages: Any, signal: Any) -> Any:
        agent.abort()
        raise RuntimeError("gone")

    agent, _ = _agent(FauxProvider([]), transform_context=broken)
    await agent.prompt("go")
    last = agent.state.messages[-1]
    assert isinstance(last, AssistantMessage)
    assert last.stop_reason == "aborted"


async def test_item_55_error_message_from_turn_end() -> None:
    faux = FauxProvider([FauxResponse.error("429 slow down"), FauxResponse.text("ok")])
    agent, _ = _agent(faux)
    await agent.prompt("go")
    assert agent.state.error_message == "429 slow down"
    await agent.prompt("again")  # a new run clears it
    assert agent.state.error_message is None


# ------------------------------------------------------------------------ the API contract


async def test_prompt_forms_and_images() -> None:
    faux = FauxProvider([FauxResponse.text("a"), FauxResponse.text("b"), FauxResponse.text("c")])
    agent, _ = _agent(faux)
    image = ImageContent(data="aGk=", mime_type="image/png")
    task = agent.prompt("look", [image])
    assert isinstance(task, asyncio.Task)
    await task
    first = agent.state.messages[0]
    assert first.content == [TextContent(text="look"), image]  # type: ignore[union-attr]
    await agent.prompt(user("single"))
    await agent.prompt([user("x"), user("y")])
    assert [text_of(m) for m in agent.state.messages if m.role == "user"] == [
        "look",
        "single",
        "x",
        "y",
    ]


def test_prompt_needs_a_running_loop() -> None:
    agent = Agent(model=FAUX_MODEL)
    with pytest.raises(RuntimeError):
        agent.prompt("hi")
    assert not agent.is_running


async def test_abort_ends_the_run_with_aborted() -> None:
    started = asyncio.Event()

    async def wait_for_abort(call_id: str, params: Any, signal: Any, _: Any) -> AgentToolResult:
        started.set()
        await signal.wait()
        raise RuntimeError("cancelled by user")

    faux = FauxProvider([FauxResponse.tool_calls(("w", {})), FauxResponse.text("never")])
    agent, rec = _agent(faux, tools=[fn_tool("w", wait_for_abort)])
    agent.abort()  # idle: nothing happens
    task = agent.prompt("go")
    await started.wait()
    assert agent.signal is not None
    agent.abort()
    await task
    assert rec.types[-1] == "agent_end"
    assert agent.state.messages[-1].stop_reason == "aborted"  # type: ignore[union-attr]
    assert agent.signal is None
    assert agent.state.pending_tool_calls == frozenset()


async def test_state_reduction_streaming_message_and_pending_tools() -> None:
    snapshots: list[tuple[str, Any, frozenset[str]]] = []
    faux = FauxProvider([FauxResponse.tool_calls(("echo", {"text": "a"})), FauxResponse.text("b")])
    agent = Agent(model=FAUX_MODEL, stream_fn=faux.stream, tools=[echo_tool()])
    agent.subscribe(
        lambda e, s: snapshots.append(
            (e.type, agent.state.streaming_message, agent.state.pending_tool_calls)
        )
    )
    await agent.prompt("go")
    for kind, streaming, _pending in snapshots:
        if kind in ("message_start", "message_update"):
            assert streaming is not None
        if kind in ("message_end", "agent_end"):
            assert streaming is None
    starts = [p for k, _, p in snapshots if k == "tool_execution_start"]
    ends = [p for k, _, p in snapshots if k == "tool_execution_end"]
    assert len(starts[0]) == 1
    assert ends[0] == frozenset()


async def test_listener_errors_are_logged_and_the_run_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    faux = FauxProvider([FauxResponse.text("a")])
    agent, rec = _agent(faux)

    def bad(event: Any, signal: Any) -> None:
        raise RuntimeError("listener bug")

    unsubscribe = agent.subscribe(bad)
    with caplog.at_level(logging.ERROR, logger="pi_lsp.agent.agent"):
        await agent.prompt("go")
    assert rec.types[-1] == "agent_end"
    assert "listener bug" in caplog.text
    unsubscribe()
    unsubscribe()  # idempotent
    caplog.clear()
    faux.push(FauxResponse.text("b"))
    await agent.prompt("again")
    assert "listener bug" not in caplog.text


async def test_run_config_comes_from_the_agent() -> None:
    keys: list[str] = []
    faux = FauxProvider([FauxResponse.text("a"), FauxResponse.text("b")])
    agent = Agent(
        model=FAUX_MODEL,
        stream_fn=faux.stream,
        thinking_level="medium",
        system_prompt="be brief",
        session_id="sess-1",
        stream_options=StreamOptions(max_retries=7, api_key="base"),
        get_api_key=lambda p: keys.append(p) or None,
    )
    await agent.prompt("go")
    options = faux.options[0]
    assert options.reasoning == "medium"
    assert options.session_id == "sess-1"
    assert options.max_retries == 7
    assert options.api_key == "base"
    assert keys == ["faux"]
    assert faux.calls[0].system_prompt == "be brief"
    agent.state.thinking_level = "off"
    agent.state.model = Model(id="faux-9", api="faux", provider="faux")
    await agent.prompt("again")
    assert faux.options[1].reasoning is None
    assert faux.models[1].id == "faux-9"


async def test_state_setters_copy_and_queue_modes() -> None:
    agent = Agent(model=FAUX_MODEL)
    tools = [echo_tool()]
    agent.state.tools = tools
    tools.append(echo_tool("x"))
    assert len(agent.state.tools) == 1
    history = [user("a")]
    agent.state.messages = history
    history.append(user("b"))
    assert len(agent.state.messages) == 1
    agent.steering_mode = "all"
    agent.follow_up_mode = "all"
    assert (agent.steering_mode, agent.follow_up_mode) == ("all", "all")
    agent.steer("s")
    agent.follow_up(user("f"))
    assert [text_of(m) for m in agent.queued_steering] == ["s"]
    assert [text_of(m) for m in agent.queued_follow_ups] == ["f"]
    agent.clear_steering_queue()
    assert agent.has_queued_messages()
    agent.clear_follow_up_queue()
    assert not agent.has_queued_messages()


def test_pending_message_queue_modes() -> None:
    queue = PendingMessageQueue()
    assert queue.drain() == []
    assert not queue.has_items()
    messages = [user(str(i)) for i in range(3)]
    for m in messages:
        queue.enqueue(m)
    assert queue.drain() == [messages[0]]
    assert len(queue) == 2
    queue.mode = "all"
    assert queue.drain() == messages[1:]
    assert queue.drain() == []
    queue.enqueue(messages[0])
    queue.clear()
    assert not queue.has_items()


async def test_cancelled_run_task_leaves_the_agent_idle() -> None:
    agent, _ = _agent(FauxProvider([FauxResponse.text("a")]))
    task = agent.prompt("go")
    task.cancel()  # before it ever ran
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not agent.is_running
    assert not agent.state.is_streaming

    gate, reached = asyncio.Event(), asyncio.Event()

    async def factory(ctx: Any, opts: Any) -> FauxResponse:
        reached.set()
        await gate.wait()
        return FauxResponse.text("b")

    agent2, _ = _agent(FauxProvider([factory]))
    task2 = agent2.prompt("go")
    await reached.wait()
    task2.cancel()  # mid-run
    with pytest.raises(asyncio.CancelledError):
        await task2
    assert not agent2.is_running
    assert not agent2.state.is_streaming
    await agent2.wait_for_idle()
    gate.set()
