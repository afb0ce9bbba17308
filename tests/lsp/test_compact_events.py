"""``clientCapabilities.compactEvents``: ``turn_end`` / ``agent_end`` name the messages already
sent (the ``seq`` of their ``message_end``) instead of repeating them, and an assistant
``message_end`` leaves out the text its deltas brought; without the capability the full form
is unchanged (tests/lsp/test_trace.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import Start
from .harness import text_reply, tool_reply, write_script


async def test_turn_end_and_agent_end_carry_refs(pi_in_process: Start, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "script.json",
        [
            tool_reply("read", {"path": "a.py"}, text="Let me look at a.py."),
            text_reply("It defines f(), which returns 1."),
        ],
        chunkSize=4,
    )
    h = await pi_in_process(
        pi={
            "provider": "faux",
            "fauxScript": str(script),
            "clientCapabilities": {"compactEvents": True},
        }
    )
    sid = await h.run("What is in a.py?")
    events = h.session_events(sid)
    by_seq: dict[int, dict[str, Any]] = {e["seq"]: e["event"] for e in events}
    ends = [e for e in events if e["event"]["type"] == "message_end"]
    turn_ends = [e["event"] for e in events if e["event"]["type"] == "turn_end"]
    assert len(turn_ends) == 2
    first, second = turn_ends
    assert set(first) == {"type", "messageRef", "toolResultRefs"}
    assert by_seq[first["messageRef"]]["type"] == "message_end"
    assert by_seq[first["messageRef"]]["message"]["role"] == "assistant"
    assert [by_seq[r]["message"]["role"] for r in first["toolResultRefs"]] == ["toolResult"]
    assert second["toolResultRefs"] == []
    agent_end = events[-1]["event"]
    assert agent_end["type"] == "agent_end"
    assert set(agent_end) == {"type", "messageRefs"}
    assert agent_end["messageRefs"] == [e["seq"] for e in ends]
    assert [by_seq[r]["message"]["role"] for r in agent_end["messageRefs"]] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    # an assistant message_end leaves out the text the deltas brought; the rest is whole
    answer = by_seq[agent_end["messageRefs"][-1]]["message"]
    assert answer["content"] == [{"type": "text", "streamed": True}]
    assert answer["stopReason"] == "stop"
    assert "usage" in answer
    first_answer = by_seq[first["messageRef"]]["message"]
    assert [b["type"] for b in first_answer["content"]] == ["text", "toolCall"]
    assert first_answer["content"][1]["name"] == "read"
    user = by_seq[agent_end["messageRefs"][0]]["message"]
    assert user["content"][0]["text"] == "What is in a.py?"
    # every reference points backwards, at an event the client already has
    for ev in (first, second):
        assert ev["messageRef"] < max(by_seq)
    replay = await h.call("pi/replay", {"sessionId": sid, "afterSeq": 0})
    assert [p["event"] for p in replay["events"]] == [e["event"] for e in events]


async def test_without_the_capability_the_full_form_is_sent(
    pi_in_process: Start, tmp_path: Path
) -> None:
    script = write_script(tmp_path / "script.json", [text_reply("Hello.")])
    h = await pi_in_process(pi={"provider": "faux", "fauxScript": str(script)})
    sid = await h.run("hi")
    events = [e["event"] for e in h.session_events(sid)]
    turn_end = next(e for e in events if e["type"] == "turn_end")
    assert turn_end["message"]["role"] == "assistant"
    assert [m["role"] for m in events[-1]["messages"]] == ["user", "assistant"]
