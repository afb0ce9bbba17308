"""Streaming that cannot hurt the editor: coalesced deltas under a fast model, the client's own
budget, and ``pi/replay`` of what was sent."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import Start
from .harness import write_script

WORDS = 1500
"""≈ 1 s of streaming at the fast model's pace: 20+ coalescing windows at the tightest budget."""


def deltas(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        e
        for e in events
        if e["event"]["type"] == "message_update"
        and e["event"]["assistantMessageEvent"]["type"] == "text_delta"
    ]


TEXT = "".join(f"w{i} " for i in range(WORDS))  # ~4 chars a token


async def fast_stream(pi: Start, tmp_path: Path, declared: int | None) -> tuple[int, float]:
    """A ~2000 token/s model (8 chars every millisecond) on a server whose client declared
    ``declared`` updates a second (``None``: nothing declared): ``(delta notifications, s)``."""
    script = write_script(
        tmp_path / f"fast-{declared}.json",
        [{"content": [{"type": "text", "text": TEXT}]}],
        chunkSize=8,
        delayMs=1,
    )
    settings: dict[str, Any] = {"provider": "faux", "fauxScript": str(script)}
    if declared is not None:
        settings["clientCapabilities"] = {"maxUpdatesPerSecond": declared}
    h = await pi(pi=settings)
    started = time.monotonic()
    sid = await h.run("stream a lot")
    elapsed = time.monotonic() - started
    events = h.session_events(sid)
    sent = deltas(events)
    assert "".join(e["event"]["assistantMessageEvent"]["delta"] for e in sent) == TEXT
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert len(sent) < -(-len(TEXT) // 8) / 4  # heavily merged
    return len(sent), elapsed


@pytest.mark.parametrize(("budget", "declared"), [(60, None), (20, 20)])
async def test_fast_model_is_coalesced_to_the_budget(
    pi_in_process: Start, tmp_path: Path, budget: int, declared: int | None
) -> None:
    count, elapsed = await fast_stream(pi_in_process, tmp_path, declared)
    assert count <= budget * elapsed + 2, (count, elapsed)


async def test_the_coalescing_window_follows_the_declared_budget(
    pi_in_process: Start, tmp_path: Path
) -> None:
    """A declared budget is the window (``1/budget``), not a ceiling the server widens away
    from: 40/s declared gives about 40 notifications a second where an undeclared budget widens
    to 100 ms (about 10). Compared within one test, so the machine's speed cancels out; the
    exact windows are checked with a fake clock in tests/lsp/test_channel.py."""
    declared, declared_s = await fast_stream(pi_in_process, tmp_path, 40)
    widened, widened_s = await fast_stream(pi_in_process, tmp_path, None)
    assert declared <= 40 * declared_s + 2, (declared, declared_s)
    assert declared / declared_s > 2 * (widened / widened_s), (
        declared,
        declared_s,
        widened,
        widened_s,
    )


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
