"""AgentEvent → pi/event wire snapshots (docs/protocol.md#3-server--client-notification-pievent):
deltas only, camelCase, whole messages."""

from __future__ import annotations

from dataclasses import dataclass

from pi_lsp.agent.types import (
    AgentEndEvent,
    AgentStartEvent,
    AgentToolResult,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    TurnEndEvent,
)
from pi_lsp.ai import (
    AssistantMessage,
    RetryInfo,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    ToolCall,
    ToolCallEndEvent,
    ToolResultMessage,
)
from pi_lsp.wire import event_wire


def _assistant() -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text="Hello")], provider="faux", model="faux-1", timestamp=1
    )


def test_message_update_has_delta_only() -> None:
    msg = _assistant()
    wire = event_wire(MessageUpdateEvent(msg, TextDeltaEvent(0, "lo", msg)))
    assert wire == {
        "type": "message_update",
        "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": "lo"},
    }
    end = event_wire(MessageUpdateEvent(msg, TextEndEvent(0, "Hello", msg)))
    assert end == {
        "type": "message_update",
        "assistantMessageEvent": {"type": "text_end", "contentIndex": 0},
    }


def test_toolcall_end_carries_the_parsed_call() -> None:
    msg = _assistant()
    call = ToolCall(id="c1", name="read", arguments={"path": "a.py"})
    wire = event_wire(MessageUpdateEvent(msg, ToolCallEndEvent(1, call, msg)))
    assert wire is not None
    assert wire["assistantMessageEvent"]["toolCall"] == {
        "type": "toolCall",
        "id": "c1",
        "name": "read",
        "arguments": {"path": "a.py"},
    }


def test_whole_messages_are_camel_case() -> None:
    msg = _assistant()
    start = event_wire(MessageStartEvent(msg))
    assert start is not None
    assert start["message"]["role"] == "assistant"
    assert start["message"]["stopReason"] == "stop"
    assert "usage" in start["message"]
    assert "totalTokens" in start["message"]["usage"]
    end = event_wire(MessageEndEvent(msg))
    assert end is not None
    assert end["message"]["content"] == [{"type": "text", "text": "Hello"}]


def test_tool_events_map_to_camel_case_wire_json() -> None:
    start = event_wire(ToolExecutionStartEvent("c1", "bash", {"command": "ls"}))
    assert start == {
        "type": "tool_execution_start",
        "toolCallId": "c1",
        "toolName": "bash",
        "args": {"command": "ls"},
    }

    @dataclass
    class Details:
        exit_code: int

    partial = AgentToolResult([TextContent(text="out")], details=Details(0))
    upd = event_wire(ToolExecutionUpdateEvent("c1", "bash", {}, partial))
    assert upd is not None
    assert upd["partialResult"] == {
        "content": [{"type": "text", "text": "out"}],
        "details": {"exit_code": 0},
    }
    end = event_wire(
        ToolExecutionEndEvent(
            "c1", "bash", AgentToolResult([TextContent(text="boom")], details={}), True
        )
    )
    assert end is not None
    assert end["isError"] is True
    assert end["result"] == {"content": [{"type": "text", "text": "boom"}], "details": {}}


def test_turn_and_agent_end() -> None:
    msg = _assistant()
    tr = ToolResultMessage(tool_call_id="c1", tool_name="read", content=[], timestamp=2)
    turn = event_wire(TurnEndEvent(msg, [tr]))
    assert turn is not None
    assert turn["toolResults"][0]["toolCallId"] == "c1"
    assert turn["toolResults"][0]["isError"] is False
    agent_end = event_wire(AgentEndEvent([msg, tr]))
    assert agent_end is not None
    assert len(agent_end["messages"]) == 2
    assert event_wire(AgentStartEvent()) == {"type": "agent_start"}


def test_retry_and_compaction() -> None:
    assert event_wire(RetryInfo(1, 250, "429 Too Many Requests")) == {
        "type": "retry",
        "attempt": 1,
        "delayMs": 250,
        "errorMessage": "429 Too Many Requests",
    }

    @dataclass
    class CompactionEnd:
        reason: str
        tokens_before: int
        tokens_after: int
        error_message: str | None = None
        type: str = "compaction_end"

    assert event_wire(CompactionEnd("manual", 100, 20)) == {
        "type": "compaction_end",
        "reason": "manual",
        "tokensBefore": 100,
        "tokensAfter": 20,
    }
