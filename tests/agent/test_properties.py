"""Property test: random scripted runs keep the loop's invariants.

Random turns (text, tool batches with ok / terminating / unknown / invalid / raising calls,
provider errors before or after start, aborted stops), steering / follow-up / abort arriving
during model calls or tools, both scheduling modes and both queue modes. Checked: one
``agent_start`` first and one ``agent_end`` last; balanced turns; every started tool call ends
once and gets one result, in call order; ``agent_end.messages`` and ``state.messages`` equal
the ``message_end`` sequence.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from pi_lsp.agent import Agent, AgentEvent, AgentTool, AgentToolResult
from pi_lsp.ai import AbortSignal, Context, StreamOptions, TextContent, ToolCall
from pi_lsp.ai.providers.faux import FAUX_MODEL, FauxBlock, FauxProvider, FauxResponse

from .helpers import user

CALL_KINDS = ["ok", "term", "unknown", "invalid", "raise", "steer", "follow", "abort"]
TURN_KINDS = ["text", "tools", "tools", "tools", "error_before", "error_after", "aborted_stop"]
SIDE_EFFECTS = [None, None, "steer", "follow", "abort"]


@dataclass
class Turn:
    kind: str
    calls: list[str] = field(default_factory=list)
    during_model: str | None = None


class Params(BaseModel):
    key: str


class ScriptTool(AgentTool[Params]):
    name = "t"
    label = "T"
    description = "behaves as its key says"
    parameters = Params

    def __init__(self, agent_ref: list[Agent]) -> None:
        self.agent_ref = agent_ref

    async def execute(
        self,
        tool_call_id: str,
        params: Params,
        signal: AbortSignal | None = None,
        on_update: Any = None,
    ) -> AgentToolResult:
        agent = self.agent_ref[0]
        kind = params.key
        if on_update is not None:
            await on_update(AgentToolResult([TextContent(text="progress")], {}))
        if kind == "raise":
            raise RuntimeError("tool failed")
        if kind == "steer":
            agent.steer("steered from a tool")
        elif kind == "follow":
            agent.follow_up("follow-up from a tool")
        elif kind == "abort":
            agent.abort()
        return AgentToolResult([TextContent(text=kind)], {}, terminate=kind == "term" or None)


def _response(turn: Turn) -> FauxResponse:
    if turn.kind == "text":
        return FauxResponse.text("some text")
    if turn.kind == "error_before":
        return FauxResponse.error("provider down", before_start=True)
    blocks = [FauxBlock(type="text", text="calling")]
    for kind in turn.calls:
        if kind == "unknown":
            blocks.append(FauxBlock(type="toolCall", name="ghost", arguments={}))
        elif kind == "invalid":
            blocks.append(FauxBlock(type="toolCall", name="t", arguments={"key": [1]}))
        else:
            blocks.append(FauxBlock(type="toolCall", name="t", arguments={"key": kind}))
    if turn.kind == "error_after":
        return FauxResponse(content=blocks, error_message="stream broke")
    if turn.kind == "aborted_stop":
        return FauxResponse(content=blocks, stop_reason="aborted")
    return FauxResponse(content=blocks)


turns_strategy = st.lists(
    st.builds(
        Turn,
        kind=st.sampled_from(TURN_KINDS),
        calls=st.lists(st.sampled_from(CALL_KINDS), min_size=1, max_size=4),
        during_model=st.sampled_from(SIDE_EFFECTS),
    ),
    min_size=1,
    max_size=6,
)


async def _run(
    turns: list[Turn], parallel: bool, all_mode: bool, history: int
) -> tuple[Agent, list[AgentEvent], list[Any]]:
    agent_ref: list[Agent] = []
    remaining = list(turns)

    def factory(ctx: Context, opts: StreamOptions) -> FauxResponse:
        if not remaining:
            return FauxResponse.text("the end")
        turn = remaining.pop(0)
        agent = agent_ref[0]
        if turn.during_model == "steer":
            agent.steer("steered during the model call")
        elif turn.during_model == "follow":
            agent.follow_up("follow-up during the model call")
        elif turn.during_model == "abort":
            agent.abort()
        return _response(turn)

    faux = FauxProvider([factory] * (len(turns) * 8 + 8))
    initial = [user(f"old {i}") for i in range(history)]
    agent = Agent(
        model=FAUX_MODEL,
        stream_fn=faux.stream,
        messages=initial,
        tools=[ScriptTool(agent_ref)],
        tool_execution="parallel" if parallel else "sequential",
        steering_mode="all" if all_mode else "one-at-a-time",
        follow_up_mode="all" if all_mode else "one-at-a-time",
    )
    agent_ref.append(agent)
    events: list[AgentEvent] = []
    agent.subscribe(lambda e, s: events.append(e))
    await agent.prompt("go")
    return agent, events, initial


def _check(agent: Agent, events: list[AgentEvent], initial: list[Any]) -> None:
    kinds = [e.type for e in events]
    assert kinds[0] == "agent_start"
    assert kinds.count("agent_start") == 1
    assert kinds[-1] == "agent_end"
    assert kinds.count("agent_end") == 1
    assert kinds.count("turn_start") == kinds.count("turn_end")

    ended = [e.message for e in events if e.type == "message_end"]
    assert events[-1].messages == ended  # type: ignore[union-attr]
    assert agent.state.messages == [*initial, *ended]
    assert not agent.is_running
    assert not agent.state.is_streaming

    # per turn: started calls end exactly once and their results follow call order
    turn: list[AgentEvent] = []
    for event in events:
        if event.type == "turn_start":
            turn = []
        turn.append(event)
        if event.type != "turn_end":
            continue
        message = event.message
        call_ids = [b.id for b in message.content if isinstance(b, ToolCall)]  # type: ignore[union-attr]
        started = [e.tool_call_id for e in turn if e.type == "tool_execution_start"]
        finished = [e.tool_call_id for e in turn if e.type == "tool_execution_end"]
        results = [m.tool_call_id for m in event.tool_results]
        assert started == call_ids[: len(started)]
        assert sorted(finished) == sorted(started)
        assert len(set(finished)) == len(finished)
        assert results == started
        if message.stop_reason in ("error", "aborted"):  # type: ignore[union-attr]
            assert started == []
        for e in turn:  # every update precedes its call's end
            if e.type == "tool_execution_update":
                assert e.tool_call_id in started
                assert turn.index(e) < next(
                    i
                    for i, x in enumerate(turn)
                    if x.type == "tool_execution_end" and x.tool_call_id == e.tool_call_id
                )


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    turns=turns_strategy,
    parallel=st.booleans(),
    all_mode=st.booleans(),
    history=st.integers(min_value=0, max_value=2),
)
def test_random_runs_keep_the_invariants(
    turns: list[Turn], parallel: bool, all_mode: bool, history: int
) -> None:
    agent, events, initial = asyncio.run(_run(turns, parallel, all_mode, history))
    _check(agent, events, initial)
