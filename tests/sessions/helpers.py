"""Message builders shared by the session tests."""

from __future__ import annotations

from typing import Any

from pi_lsp.ai import (
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

_calls = 0


def user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)])


def assistant(
    text: str = "ok",
    *,
    calls: list[tuple[str, dict[str, Any]]] | None = None,
    tokens: int = 0,
    stop_reason: Any = None,
    error: str | None = None,
    provider: str = "faux",
    model: str = "faux-1",
) -> AssistantMessage:
    global _calls
    content: list[Any] = [TextContent(text=text)] if text else []
    for name, args in calls or []:
        _calls += 1
        content.append(ToolCall(id=f"call_{_calls}", name=name, arguments=args))
    reason = stop_reason or ("toolUse" if calls else "stop")
    if error:
        reason = "error"
    return AssistantMessage(
        content=content,
        api="faux",
        provider=provider,
        model=model,
        usage=Usage(input=tokens, total_tokens=tokens),
        stop_reason=reason,
        error_message=error,
    )


def tool_result(call: AssistantMessage, text: str, index: int = 0) -> ToolResultMessage:
    tool_calls = [b for b in call.content if isinstance(b, ToolCall)]
    tc = tool_calls[index]
    return ToolResultMessage(
        tool_call_id=tc.id, tool_name=tc.name, content=[TextContent(text=text)]
    )


def chars(n: int, ch: str = "x") -> str:
    """A text of ``n`` characters (``n // 4`` estimated tokens)."""
    return ch * n
