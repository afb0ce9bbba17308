"""AgentSession over a real Agent and the faux provider: persistence, resume, compaction
(threshold, overflow → one retry, item 91), manual compaction, busy/abort, retries (92, 93)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel

from pi_lsp.agent import Agent, AgentBusyError, AgentTool, AgentToolResult
from pi_lsp.agent.messages import CompactionSummaryMessage
from pi_lsp.ai import AbortSignal, TextContent, Usage
from pi_lsp.ai.providers.faux import FAUX_MODEL, FauxProvider, FauxResponse
from pi_lsp.sessions import (
    OVERFLOW_RECOVERY_FAILED,
    CompactionEndEvent,
    CompactionSettings,
    SessionStore,
)
from pi_lsp.sessions.agent_session import AgentSession, RetrySettings

OVERFLOW = "prompt is too long: 213462 tokens > 200000 maximum"


class EchoParams(BaseModel):
    text: str


class EchoTool(AgentTool[EchoParams]):
    name: ClassVar[str] = "echo"
    label: ClassVar[str] = "Echo"
    description: ClassVar[str] = "Echo the text back."
    parameters: ClassVar[type[BaseModel]] = EchoParams

    async def execute(
        self,
        tool_call_id: str,
        params: EchoParams,
        signal: AbortSignal | None = None,
        on_update: Any = None,
    ) -> AgentToolResult:
        return AgentToolResult(content=[TextContent(text=f"echo: {params.text}")])


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "sessions", tmp_path)


def make(faux: FauxProvider, store: SessionStore, **kw: Any) -> tuple[AgentSession, list[Any]]:
    model = kw.pop("model", FAUX_MODEL)
    agent = Agent(model=model, tools=[EchoTool()], stream_fn=faux.stream)
    session = AgentSession(agent, store.create(), **kw)
    events: list[Any] = []
    session.subscribe(events.append)
    return session, events


def records(session: AgentSession) -> list[dict[str, Any]]:
    assert session.file is not None
    return [json.loads(x) for x in session.file.path.read_text().splitlines()]


def of_type(events: list[Any], kind: str) -> list[Any]:
    return [e for e in events if e.type == kind]


# ------------------------------------------------------------------ persistence and resume


async def test_every_message_end_is_on_disk_before_listeners_see_it(
    store: SessionStore,
) -> None:
    faux = FauxProvider(
        [
            FauxResponse.tool_calls(("echo", {"text": "hi"}), text="Echoing."),
            FauxResponse.text("Done."),
        ]
    )
    session, _ = make(faux, store)
    seen_on_disk: list[bool] = []

    def check(event: Any) -> None:
        if event.type == "message_end":
            assert session.file is not None
            seen_on_disk.append(session.file.path.read_text().count('"type":"message"') > 0)
            last = json.loads(session.file.path.read_text().splitlines()[-1])
            assert last["message"]["role"] == event.message.role

    session.subscribe(check)
    await session.prompt("say hi")
    assert seen_on_disk == [True] * 4
    recs = records(session)
    assert [r["type"] for r in recs] == [
        "session",
        "model_change",
        "message",
        "message",
        "message",
        "message",
    ]
    assert [r["message"]["role"] for r in recs[2:]] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    assert recs[1] == {**recs[1], "provider": "faux", "modelId": "faux-1"}


async def test_resume_restores_messages_model_thinking_and_sends_history(
    store: SessionStore,
) -> None:
    faux = FauxProvider([FauxResponse.text("first answer")])
    other = FAUX_MODEL.model_copy(update={"id": "faux-2", "reasoning": True})
    agent = Agent(model=other, stream_fn=faux.stream, thinking_level="high")
    session = AgentSession(agent, store.create())
    await session.prompt("remember 42")
    session_id = session.session_id

    faux2 = FauxProvider([FauxResponse.text("it was 42")])
    fresh = Agent(model=FAUX_MODEL, stream_fn=faux2.stream)
    resumed = AgentSession.resume(
        fresh,
        store.open(session_id),
        resolve_model=lambda provider, model_id: other if model_id == "faux-2" else None,
    )
    assert resumed.session_id == session_id
    assert [m.role for m in fresh.state.messages] == ["user", "assistant"]
    assert fresh.state.model.id == "faux-2"
    assert fresh.state.thinking_level == "high"
    await resumed.prompt("what was it?")
    sent = faux2.calls[0].messages
    assert [m.role for m in sent] == ["user", "assistant", "user"]
    assert sent[0].content[0].text == "remember 42"
    again = store.open(session_id).build_context()
    assert len(again.messages) == 4
    assert (again.model_id, again.thinking_level) == ("faux-2", "high")


async def test_model_and_thinking_changes_become_entries(store: SessionStore) -> None:
    faux = FauxProvider([FauxResponse.text("a"), FauxResponse.text("b")])
    session, _ = make(faux, store)
    await session.prompt("one")
    session.set_thinking_level("low")
    session.agent.state.model = FAUX_MODEL.model_copy(update={"id": "faux-3"})
    await session.prompt("two")
    types = [(r["type"], r.get("modelId") or r.get("thinkingLevel")) for r in records(session)]
    assert ("thinking_level_change", "low") in types
    assert ("model_change", "faux-3") in types
    assert types.index(("model_change", "faux-3")) < len(types) - 2  # before the 2nd prompt
    with pytest.raises(ValueError, match="Unknown thinking level"):
        session.set_thinking_level("extreme")


async def test_busy_prompt_and_abort(store: SessionStore) -> None:
    gate = asyncio.Event()

    async def slow(context: Any, options: Any) -> FauxResponse:
        gate.set()
        return FauxResponse.text("a long answer " * 50, delay_ms=20)

    faux = FauxProvider([slow])
    session, events = make(faux, store)
    task = session.prompt("go")
    assert session.is_running
    with pytest.raises(AgentBusyError):
        session.prompt("again")
    await gate.wait()
    session.abort()
    await session.wait_for_idle()
    assert task.done()
    assert not session.is_running
    last = session.agent.state.messages[-1]
    assert last.role == "assistant"
    assert last.stop_reason == "aborted"
    assert records(session)[-1]["message"]["stopReason"] == "aborted"
    assert of_type(events, "compaction_start") == []


# ------------------------------------------------------------------ compaction


async def test_threshold_compaction_after_a_run(store: SessionStore) -> None:
    small = FAUX_MODEL.model_copy(update={"context_window": 20_000})
    faux = FauxProvider(
        [
            FauxResponse.text("early answer " + "e" * 400),
            FauxResponse.text("big answer", usage=Usage(input=5000)),
            FauxResponse.text("SUMMARY OF EARLY WORK"),
        ]
    )
    session, events = make(
        faux, store, model=small, compaction=CompactionSettings(keep_recent_tokens=12)
    )
    await session.prompt("early question " + "q" * 400)
    assert of_type(events, "compaction_start") == []  # 4 tokens-ish: under the threshold
    await session.prompt("second question, long enough to be kept")
    starts, ends = of_type(events, "compaction_start"), of_type(events, "compaction_end")
    assert [e.reason for e in starts] == ["threshold"]
    end: CompactionEndEvent = ends[0]
    assert (end.reason, end.will_retry, end.error_message) == ("threshold", False, None)
    assert end.tokens_before is not None
    assert end.tokens_after is not None
    assert end.tokens_after < end.tokens_before
    messages = session.agent.state.messages
    assert isinstance(messages[0], CompactionSummaryMessage)
    assert messages[0].summary == "SUMMARY OF EARLY WORK"
    assert [m.role for m in messages[1:]] == ["user", "assistant"]
    assert faux.remaining == 0  # no continue after a threshold compaction
    assert records(session)[-1]["type"] == "compaction"
    # the summary reached the next request as a user message with Pi's prefix
    faux.push(FauxResponse.text("ok"))
    await session.prompt("third")
    sent = faux.calls[-1].messages[0]
    assert sent.role == "user"
    assert sent.content[0].text.startswith(
        "The conversation history before this point was compacted into the following "
        "summary:\n\n<summary>\nSUMMARY OF EARLY WORK"
    )


async def test_item91_overflow_compacts_and_retries_exactly_once(store: SessionStore) -> None:
    faux = FauxProvider(
        [
            FauxResponse.text("hello there " + "h" * 200),
            FauxResponse.error(OVERFLOW),
            FauxResponse.text("SUMMARY"),
            FauxResponse.text("the answer"),
        ]
    )
    session, events = make(faux, store, compaction=CompactionSettings(keep_recent_tokens=10))
    await session.prompt("hello " + "x" * 200)
    await session.prompt("the real question, which is long enough to be kept")
    ends = of_type(events, "compaction_end")
    assert [(e.reason, e.will_retry, e.error_message) for e in ends] == [("overflow", True, None)]
    assert faux.remaining == 0
    assert "<conversation>" in faux.calls[2].messages[0].content[0].text
    retry_context = faux.calls[3].messages
    assert retry_context[0].content[0].text.startswith("The conversation history")
    assert [m.role for m in retry_context] == ["user", "user"]  # summary + the question
    state = session.agent.state.messages
    assert [m.role for m in state] == ["compactionSummary", "user", "assistant"]
    assert state[-1].content[0].text == "the answer"
    # the failed reply stays in the file for history
    stops = [r["message"].get("stopReason") for r in records(session) if r["type"] == "message"]
    assert "error" in stops
    assert len(of_type(events, "agent_start")) == 3  # prompt, prompt, the one retry


async def test_item91_second_overflow_reports_recovery_failure(store: SessionStore) -> None:
    faux = FauxProvider(
        [
            FauxResponse.text("hello there " + "h" * 200),
            FauxResponse.error(OVERFLOW),
            FauxResponse.text("SUMMARY"),
            FauxResponse.error("Your input exceeds the context window of this model"),
        ]
    )
    session, events = make(faux, store, compaction=CompactionSettings(keep_recent_tokens=10))
    await session.prompt("hello " + "x" * 200)
    await session.prompt("the real question, which is long enough to be kept")
    ends = of_type(events, "compaction_end")
    assert [(e.reason, e.will_retry) for e in ends] == [("overflow", True), ("overflow", False)]
    assert ends[-1].error_message == (
        "Context overflow recovery failed after one compact-and-retry attempt. "
        "Try reducing context or switching to a larger-context model."
    )
    assert ends[-1].error_message == OVERFLOW_RECOVERY_FAILED
    assert faux.remaining == 0  # no second retry
    assert len(of_type(events, "agent_start")) == 3


async def test_rate_limit_text_is_not_an_overflow(store: SessionStore) -> None:
    faux = FauxProvider(
        [FauxResponse.error("ThrottlingException: Too many tokens, rate limit exceeded")]
    )
    session, events = make(faux, store)
    await session.prompt("hi")
    assert of_type(events, "compaction_start") == []


async def test_manual_compaction_replaces_old_messages_with_the_summary(
    store: SessionStore,
) -> None:
    faux = FauxProvider(
        [
            FauxResponse.text("one " + "o" * 400),
            FauxResponse.text("two"),
            FauxResponse.text("MANUAL SUMMARY"),
        ]
    )
    session, events = make(faux, store, compaction=CompactionSettings(keep_recent_tokens=8))
    assert await session.compact() is None  # nothing yet
    await session.prompt("first " + "f" * 400)
    await session.prompt("second question that is kept")
    result = await session.compact(custom_instructions="keep numbers")
    assert result is not None
    assert result.summary == "MANUAL SUMMARY"
    assert result.estimated_tokens_after is not None
    assert "Additional focus: keep numbers" in faux.calls[-1].messages[0].content[0].text
    assert [(e.type, e.reason) for e in events if e.type.startswith("compaction")] == [
        ("compaction_start", "manual"),
        ("compaction_end", "manual"),
    ]
    assert await session.compact() is None  # already compacted


async def test_manual_compaction_failure_raises_and_reports(store: SessionStore) -> None:
    from pi_lsp.sessions import CompactionError

    faux = FauxProvider(
        [
            FauxResponse.text("one " + "o" * 400),
            FauxResponse.text("two"),
            FauxResponse.error("boom"),
        ]
    )
    session, events = make(faux, store, compaction=CompactionSettings(keep_recent_tokens=10))
    await session.prompt("first " + "f" * 400)
    await session.prompt("second question that is kept")
    with pytest.raises(CompactionError, match="Summarization failed: boom"):
        await session.compact()
    assert of_type(events, "compaction_end")[-1].error_message == (
        "Compaction failed: Summarization failed: boom"
    )


# ------------------------------------------------------------------ retries (92, 93)


class RecordingSleep:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float, signal: AbortSignal) -> None:
        self.delays.append(seconds)


async def test_item92_retry_delays_and_success(store: SessionStore) -> None:
    sleep = RecordingSleep()
    faux = FauxProvider(
        [FauxResponse.error("529 overloaded_error")] * 3 + [FauxResponse.text("finally")]
    )
    session, events = make(faux, store, retry=RetrySettings(enabled=True), sleep=sleep)
    await session.prompt("hi")
    assert sleep.delays == [2.0, 4.0, 8.0]
    starts = of_type(events, "auto_retry_start")
    assert [(s.attempt, s.max_attempts, s.delay_ms) for s in starts] == [
        (1, 3, 2000),
        (2, 3, 4000),
        (3, 3, 8000),
    ]
    assert starts[0].error_message == "529 overloaded_error"
    end = of_type(events, "auto_retry_end")
    assert [(e.success, e.attempt) for e in end] == [(True, 3)]
    assert [m.role for m in session.agent.state.messages] == ["user", "assistant"]
    assert session.agent.state.messages[-1].content[0].text == "finally"


async def test_item92_gives_up_after_three_attempts(store: SessionStore) -> None:
    sleep = RecordingSleep()
    faux = FauxProvider([FauxResponse.error("503 service unavailable")] * 4)
    session, events = make(faux, store, retry=RetrySettings(enabled=True), sleep=sleep)
    await session.prompt("hi")
    assert len(of_type(events, "auto_retry_start")) == 3
    end = of_type(events, "auto_retry_end")
    assert [(e.success, e.attempt, e.final_error) for e in end] == [
        (False, 3, "503 service unavailable")
    ]
    assert faux.remaining == 0


async def test_item93_quota_errors_are_not_retried(store: SessionStore) -> None:
    sleep = RecordingSleep()
    faux = FauxProvider([FauxResponse.error("429 insufficient_quota: check your billing")])
    session, events = make(faux, store, retry=RetrySettings(enabled=True), sleep=sleep)
    await session.prompt("hi")
    assert of_type(events, "auto_retry_start") == []
    assert sleep.delays == []


async def test_session_retry_is_off_by_default(store: SessionStore) -> None:
    faux = FauxProvider([FauxResponse.error("529 overloaded_error")])
    session, events = make(faux, store)
    await session.prompt("hi")
    assert of_type(events, "auto_retry_start") == []


async def test_without_a_file_nothing_is_written(tmp_path: Path) -> None:
    faux = FauxProvider([FauxResponse.text("a")])
    session = AgentSession(Agent(model=FAUX_MODEL, stream_fn=faux.stream), None)
    await session.prompt("hi")
    assert session.file is None
    assert len(session.tree.entries) == 3  # model_change, user, assistant (in memory)
    assert list(tmp_path.iterdir()) == []


async def test_an_aborted_oversized_reply_compacts_before_the_next_prompt(
    store: SessionStore,
) -> None:
    small = FAUX_MODEL.model_copy(update={"context_window": 20_000})
    gate = asyncio.Event()

    async def slow(context: Any, options: Any) -> FauxResponse:
        gate.set()
        return FauxResponse.text("z" * 2000, usage=Usage(input=5000), delay_ms=20)

    faux = FauxProvider(
        [
            FauxResponse.text("early answer " + "e" * 400),
            slow,
            FauxResponse.text("SUMMARY BEFORE PROMPT"),
            FauxResponse.text("fresh answer"),
        ]
    )
    session, events = make(
        faux, store, model=small, compaction=CompactionSettings(keep_recent_tokens=8)
    )
    await session.prompt("early question " + "q" * 400)
    task = session.prompt("a question that gets aborted")
    await gate.wait()
    session.abort()
    await task
    assert of_type(events, "compaction_start") == []  # the post-run check skips aborts
    await session.prompt("next")
    assert [e.reason for e in of_type(events, "compaction_start")] == ["threshold"]
    assert "<conversation>" in faux.calls[2].messages[0].content[0].text
    assert faux.calls[3].messages[0].content[0].text.startswith("The conversation history")
    assert session.agent.state.messages[-1].content[0].text == "fresh answer"


async def test_a_failing_disk_never_breaks_the_run_and_nothing_is_lost_after(
    tmp_path: Path,
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the session directory should be")
    store = SessionStore(blocked / "sessions", tmp_path)
    faux = FauxProvider([FauxResponse.text("first"), FauxResponse.text("second")])
    session, events = make(faux, store)
    await session.prompt("one")
    assert session.persist_error is not None
    assert "Could not write the session file" in session.persist_error
    assert [e.type for e in events].count("message_end") == 2  # events still flowed
    saves = of_type(events, "session_save")
    assert [(e.ok, e.error_message) for e in saves] == [(False, session.persist_error)]
    blocked.unlink()  # the disk comes back
    await session.prompt("two")
    await asyncio.sleep(0)  # the event is emitted from the synchronous write path
    assert session.persist_error is None
    assert [e.ok for e in of_type(events, "session_save")] == [False, True]
    assert session.file is not None
    roles = [m.role for m in store.open(session.session_id).build_context().messages]
    assert roles == ["user", "assistant", "user", "assistant"]
