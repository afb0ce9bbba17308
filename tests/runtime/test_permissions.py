"""The bash permission rules every front end uses (``runtime/permissions.py``), with a
scripted ``Ask`` standing for the front end: what is decided without asking, what an answer
leaves behind, and that a failing prompt is a denial."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pi_lsp.agent import AgentContext
from pi_lsp.agent.types import BeforeToolCallContext
from pi_lsp.ai import AbortSignal, AssistantMessage, ToolCall
from pi_lsp.runtime.permissions import (
    DENIED,
    DENIED_BY_SETTING,
    Answer,
    BashRules,
    Question,
)
from pi_lsp.security.rules import RuleStore


def ctx(command: str, call_id: str = "c1", name: str = "bash") -> BeforeToolCallContext:
    call = ToolCall(id=call_id, name=name, arguments={"command": command})
    return BeforeToolCallContext(
        assistant_message=AssistantMessage(content=[call]),
        tool_call=call,
        args=None,
        context=AgentContext(system_prompt="", messages=[]),
    )


class Script:
    """The front end's ``Ask``: the answers it gives, the questions it saw."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.asked: list[Question] = []

    async def __call__(self, question: Question, signal: AbortSignal | None) -> Answer:
        self.asked.append(question)
        return self.answers.pop(0)


async def test_the_mode_decides_before_any_question(tmp_path: Path) -> None:
    ask = Script()
    deny = BashRules(ask=ask, mode=lambda: "deny")
    result = await deny.before_tool_call(ctx("ls"), None)
    assert result is not None
    assert result.block
    assert result.reason == DENIED_BY_SETTING
    assert await BashRules(ask=ask, mode=lambda: "allow").before_tool_call(ctx("ls"), None) is None
    assert await deny.before_tool_call(ctx("ls", name="read"), None) is None  # only bash
    assert ask.asked == []


async def test_a_question_offers_every_option_and_an_always_sticks(tmp_path: Path) -> None:
    store = RuleStore(tmp_path / "rules.json", str(tmp_path))
    ask = Script(Answer("allowAlways"))
    rules = BashRules(ask=ask, rules=store)
    assert await rules.before_tool_call(ctx("pytest -x"), None) is None
    (question,) = ask.asked
    assert question.tool == "bash"
    assert question.detail == "pytest -x"
    assert [o.kind for o in question.options] == [
        "allowOnce",
        "allowSession",
        "allowAlways",
        "deny",
        "denySession",
    ]
    assert question.patterns
    assert store.allows("bash", "pytest -q")
    assert await rules.before_tool_call(ctx("pytest -q"), None) is None  # not asked again
    assert len(ask.asked) == 1


async def test_a_denial_for_the_session_blocks_later_commands_without_asking() -> None:
    ask = Script(Answer("denySession"))
    rules = BashRules(ask=ask)
    first = await rules.before_tool_call(ctx("pytest -x"), None)
    later = await rules.before_tool_call(ctx("pytest -q", "c2"), None)
    assert first is not None
    assert first.reason == DENIED
    assert later is not None
    assert later.block
    assert later.reason == DENIED
    assert len(ask.asked) == 1


async def test_a_reason_reaches_the_model_and_a_failing_prompt_is_a_denial() -> None:
    rules = BashRules(ask=Script(Answer("deny", "use make")))
    said = await rules.before_tool_call(ctx("rm -rf build"), None)
    assert said is not None
    assert said.reason == f"{DENIED} The user said: use make"

    async def broken(question: Question, signal: Any) -> Answer:
        raise ConnectionError("client gone")

    failed = await BashRules(ask=broken).before_tool_call(ctx("ls"), None)
    assert failed is not None
    assert failed.block
    assert failed.reason == DENIED


async def test_one_at_a_time_a_waiting_command_sees_an_answer_for_every_call() -> None:
    gate, waiting = asyncio.Event(), asyncio.Event()
    asked: list[str] = []

    async def ask(question: Question, signal: Any) -> Answer:
        asked.append(question.detail)
        waiting.set()
        await gate.wait()
        return Answer("allowSession", every_call=True)

    rules = BashRules(ask=ask, one_at_a_time=True)
    first = asyncio.ensure_future(rules.before_tool_call(ctx("make"), None))
    second = asyncio.ensure_future(rules.before_tool_call(ctx("make test", "c2"), None))
    await waiting.wait()
    assert rules.pending_list() == [{"toolCallId": "c1", "tool": "bash", "title": "Run: make"}]
    gate.set()
    assert await first is None
    assert await second is None
    assert asked == ["make"]
    assert rules.pending_list() == []
