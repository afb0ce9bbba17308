"""Events are snapshots of the moment they describe (issue 10 item 10).

Real servers (llama.cpp, LiteLLM) send the role chunk and the first content chunk in one TCP
segment; the provider then applies both before the consumer runs. ``start`` (and the loop's
``message_start``) must still describe the message as it was at the start: no content that
later arrives as a delta, or a client starting from ``message_start`` shows "II'm…".
"""

from __future__ import annotations

import asyncio

from pi_lsp.agent import run_agent_loop
from pi_lsp.ai import stream
from pi_lsp.ai.events import TextDeltaEvent
from tests.agent.helpers import Recorder, config, text_of, user
from tests.agent.helpers import context as agent_context
from tests.ai.helpers import (
    an_end,
    an_start,
    an_text_block,
    anthropic_model,
    collect,
    context,
    oa_chunk,
    oa_usage,
    openai_model,
    options,
)
from tests.support.http_server import (
    Pause,
    ScriptedHTTPServer,
    sse_bytes,
    sse_response,
)


def _role_and_first_token_in_one_write(gate: asyncio.Event) -> list[object]:
    first = sse_bytes(
        [oa_chunk({"role": "assistant", "content": "I"}), oa_chunk({"content": "'m"})],
        done=False,
    )
    rest = sse_bytes([oa_chunk({"content": " here."}), oa_chunk({}, "stop"), oa_usage(3, 3)])
    return [first, Pause(gate), rest]


async def test_openai_start_event_has_no_content_that_arrives_later(
    srv: ScriptedHTTPServer,
) -> None:
    gate = asyncio.Event()
    response = sse_response([])
    response.body = _role_and_first_token_in_one_write(gate)
    srv.enqueue(response)
    events = []
    s = stream(openai_model(srv), context(), options())
    async for event in s:
        events.append(event)
        if isinstance(event, TextDeltaEvent):
            gate.set()
    start = events[0]
    assert start.type == "start"
    assert start.partial.content == []
    deltas = "".join(e.delta for e in events if isinstance(e, TextDeltaEvent))
    assert deltas == "I'm here."
    assert text_of(await s.result()) == "I'm here."


async def test_anthropic_start_event_has_no_content_that_arrives_later(
    srv: ScriptedHTTPServer,
) -> None:
    # message_start, the block start and its first delta in one write
    srv.enqueue(
        sse_response(
            [an_start(), *an_text_block(0, "I'm here."), *an_end()], named=True, done=False
        )
    )
    events, final = await collect(stream(anthropic_model(srv), context(), options()))
    assert events[0].type == "start"
    assert events[0].partial.content == []
    deltas = "".join(e.delta for e in events if isinstance(e, TextDeltaEvent))
    assert deltas == text_of(final) == "I'm here."


async def test_loop_message_start_is_a_snapshot(srv: ScriptedHTTPServer) -> None:
    gate = asyncio.Event()
    response = sse_response([])
    response.body = _role_and_first_token_in_one_write(gate)
    srv.enqueue(response)
    recorder = Recorder()
    recorder.hooks.append(lambda e: gate.set() if e.type == "message_update" else None)
    cfg = config(model=openai_model(srv), stream_options=options())
    await run_agent_loop([user("hi")], agent_context(), cfg, recorder)
    starts = [e.message for e in recorder.of("message_start") if e.message.role == "assistant"]
    assert len(starts) == 1
    streamed = text_of(starts[0]) + "".join(
        e.assistant_message_event.delta
        for e in recorder.of("message_update")
        if e.assistant_message_event.type == "text_delta"
    )
    final = recorder.ended_messages()[-1]
    assert streamed == text_of(final) == "I'm here."
