"""EventChannel: seq numbering, delta coalescing under a budget, replay buffer (fake clock)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from pi_lsp.lsp.host.channel import EventChannel


class FakeTimers:
    def __init__(self) -> None:
        self.now = 0.0
        self.pending: list[tuple[float, Callable[[], None], FakeHandle]] = []

    def call_at(self, when: float, fn: Callable[[], None]) -> FakeHandle:
        handle = FakeHandle()
        self.pending.append((when, fn, handle))
        return handle

    def advance(self, dt: float) -> None:
        end = self.now + dt
        while due := sorted((p for p in self.pending if p[0] <= end), key=lambda p: p[0]):
            when, fn, handle = due[0]
            self.pending.remove(due[0])
            self.now = max(self.now, when)  # a timer runs at its due time
            if not handle.cancelled:
                fn()
        self.now = end


class FakeHandle:
    cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def delta(text: str, index: int = 0, kind: str = "text_delta") -> dict[str, Any]:
    return {
        "type": "message_update",
        "assistantMessageEvent": {"type": kind, "contentIndex": index, "delta": text},
    }


def make(
    interval: float = 1 / 60, buffer: int = 100, *, adaptive: bool = True
) -> tuple[EventChannel, list[dict[str, Any]], FakeTimers]:
    timers = FakeTimers()
    sent: list[dict[str, Any]] = []

    def send(params: dict[str, Any]) -> None:
        sent.append({**params, "_t": timers.now})

    ch = EventChannel(
        "s1",
        send,
        interval=interval,
        adaptive=adaptive,
        buffer_size=buffer,
        clock=lambda: timers.now,
        call_at=timers.call_at,
    )
    return ch, sent, timers


def test_seq_starts_at_one_and_increments() -> None:
    ch, sent, _ = make()
    ch.publish({"type": "agent_start"})
    ch.publish({"type": "turn_start"})
    assert [p["seq"] for p in sent] == [1, 2]
    assert all(p["sessionId"] == "s1" for p in sent)


def test_first_delta_after_quiet_goes_out_at_once() -> None:
    ch, sent, timers = make()
    ch.publish(delta("a"))
    assert len(sent) == 1
    timers.advance(1.0)
    ch.publish(delta("b"))
    assert len(sent) == 2  # quiet period: no added latency


def test_fast_deltas_are_merged_within_the_interval() -> None:
    ch, sent, timers = make(interval=0.05)
    ch.publish(delta("a"))
    for ch_text in "bcdef":
        ch.publish(delta(ch_text))
    assert len(sent) == 1
    timers.advance(0.05)
    assert len(sent) == 2
    assert sent[1]["event"]["assistantMessageEvent"]["delta"] == "bcdef"
    assert "".join(p["event"]["assistantMessageEvent"]["delta"] for p in sent) == "abcdef"


def test_other_events_flush_first_and_keep_order() -> None:
    ch, sent, timers = make(interval=0.05)
    ch.publish(delta("a"))
    ch.publish(delta("b"))
    ch.publish(
        {"type": "message_update", "assistantMessageEvent": {"type": "text_end", "contentIndex": 0}}
    )
    types = [p["event"]["assistantMessageEvent"]["type"] for p in sent]
    assert types == ["text_delta", "text_delta", "text_end"]
    assert [p["seq"] for p in sent] == [1, 2, 3]
    timers.advance(1)
    assert len(sent) == 3  # the cancelled timer sends nothing


def test_different_blocks_are_not_merged() -> None:
    ch, sent, timers = make(interval=0.05)
    ch.publish(delta("a", 0))
    ch.publish(delta("b", 0))
    ch.publish(delta("x", 1, "thinking_delta"))
    timers.advance(0.2)
    inner = [p["event"]["assistantMessageEvent"] for p in sent]
    assert [(e["type"], e["contentIndex"], e["delta"]) for e in inner] == [
        ("text_delta", 0, "a"),
        ("text_delta", 0, "b"),
        ("thinking_delta", 1, "x"),
    ]


def test_budget_holds_under_a_fast_stream() -> None:
    ch, sent, timers = make(interval=1 / 60)
    text = []
    for i in range(2000):  # 2000 deltas/s for one second
        ch.publish(delta(f"t{i} "))
        text.append(f"t{i} ")
        timers.advance(0.0005)
    timers.advance(1)
    assert len(sent) <= 61
    assert "".join(p["event"]["assistantMessageEvent"]["delta"] for p in sent) == "".join(text)


def stream_gaps(ch: EventChannel, sent: list[dict[str, Any]], timers: FakeTimers) -> list[float]:
    """A 1000 deltas/s stream for one second: the gaps between the notifications sent."""
    for i in range(1000):
        ch.publish(delta(f"t{i} "))
        timers.advance(0.001)
    timers.advance(1)
    times = [p["_t"] for p in sent]
    return [round(b - a, 6) for a, b in itertools.pairwise(times)]


def test_a_declared_budget_sets_the_window_and_a_fast_stream_does_not_widen_it() -> None:
    ch, sent, timers = make(interval=1 / 40, adaptive=False)
    gaps = stream_gaps(ch, sent, timers)
    assert set(gaps) == {0.025}, gaps  # every merge spans the budget's window, never more
    assert 39 <= len(sent) <= 41


def test_without_a_declared_budget_a_fast_stream_widens_the_window_to_100_ms() -> None:
    ch, sent, timers = make(interval=1 / 40)
    gaps = stream_gaps(ch, sent, timers)
    assert gaps[:3] == [0.025, 0.05, 0.1], gaps
    assert set(gaps[2:]) == {0.1}, gaps
    assert len(sent) <= 13  # 0, 0.025, 0.075, then every 100 ms


def test_replay_and_bounded_buffer() -> None:
    ch, _sent, _ = make(buffer=3)
    for _ in range(5):
        ch.publish({"type": "turn_start"})
    events, complete = ch.replay(0)
    assert [e["seq"] for e in events] == [3, 4, 5]
    assert complete is False
    events, complete = ch.replay(2)
    assert [e["seq"] for e in events] == [3, 4, 5]
    assert complete is True
    events, complete = ch.replay(5)
    assert events == []
    assert complete is True


def test_replay_flushes_pending_delta() -> None:
    ch, _sent, _ = make(interval=0.05)
    ch.publish(delta("a"))
    ch.publish(delta("b"))
    events, complete = ch.replay(0)
    assert [e["event"]["assistantMessageEvent"]["delta"] for e in events] == ["a", "b"]
    assert complete


def test_window_widens_under_a_fast_stream_and_resets_after_a_pause() -> None:
    ch, sent, timers = make(interval=1 / 60)
    for _ in range(400):  # a delta every 2.5 ms for one second
        ch.publish(delta("x"))
        timers.advance(0.0025)
    timers.advance(1)
    assert ch.window == 0.1  # widened to the 100 ms cap, never beyond
    assert len(sent) <= 14  # ~10/s once widened
    gaps = [b - a for a, b in zip(sent_times(sent), sent_times(sent)[1:], strict=False)]
    assert all(g <= 0.1 + 1e-9 for g in gaps)
    assert "".join(p["event"]["assistantMessageEvent"]["delta"] for p in sent) == "x" * 400
    timers.advance(0.5)  # a pause
    before = len(sent)
    ch.publish(delta("y"))
    assert len(sent) == before + 1  # out at once
    assert ch.window == 1 / 60


def sent_times(sent: list[dict[str, Any]]) -> list[float]:
    return [p["_t"] for p in sent]
