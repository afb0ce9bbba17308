"""Streaming that cannot hurt the editor: coalesced deltas under a fast model, the client's own
budget, and ``pi/replay`` of what was sent."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import Start
from .harness import write_script

WORDS = 4000


def deltas(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        e
        for e in events
        if e["event"]["type"] == "message_update"
        and e["event"]["assistantMessageEvent"]["type"] == "text_delta"
    ]


@pytest.mark.parametrize(("budget", "declared"), [(60, None), (20, 20)])
async def test_fast_model_is_coalesced_to_the_budget(
    pi_in_process: Start, tmp_path: Path, budget: int, declared: int | None
) -> None:
    text = "".join(f"w{i} " for i in range(WORDS))  # ~4 chars a token
    # 8 chars (~2 tokens) every millisecond: a ~2000 token/s model
    script = write_script(
        tmp_path / "fast.json",
        [{"content": [{"type": "text", "text": text}]}],
        chunkSize=8,
        delayMs=1,
    )
    settings: dict[str, Any] = {"provider": "faux", "fauxScript": str(script)}
    if declared is not None:
        settings["clientCapabilities"] = {"maxUpdatesPerSecond": declared}
    h = await pi_in_process(pi=settings)
    started = time.monotonic()
    sid = await h.run("stream a lot")
    elapsed = time.monotonic() - started
    events = h.session_events(sid)
    sent = deltas(events)
    chunks = -(-len(text) // 8)
    assert len(sent) < chunks / 4  # heavily merged
    assert len(sent) <= budget * elapsed + 2, (len(sent), elapsed)
    assert "".join(e["event"]["assistantMessageEvent"]["delta"] for e in sent) == text
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))


async def test_a_slow_model_is_not_delayed(pi_in_process: Start, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "slow.json",
        [{"content": [{"type": "text", "text": "a b c d "}]}],
        chunkSize=2,
        delayMs=100,
    )
    h = await pi_in_process(pi={"provider": "faux", "fauxScript": str(script)})
    sid = await h.run("slowly")
    sent = deltas(h.session_events(sid))
    assert [e["event"]["assistantMessageEvent"]["delta"] for e in sent] == ["a ", "b ", "c ", "d "]


async def test_replay_returns_what_was_sent(pi_in_process: Start, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.json", [{"content": [{"type": "text", "text": "hello there"}]}]
    )
    h = await pi_in_process(pi={"provider": "faux", "fauxScript": str(script)})
    sid = await h.run("hi")
    sent = h.session_events(sid)
    replay = await h.call("pi/replay", {"sessionId": sid, "afterSeq": 0})
    assert replay["complete"] is True
    assert replay["events"] == sent
    tail = await h.call("pi/replay", {"sessionId": sid, "afterSeq": len(sent) - 2})
    assert [e["seq"] for e in tail["events"]] == [len(sent) - 1, len(sent)]
    empty = await h.call("pi/replay", {"sessionId": sid, "afterSeq": 10_000})
    assert empty == {"sessionId": sid, "events": [], "complete": True}
