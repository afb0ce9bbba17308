"""The two-turn trace of docs/reference/pi.md#reference-traces (B) over the wire (faux provider):
order, seq, deltas → final text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import Start
from .harness import text_reply, tool_reply, write_script


def rebuild(events: list[dict[str, Any]]) -> list[str]:
    """The text of each assistant message, rebuilt from its text_delta notifications."""
    texts: list[str] = []
    current: dict[int, str] = {}
    for params in events:
        ev = params["event"]
        if ev["type"] == "message_start" and ev["message"]["role"] == "assistant":
            current = {}
        elif ev["type"] == "message_update":
            inner = ev["assistantMessageEvent"]
            if inner["type"] == "text_delta":
                idx = inner["contentIndex"]
                current[idx] = current.get(idx, "") + inner["delta"]
        elif ev["type"] == "message_end" and ev["message"]["role"] == "assistant":
            texts.append("".join(current[i] for i in sorted(current)))
    return texts


async def test_two_turn_trace(pi_in_process: Start, tmp_path: Path, workspace: Path) -> None:
    script = write_script(
        tmp_path / "script.json",
        [
            tool_reply("read", {"path": "a.py"}, text="Let me look at a.py."),
            text_reply("It defines f(), which returns 1. Nothing else is in the file."),
        ],
        chunkSize=3,
    )
    h = await pi_in_process(pi={"provider": "faux", "fauxScript": str(script)})
    sid = await h.run("What is in a.py?")
    events = h.session_events(sid)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    kinds = [e["event"]["type"] for e in events if e["event"]["type"] != "message_update"]
    assert kinds == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",  # user
        "message_start",
        "message_end",  # assistant 1 (tool call)
        "tool_execution_start",
        "tool_execution_end",
        "message_start",
        "message_end",  # tool result
        "turn_end",
        "turn_start",
        "message_start",
        "message_end",  # assistant 2
        "turn_end",
        "agent_end",
    ]
    ends = [e["event"]["message"] for e in events if e["event"]["type"] == "message_end"]
    assert ends[0]["role"] == "user"
    assert ends[2]["role"] == "toolResult"
    assert "return 1" in ends[2]["content"][0]["text"]
    final_texts = [
        "".join(b.get("text", "") for b in m["content"] if b["type"] == "text")
        for m in ends
        if m["role"] == "assistant"
    ]
    assert rebuild(events) == final_texts
    assert final_texts[1].startswith("It defines f()")
    for e in events:  # deltas only: never a partial message in an update
        if e["event"]["type"] == "message_update":
            assert set(e["event"]) == {"type", "assistantMessageEvent"}
    tool_end = next(e["event"] for e in events if e["event"]["type"] == "tool_execution_end")
    assert tool_end["toolName"] == "read"
    assert tool_end["isError"] is False
    agent_end = events[-1]["event"]
    assert [m["role"] for m in agent_end["messages"]] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    state = await h.call("pi/state", {"sessionId": sid})
    assert state["isStreaming"] is False
    assert state["messageCount"] == 4
