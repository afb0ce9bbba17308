"""docs/reference/pi.md#checklist items 10–17: the three continue/stop signals
(docs/reference/pi.md#continue-signals)."""

from __future__ import annotations

from typing import Any

from pi_lsp.agent import AfterToolCallResult, run_agent_loop
from pi_lsp.ai.providers.faux import FauxBlock, FauxProvider, FauxResponse

from .helpers import Recorder, config, context, echo_tool, user


def _tool_call_then_stop(reason: str) -> FauxResponse:
    return FauxResponse(
        content=[FauxBlock(type="toolCall", name="echo", arguments={"text": "x"})],
        stop_reason=reason,  # type: ignore[arg-type]
    )


async def test_item_10_error_stop_runs_no_tools() -> None:
    rec = Recorder()
    tool = echo_tool()
    faux = FauxProvider([
        FauxResponse(content=[FauxBlock(type="toolCall", name="echo", arguments={"text": "x"})],
                     error_message="connection reset", before_start=False),
        FauxResponse.text("never"),
    ])  # fmt: skip
    out = await run_agent_loop([user("u")], context(tool), config(), rec, stream_fn=faux.stream)
    final = rec.of("message_end")[1].message
    assert final.stop_reason == "error"
    assert any(b.type == "toolCall" for b in final.content)
    assert tool.calls == []
    assert "tool_execution_start" not in rec.types
    assert rec.types[-2:] == ["turn_end", "agent_end"]
    assert rec.of("turn_end")[0].tool_results == []
    assert len(out) == 2
    assert faux.remaining == 1


async def test_item_11_aborted_stop_consumes_no_follow_ups() -> None:
    polls = {"steer": 0, "follow": 0}

    def steer() -> list[Any]:
        polls["steer"] += 1
        return []

    def follow() -> list[Any]:
        polls["follow"] += 1
        return [user("later")]

    rec = Recorder()
    tool = echo_tool()
    faux = FauxProvider([_tool_call_then_stop("aborted")])
    await run_agent_loop(
        [user("u")],
        context(tool),
        config(get_steering_messages=steer, get_follow_up_messages=follow),
        rec,
        stream_fn=faux.stream,
    )
    assert rec.of("message_end")[1].message.stop_reason == "aborted"
    assert tool.calls == []
    assert rec.types[-2:] == ["turn_end", "agent_end"]
    assert polls == {"steer": 1, "follow": 0}  # only the poll before the first call


async def test_item_12_length_with_a_complete_tool_call_runs_it() -> None:
    rec = Recorder()
    tool = echo_tool()
    faux = FauxProvider([_tool_call_then_stop("length"), FauxResponse.text("continued")])
    out = await run_agent_loop([user("u")], context(tool), config(), rec, stream_fn=faux.stream)
    assert len(tool.calls) == 1
    assert rec.types.count("turn_start") == 2
    assert [m.role for m in out] == ["user", "assistant", "toolResult", "assistant"]


async def test_item_13_tool_use_without_tool_calls_ends_the_chain() -> None:
    rec = Recorder()
    faux = FauxProvider(
        [FauxResponse.text("no calls", stop_reason="toolUse"), FauxResponse.text("never")]
    )
    await run_agent_loop([user("u")], context(echo_tool()), config(), rec, stream_fn=faux.stream)
    assert not any(t.startswith("tool_execution") for t in rec.types)
    assert rec.types.count("turn_start") == 1
    assert faux.remaining == 1


async def test_item_14_all_terminate_stops_one_non_terminating_continues() -> None:
    faux = FauxProvider([
        FauxResponse.tool_calls(("stop", {"text": "a"}), ("stop", {"text": "b"})),
        FauxResponse.text("never"),
    ])  # fmt: skip
    rec = Recorder()
    await run_agent_loop(
        [user("u")],
        context(echo_tool("stop", terminate=True)),
        config(),
        rec,
        stream_fn=faux.stream,
    )
    assert rec.types.count("turn_start") == 1
    assert faux.remaining == 1
    assert len(rec.of("turn_end")[0].tool_results) == 2

    faux2 = FauxProvider([
        FauxResponse.tool_calls(("stop", {"text": "a"}), ("go", {"text": "b"})),
        FauxResponse.text("continued"),
    ])  # fmt: skip
    rec2 = Recorder()
    await run_agent_loop(
        [user("u")],
        context(echo_tool("stop", terminate=True), echo_tool("go", terminate=False)),
        config(),
        rec2,
        stream_fn=faux2.stream,
    )
    assert rec2.types.count("turn_start") == 2
    assert faux2.remaining == 0

    # after_tool_call can set terminate on every result
    faux3 = FauxProvider(
        [FauxResponse.tool_calls(("go", {"text": "a"})), FauxResponse.text("never")]
    )
    rec3 = Recorder()
    await run_agent_loop(
        [user("u")],
        context(echo_tool("go")),
        config(after_tool_call=lambda ctx, sig: AfterToolCallResult(terminate=True)),
        rec3,
        stream_fn=faux3.stream,
    )
    assert rec3.types.count("turn_start") == 1
    assert faux3.remaining == 1


async def test_item_15_unknown_tool_prevents_early_termination() -> None:
    faux = FauxProvider([
        FauxResponse.tool_calls(("stop", {"text": "a"}), ("ghost", {})),
        FauxResponse.text("continued"),
    ])  # fmt: skip
    rec = Recorder()
    await run_agent_loop(
        [user("u")],
        context(echo_tool("stop", terminate=True)),
        config(),
        rec,
        stream_fn=faux.stream,
    )
    assert rec.types.count("turn_start") == 2
    assert faux.remaining == 0


async def test_item_16_steering_without_tool_calls_starts_another_turn() -> None:
    polls = [[], [user("steer me")], []]
    faux = FauxProvider([FauxResponse.text("first"), FauxResponse.text("second")])
    rec = Recorder()
    await run_agent_loop(
        [user("u")],
        context(),
        config(get_steering_messages=lambda: polls.pop(0)),
        rec,
        stream_fn=faux.stream,
    )
    assert rec.types.count("turn_start") == 2
    steer = rec.of("message_end")[2].message
    assert steer.content[0].text == "steer me"
    labels = rec.labels()
    second = [i for i, x in enumerate(labels) if x == "turn_start"][1]
    assert labels[second + 1 : second + 4] == [
        "message_start(user)",
        "message_end(user)",
        "message_start(assistant)",
    ]
    assert faux.calls[1].messages[-1] is steer  # injected before the model call


async def test_item_17_follow_up_continues_the_same_run() -> None:
    follow = [[user("more")], []]
    faux = FauxProvider([FauxResponse.text("first"), FauxResponse.text("second")])
    rec = Recorder()
    out = await run_agent_loop(
        [user("u")],
        context(),
        config(get_follow_up_messages=lambda: follow.pop(0)),
        rec,
        stream_fn=faux.stream,
    )
    assert rec.types.count("agent_start") == 1
    assert rec.types.count("agent_end") == 1
    assert [m.role for m in out] == ["user", "assistant", "user", "assistant"]
    assert follow == []  # polled twice: once with the message, once empty
