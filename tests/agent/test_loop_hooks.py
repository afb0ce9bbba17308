"""docs/reference/pi.md#checklist items 18–28: when the queues are polled and what the hooks can
change."""

from __future__ import annotations

from typing import Any

from pi_lsp.agent import (
    AgentContext,
    AgentLoopTurnUpdate,
    AgentToolResult,
    TurnContext,
    run_agent_loop,
)
from pi_lsp.ai import Model, StreamOptions
from pi_lsp.ai.providers.faux import FAUX_MODEL, FauxProvider, FauxResponse

from .helpers import Recorder, config, context, echo_tool, fn_tool, ok, user


class Log:
    """Records loop events and hook calls in one timeline."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def sink(self, event: Any) -> None:
        if event.type != "message_update":
            self.items.append(event.type)

    def hook(self, name: str, value: Any = None) -> Any:
        def call(*_: Any) -> Any:
            self.items.append(name)
            return value() if callable(value) else value

        return call


async def test_item_18_steering_polled_once_before_first_call() -> None:
    log = Log()
    queue = [[user("early")]]
    polls: list[int] = []

    faux = FauxProvider([FauxResponse.text("a")])

    def steer() -> list[Any]:
        polls.append(len(faux.calls))
        return queue.pop(0) if queue else []

    rec = Recorder()

    def sink(event: Any) -> None:
        log.sink(event)
        rec(event)

    await run_agent_loop(
        [user("u")], context(), config(get_steering_messages=steer), sink, stream_fn=faux.stream
    )
    assert len(polls) == 2  # once before the first call, once after the only turn
    assert polls == [0, 1]  # the first one before the model was called
    assert log.items[:4] == ["agent_start", "turn_start", "message_start", "message_end"]
    assert rec.types.count("turn_start") == 1
    early = rec.of("message_end")[1].message
    assert early.content[0].text == "early"
    assert faux.calls[0].messages[-1] is early


async def test_item_19_steering_polled_after_turn_end_and_hooks() -> None:
    log = Log()
    faux = FauxProvider([FauxResponse.tool_calls(("echo", {"text": "a"})), FauxResponse.text("b")])
    cfg = config(
        get_steering_messages=log.hook("steer", []),
        prepare_next_turn=log.hook("prepare"),
        should_stop_after_turn=log.hook("should_stop", False),
    )
    await run_agent_loop([user("u")], context(echo_tool()), cfg, log.sink, stream_fn=faux.stream)
    turn_ends = [i for i, x in enumerate(log.items) if x == "turn_end"]
    for i in turn_ends:
        assert log.items[i + 1 : i + 4] == ["prepare", "should_stop", "steer"]
    assert log.items.count("steer") == 3  # initial + one per turn


async def test_item_20_no_steering_poll_inside_a_batch() -> None:
    queue: list[Any] = []
    executed: list[str] = []

    async def tool(call_id: str, *_: Any) -> AgentToolResult:
        executed.append(call_id)
        if len(executed) == 1:
            queue.append(user("interrupt"))
        return ok(call_id)

    def steer() -> list[Any]:
        out = list(queue)
        queue.clear()
        return out

    for mode in ("sequential", "parallel"):
        executed.clear()
        faux = FauxProvider(
            [FauxResponse.tool_calls(("t", {}), ("t", {}), ("t", {})), FauxResponse.text("done")]
        )
        rec = Recorder()
        await run_agent_loop(
            [user("u")],
            context(fn_tool("t", tool)),
            config(get_steering_messages=steer, tool_execution=mode),
            rec,
            stream_fn=faux.stream,
        )
        assert len(executed) == 3, mode
        results = rec.of("turn_end")[0].tool_results
        assert [r.is_error for r in results] == [False, False, False]
        labels = rec.labels()
        first_end = labels.index("turn_end(3)")
        assert labels[first_end + 1 : first_end + 3] == ["turn_start", "message_start(user)"]


async def test_item_21_prepare_next_turn_after_every_turn_including_last() -> None:
    seen: list[TurnContext] = []
    faux = FauxProvider([FauxResponse.tool_calls(("echo", {"text": "a"})), FauxResponse.text("b")])
    rec = Recorder()
    await run_agent_loop(
        [user("u")],
        context(echo_tool()),
        config(prepare_next_turn=lambda ctx: seen.append(ctx)),
        rec,
        stream_fn=faux.stream,
    )
    assert len(seen) == 2
    first, last = seen
    assert first.message is rec.of("turn_end")[0].message
    assert first.tool_results == rec.of("turn_end")[0].tool_results
    assert last.message is rec.of("turn_end")[1].message
    assert last.tool_results == []
    assert last.new_messages is rec.of("agent_end")[0].messages
    assert last.context.messages[-1] is last.message

    # a hard stop skips it
    seen.clear()
    faux2 = FauxProvider([FauxResponse.error("boom")])
    await run_agent_loop(
        [user("u")],
        context(),
        config(prepare_next_turn=lambda ctx: seen.append(ctx)),
        Recorder(),
        stream_fn=faux2.stream,
    )
    assert seen == []


async def test_item_22_prepare_next_turn_context_replaces_everything() -> None:
    replacement = AgentContext("new system", [user("only this")], [echo_tool("other")])

    def prepare(ctx: TurnContext) -> AgentLoopTurnUpdate:
        return AgentLoopTurnUpdate(context=replacement)

    faux = FauxProvider(
        [
            FauxResponse.tool_calls(("echo", {"text": "a"})),
            FauxResponse.tool_calls(("other", {"text": "b"})),
            FauxResponse.text("c"),
        ]
    )
    rec = Recorder()
    out = await run_agent_loop(
        [user("u")],
        context(echo_tool()),
        config(prepare_next_turn=prepare),
        rec,
        stream_fn=faux.stream,
    )
    second = faux.calls[1]
    assert second.system_prompt == "new system"
    assert [m.role for m in second.messages] == ["user"]
    assert [t.name for t in second.tools or []] == ["other"]
    # later pushes go into the new context's list; new_messages is unaffected
    assert replacement.messages[1].role == "assistant"
    assert [m.role for m in out] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "toolResult",
        "assistant",
    ]
    assert rec.of("tool_execution_end")[1].is_error is False  # "other" was found


async def test_item_23_prepare_next_turn_model_persists() -> None:
    other = Model(id="faux-2", api="faux", provider="faux")
    updates = [AgentLoopTurnUpdate(model=other), None, None]
    follow = [[user("f")], []]
    faux = FauxProvider(
        [
            FauxResponse.tool_calls(("echo", {"text": "a"})),
            FauxResponse.text("b"),
            FauxResponse.text("c"),
        ]
    )
    await run_agent_loop(
        [user("u")],
        context(echo_tool()),
        config(
            prepare_next_turn=lambda ctx: updates.pop(0),
            get_follow_up_messages=lambda: follow.pop(0),
        ),
        Recorder(),
        stream_fn=faux.stream,
    )
    assert [m.id for m in faux.models] == ["faux-1", "faux-2", "faux-2"]


async def test_item_24_thinking_level_off_clears_reasoning() -> None:
    levels: list[Any] = [
        AgentLoopTurnUpdate(thinking_level="off"),
        AgentLoopTurnUpdate(thinking_level="high"),
        AgentLoopTurnUpdate(),
        None,
    ]
    faux = FauxProvider(
        [FauxResponse.tool_calls(("echo", {"text": "a"})) for _ in range(3)]
        + [FauxResponse.text("done")]
    )
    await run_agent_loop(
        [user("u")],
        context(echo_tool()),
        config(reasoning="low", prepare_next_turn=lambda ctx: levels.pop(0)),
        Recorder(),
        stream_fn=faux.stream,
    )
    assert [o.reasoning for o in faux.options] == ["low", None, "high", "high"]


async def test_item_25_should_stop_after_turn_ends_the_run() -> None:
    log = Log()
    faux = FauxProvider(
        [FauxResponse.tool_calls(("echo", {"text": "a"})), FauxResponse.text("never")]
    )
    cfg = config(
        get_steering_messages=log.hook("steer", []),
        get_follow_up_messages=log.hook("follow", []),
        should_stop_after_turn=log.hook("should_stop", True),
    )
    await run_agent_loop([user("u")], context(echo_tool()), cfg, log.sink, stream_fn=faux.stream)
    assert log.items[-3:] == ["turn_end", "should_stop", "agent_end"]
    assert log.items.count("turn_end") == 1
    assert log.items.count("steer") == 1
    assert "follow" not in log.items
    assert faux.remaining == 1


async def test_item_26_should_stop_sees_the_replaced_context() -> None:
    replacement = AgentContext("s2", [user("x")], [])
    seen: list[AgentContext] = []

    def should_stop(ctx: TurnContext) -> bool:
        seen.append(ctx.context)
        return True

    faux = FauxProvider([FauxResponse.text("a")])
    await run_agent_loop(
        [user("u")],
        context(),
        config(
            prepare_next_turn=lambda c: AgentLoopTurnUpdate(context=replacement),
            should_stop_after_turn=should_stop,
        ),
        Recorder(),
        stream_fn=faux.stream,
    )
    assert seen == [replacement]
    assert seen[0] is replacement


async def test_item_27_transform_context_only_changes_the_request() -> None:
    async def transform(messages: list[Any], signal: Any) -> list[Any]:
        return [user("injected"), *messages[-1:]]

    faux = FauxProvider([FauxResponse.tool_calls(("echo", {"text": "a"})), FauxResponse.text("b")])
    history = [user("old 1"), user("old 2")]
    out = await run_agent_loop(
        [user("u")],
        context(echo_tool(), messages=history),
        config(transform_context=transform),
        Recorder(),
        stream_fn=faux.stream,
    )
    sent = [m.content[0].text if m.role == "user" else m.role for m in faux.calls[0].messages]
    assert sent == ["injected", "u"]
    assert [m.role for m in faux.calls[1].messages] == ["user", "toolResult"]
    assert [m.role for m in out] == ["user", "assistant", "toolResult", "assistant"]
    assert len(history) == 2  # the caller's list is untouched


async def test_item_28_get_api_key_before_every_request() -> None:
    calls: list[str] = []

    async def get_key(provider: str) -> str | None:
        calls.append(provider)
        return f"key-{len(calls)}" if len(calls) < 3 else None

    faux = FauxProvider(
        [
            FauxResponse.tool_calls(("echo", {"text": "a"})),
            FauxResponse.tool_calls(("echo", {"text": "a"})),
            FauxResponse.text("b"),
        ]
    )
    await run_agent_loop(
        [user("u")],
        context(echo_tool()),
        config(get_api_key=get_key, stream_options=StreamOptions(api_key="static")),
        Recorder(),
        stream_fn=faux.stream,
    )
    assert calls == ["faux", "faux", "faux"]
    assert [o.api_key for o in faux.options] == ["key-1", "key-2", "static"]
    assert FAUX_MODEL.provider == "faux"
