"""Content events handled at push time while the loop waits (``EventStream.direct``).

The loop sets ``direct`` so a chunk that arrives while it waits is handled in the producer's
push, without waking the loop's task. These tests pin what must not change because of that:
order, one sink call finished before the next, errors raised in the loop (never in the
provider), suspension and cancellation of a sink handed back to the loop's task.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from pi_lsp.agent import run_agent_loop
from pi_lsp.ai import (
    AssistantMessage,
    AssistantMessageEventStream,
    DoneEvent,
    Model,
    StartEvent,
    StreamOptions,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
)
from pi_lsp.ai.event_stream import Handover
from pi_lsp.ai.grow import append_to_field
from tests.support.tiers import optional

from .helpers import config, context, text_of, user

DELTAS = ["alpha ", "beta ", "gamma ", "delta ", "epsilon"]


class TaskProducer:
    """A provider-like ``stream_fn``: a producer task that yields to the event loop after
    every push (each chunk in its own loop iteration), recording what ``push`` raised."""

    def __init__(self) -> None:
        self.push_errors: list[BaseException] = []
        self.pushed: list[str] = []
        self.finished = asyncio.Event()

    def __call__(
        self, model: Model, ctx: Any, options: StreamOptions
    ) -> AssistantMessageEventStream:
        out = AssistantMessageEventStream()
        partial = AssistantMessage(api=model.api, provider=model.provider, model=model.id)

        def push(event: Any) -> None:
            try:
                out.push(event)
            except BaseException as exc:  # must never happen: the provider contract
                self.push_errors.append(exc)
            self.pushed.append(getattr(event, "delta", event.type))

        async def produce() -> None:
            push(StartEvent(partial))
            await asyncio.sleep(0)
            block = TextContent(text="")
            partial.content.append(block)
            push(TextStartEvent(0, partial))
            await asyncio.sleep(0)
            for delta in DELTAS:
                append_to_field(block, "text", delta)
                push(TextDeltaEvent(0, delta, partial))
                await asyncio.sleep(0)
            push(TextEndEvent(0, block.text, partial))
            await asyncio.sleep(0)
            partial.stop_reason = "stop"
            push(DoneEvent("stop", partial))
            out.end(partial)
            self.finished.set()

        out.attach_task(asyncio.ensure_future(produce()))
        return out


def _deltas(events: list[Any]) -> list[str]:
    return [
        e.assistant_message_event.delta
        for e in events
        if e.type == "message_update" and e.assistant_message_event.type == "text_delta"
    ]


async def test_a_sync_sink_sees_every_update_in_order_with_its_own_snapshot() -> None:
    events: list[Any] = []
    producer = TaskProducer()
    messages = await run_agent_loop(
        [user("hi")], context(), config(), events.append, None, producer
    )
    assert _deltas(events) == DELTAS
    updates = [e for e in events if e.type == "message_update"]
    assert len({id(e.message) for e in updates}) == len(updates)  # a copy per update
    assert text_of(messages[-1]) == "".join(DELTAS)
    kinds = [e.type for e in events]
    assert kinds.index("message_end", kinds.index("message_update")) > len(kinds) - 6
    assert producer.push_errors == []


async def test_an_async_sink_that_suspends_finishes_each_update_before_the_next() -> None:
    log: list[str] = []
    active = 0

    async def sink(event: Any) -> None:
        nonlocal active
        if event.type != "message_update":
            return
        active += 1
        assert active == 1, "two sink calls overlapped"
        kind = event.assistant_message_event.type
        log.append(f"begin {kind}")
        for _ in range(3):  # suspends: the rest runs in the loop's task
            await asyncio.sleep(0)
        log.append(f"end {kind}")
        active -= 1

    producer = TaskProducer()
    messages = await run_agent_loop([user("hi")], context(), config(), sink, None, producer)
    kinds = ["text_start", *["text_delta"] * len(DELTAS), "text_end"]
    assert log == [f"{edge} {k}" for k in kinds for edge in ("begin", "end")]
    assert text_of(messages[-1]) == "".join(DELTAS)
    assert producer.push_errors == []


async def test_a_sink_error_is_raised_by_the_loop_not_by_the_provider() -> None:
    class Boom(Exception):
        pass

    seen: list[str] = []

    def sink(event: Any) -> None:
        if event.type == "message_update" and event.assistant_message_event.type == "text_delta":
            seen.append(event.assistant_message_event.delta)
            if len(seen) == 2:
                raise Boom("sink failed")

    producer = TaskProducer()
    with pytest.raises(Boom):
        await run_agent_loop([user("hi")], context(), config(), sink, None, producer)
    assert seen == DELTAS[:2]  # nothing handled after the failing update
    await producer.finished.wait()
    assert producer.push_errors == []  # the provider never saw it


async def test_an_awaitable_that_is_not_a_coroutine_is_awaited_by_the_loop() -> None:
    loop = asyncio.get_running_loop()
    futures: list[asyncio.Future[None]] = []

    def sink(event: Any) -> Any:
        if event.type != "message_update":
            return None
        future: asyncio.Future[None] = loop.create_future()
        loop.call_soon(future.set_result, None)
        futures.append(future)
        return future

    producer = TaskProducer()
    await run_agent_loop([user("hi")], context(), config(), sink, None, producer)
    assert len(futures) == len(DELTAS) + 2
    assert all(f.done() for f in futures)


async def test_cancelling_the_loop_reaches_a_suspended_sink() -> None:
    entered = asyncio.Event()
    cancelled: list[str] = []

    async def sink(event: Any) -> None:
        if event.type == "message_update" and event.assistant_message_event.type == "text_delta":
            entered.set()
            try:
                await asyncio.Event().wait()  # never set
            except asyncio.CancelledError:
                cancelled.append(event.assistant_message_event.delta)
                raise

    producer = TaskProducer()
    run = asyncio.ensure_future(
        run_agent_loop([user("hi")], context(), config(), sink, None, producer)
    )
    await entered.wait()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert cancelled == [DELTAS[0]]
    assert producer.push_errors == []


async def test_a_consumer_that_does_not_set_direct_never_sees_a_handover() -> None:
    producer = TaskProducer()
    stream = producer(Model(id="m", api="x", provider="x"), None, StreamOptions())
    events = [event async for event in stream]
    assert not any(isinstance(e, Handover) for e in events)
    assert [e.type for e in events] == [
        "start", "text_start", *["text_delta"] * len(DELTAS), "text_end", "done",
    ]  # fmt: skip


def _python_swap_current_task(loop: Any, task: Any) -> Any:
    """3.12's ``asyncio.tasks._swap_current_task``, on 3.11's dict of current tasks."""
    current: dict[Any, Any] = asyncio.tasks._current_tasks  # type: ignore[attr-defined]
    previous = current.get(loop)
    if task is None:
        del current[loop]
    else:
        current[loop] = task
    return previous


def test_the_as_is_runs_use_this_pythons_own_task_switch() -> None:
    """The ``as_is`` runs below take the real path of the running CPython, which CI runs on
    3.11, 3.12 and 3.13 (.ci/python-versions.sh): C ``_swap_current_task`` from 3.12, the
    dict of current tasks on 3.11."""
    from pi_lsp.ai import event_stream

    if sys.version_info >= (3, 12):
        assert event_stream._swap_current_task is not None
        assert event_stream._swap_current_task is asyncio.tasks._swap_current_task  # type: ignore[attr-defined]
    else:
        assert event_stream._swap_current_task is None
        assert event_stream._current_tasks is asyncio.tasks._current_tasks  # type: ignore[attr-defined]


@pytest.fixture(params=["as_is", "swap"])
def task_switch(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both ways ``direct`` makes the loop's task current: this Python's, and the other one
    (3.12+ ``_swap_current_task`` on 3.11, emulated; the 3.11 dict elsewhere, if it exists)."""
    if request.param == "as_is":
        return
    from pi_lsp.ai import event_stream

    if event_stream._swap_current_task is None:
        monkeypatch.setattr(event_stream, "_swap_current_task", _python_swap_current_task)
    elif hasattr(asyncio.tasks, "_current_tasks") and sys.version_info < (3, 14):
        monkeypatch.setattr(event_stream, "_swap_current_task", None)
        monkeypatch.setattr(event_stream, "_current_tasks", asyncio.tasks._current_tasks)
    else:
        pytest.skip(optional("this Python keeps the current task elsewhere"))


