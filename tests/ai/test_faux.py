"""The scripted faux provider streams like a real one and never raises."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pi_lsp.ai import AbortSignal, Context, StreamOptions, UserMessage, stream
from pi_lsp.ai.providers.faux import FAUX_MODEL, FauxProvider, FauxResponse, FauxScript


def _ctx() -> Context:
    return Context(system_prompt="sys", messages=[UserMessage(content="hi")])


async def test_text_and_tool_call_stream_in_order() -> None:
    faux = FauxProvider(
        [FauxResponse.tool_calls(("read", {"path": "a.py", "limit": 10}), text="Let me look.")],
        chunk_size=3,
    )
    s = faux.stream(FAUX_MODEL, _ctx())
    types = []
    partial_args = []
    async for ev in s:
        types.append(ev.type)
        if ev.type == "toolcall_delta":
            block = ev.partial.content[ev.content_index]
            partial_args.append(dict(block.arguments))  # type: ignore[union-attr]
    final = await s.result()
    assert types[0] == "start"
    assert types[-1] == "done"
    assert types[1] == "text_start"
    assert "text_end" in types
    assert types.count("toolcall_start") == 1
    assert types.count("toolcall_end") == 1
    text = "".join(b.text for b in final.content if b.type == "text")
    assert text == "Let me look."
    assert final.stop_reason == "toolUse"
    call = final.content[1]
    assert call.type == "toolCall"
    assert call.arguments == {"path": "a.py", "limit": 10}
    # arguments grow as the JSON streams (partial parsing)
    assert partial_args[0] == {} or len(partial_args[0]) <= 1
    assert any(a.get("path") == "a.py" and "limit" not in a for a in partial_args)


async def test_error_before_start_and_exhaustion() -> None:
    faux = FauxProvider([FauxResponse.error("429 rate limited")])
    s = faux.stream(FAUX_MODEL, _ctx())
    events = [ev.type async for ev in s]
    assert events == ["error"]
    msg = await s.result()
    assert msg.stop_reason == "error"
    assert msg.error_message == "429 rate limited"
    s2 = faux.stream(FAUX_MODEL, _ctx())
    msg2 = await s2.result()
    assert msg2.error_message == "No more faux responses queued"


async def test_abort_mid_stream_keeps_partial() -> None:
    signal = AbortSignal()
    faux = FauxProvider([FauxResponse.text("x" * 400)], chunk_size=1, delay_ms=5)
    s = faux.stream(FAUX_MODEL, _ctx(), StreamOptions(signal=signal))
    seen = 0
    async for ev in s:
        if ev.type == "text_delta":
            seen += 1
            if seen == 3:
                signal.abort()
    msg = await s.result()
    assert msg.stop_reason == "aborted"
    assert 3 <= len(msg.content[0].text) < 400  # type: ignore[union-attr]


async def test_async_factory_can_gate_a_turn() -> None:
    gate = asyncio.Event()

    async def gated(ctx: Context, opts: StreamOptions) -> FauxResponse:
        await gate.wait()
        return FauxResponse.text(f"saw {len(ctx.messages)} messages")

    faux = FauxProvider([gated])
    s = faux.stream(FAUX_MODEL, _ctx())
    task = asyncio.ensure_future(s.result())
    await asyncio.sleep(0)
    assert not task.done()
    gate.set()
    msg = await task
    assert msg.content[0].text == "saw 1 messages"  # type: ignore[union-attr]


async def test_script_from_json_file_and_registry(tmp_path: Path) -> None:
    script = {
        "chunkSize": 2,
        "responses": [
            {"content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "ok"}]}
        ],
    }
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    from pi_lsp.ai.providers import faux as faux_mod

    faux_mod.set_default_faux(FauxProvider(FauxScript.load(path)))
    msg = await stream(FAUX_MODEL, _ctx()).result()
    assert [b.type for b in msg.content] == ["thinking", "text"]
    assert msg.usage.input > 0
    assert msg.usage.total_tokens >= msg.usage.input


async def test_when_plays_a_response_for_the_request_it_names() -> None:
    """``when``: a response only for a request whose first user message contains the text
    (a task child's prompt); the others in order for the rest."""

    def ctx(text: str) -> Context:
        return Context(system_prompt="sys", messages=[UserMessage(content=text)])

    faux = FauxProvider(
        [
            FauxResponse.text("parent 1"),
            FauxResponse.text("for B", when="CHILD-B"),
            FauxResponse.text("for A", when="CHILD-A"),
            FauxResponse.text("parent 2"),
        ]
    )

    async def reply(text: str) -> str:
        final = await faux.stream(FAUX_MODEL, ctx(text)).result()
        return "".join(b.text for b in final.content if b.type == "text")

    assert await reply("go") == "parent 1"
    assert await reply("CHILD-A: look") == "for A"
    assert await reply("CHILD-B: look") == "for B"
    assert await reply("go on") == "parent 2"
    assert faux.remaining == 0
    final = await faux.stream(FAUX_MODEL, ctx("CHILD-A: again")).result()
    assert final.error_message == "No more faux responses queued"
    script = FauxScript.model_validate({"responses": [{"content": [], "when": "X"}]})
    assert script.responses[0].when == "X"