@pytest.mark.usefixtures("task_switch")
async def test_a_sink_runs_as_the_loops_task_so_its_timeouts_and_task_groups_are_the_loops() -> (
    None
):
    tasks: set[asyncio.Task[Any] | None] = set()
    finished: list[str] = []

    async def sink(event: Any) -> None:
        if event.type != "message_update":
            return
        tasks.add(asyncio.current_task())
        async with asyncio.timeout(30):  # entered at push time, left after a suspension
            async with asyncio.TaskGroup() as group:
                group.create_task(asyncio.sleep(0))
            await asyncio.sleep(0)
            tasks.add(asyncio.current_task())
        finished.append(event.assistant_message_event.type)

    producer = TaskProducer()
    run = asyncio.ensure_future(
        run_agent_loop([user("hi")], context(), config(), sink, None, producer)
    )
    await run
    assert tasks == {run}  # never the producer's task
    assert len(finished) == len(DELTAS) + 2
    assert producer.push_errors == []


@pytest.mark.usefixtures("task_switch")
async def test_a_push_from_a_callback_runs_the_sink_as_the_loops_task_then_no_task() -> None:
    """A provider may push from a protocol callback (no task running): the sink still runs
    as the loop's task, and afterwards no task is current again."""
    tasks: list[asyncio.Task[Any] | None] = []
    after: list[asyncio.Task[Any] | None] = []
    loop = asyncio.get_running_loop()
    partial = AssistantMessage(api="x", provider="x", model="m")
    block = TextContent(text="")

    def sink(event: Any) -> None:
        if event.type == "message_update":
            tasks.append(asyncio.current_task())

    def stream_fn(model: Model, ctx: Any, options: StreamOptions) -> AssistantMessageEventStream:
        out = AssistantMessageEventStream()

        def push(event: Any) -> None:
            out.push(event)
            after.append(asyncio.tasks.current_task(loop))

        events: list[Any] = [StartEvent(partial), TextStartEvent(0, partial)]
        events += [TextDeltaEvent(0, delta, partial) for delta in DELTAS]
        events += [TextEndEvent(0, "".join(DELTAS), partial), DoneEvent("stop", partial)]

        def step() -> None:  # one callback per event, each in its own loop iteration
            event = events.pop(0)
            if event.type == "text_start":
                partial.content.append(block)
            elif event.type == "text_delta":
                append_to_field(block, "text", event.delta)
            push(event)
            if events:
                loop.call_soon(step)
            else:
                out.end(partial)

        loop.call_soon(step)
        return out

    run = asyncio.ensure_future(
        run_agent_loop([user("hi")], context(), config(), sink, None, stream_fn)
    )
    await run
    assert tasks == [run] * (len(DELTAS) + 2)
    assert after == [None] * (len(DELTAS) + 4)
