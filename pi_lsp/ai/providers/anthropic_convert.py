"""Request building for the Anthropic Messages API.

Messages (consecutive tool results merged into one user message; whitespace-only text
dropped; unsigned thinking sent as text, signed thinking and ``redacted_thinking`` replayed),
``cache_control`` breakpoints as pi places them (docs/reference/pi.md#prompt-caching: system
block(s), last tool, last block of a trailing user message; none for retention ``none``; ``ttl:
"1h"`` for
``long``), thinking (budget or adaptive, docs/reference/pi.md#thinking-levels), OAuth (Claude Code
identity) variants. Pure functions, no I/O. Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import os
import re
from typing import Any

from ..options import StreamOptions
from ..thinking import thinking_budget
from ..transform import transform_messages
from ..types import (
    AnthropicCompat,
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    TextContent,
    ThinkingContent,
    Tool,
    ToolResultMessage,
    UserContent,
    UserMessage,
)

CLAUDE_CODE_IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude."
IMAGE_ONLY_RESULT_TEXT = "(see attached image)"
_CLAUDE_CODE_TOOLS = (
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Grep",
    "Glob",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "KillShell",
    "NotebookEdit",
    "Skill",
    "Task",
    "TaskOutput",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
)
_CC_LOOKUP = {name.lower(): name for name in _CLAUDE_CODE_TOOLS}
_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_ADAPTIVE_IDS = ("opus-4-6", "opus-4.6", "sonnet-4-6", "sonnet-4.6")


def get_compat(model: Model) -> AnthropicCompat:
    return AnthropicCompat.model_validate(model.compat or {})


def is_oauth_token(key: str | None) -> bool:
    return bool(key) and "sk-ant-oat" in (key or "")


def normalize_tool_call_id(call_id: str) -> str:
    """Anthropic ids must match ``^[A-Za-z0-9_-]+$`` and be at most 64 characters."""
    return _ID_CHARS.sub("_", call_id)[:64]


def to_claude_code_name(name: str) -> str:
    return _CC_LOOKUP.get(name.lower(), name)


def from_claude_code_name(name: str, tools: list[Tool] | None) -> str:
    for tool in tools or []:
        if tool.name.lower() == name.lower():
            return tool.name
    return name


def cache_control(
    model: Model, options: StreamOptions, compat: AnthropicCompat
) -> dict[str, str] | None:
    """The breakpoint marker, or None when caching is off (retention ``none``)."""
    retention = options.cache_retention
    env = os.environ if options.env is None else options.env
    if retention == "short" and env.get("PI_CACHE_RETENTION") == "long":
        retention = "long"
    if retention == "none":
        return None
    long_ok = compat.supports_long_cache_retention
    if long_ok is None:
        long_ok = "api.anthropic.com" in model.base_url
    if retention == "long" and long_ok:
        return {"type": "ephemeral", "ttl": "1h"}
    return {"type": "ephemeral"}


def uses_adaptive_thinking(model: Model, compat: AnthropicCompat) -> bool:
    if compat.force_adaptive_thinking is not None:
        return compat.force_adaptive_thinking
    return any(marker in model.id for marker in _ADAPTIVE_IDS)


def _image(block: ImageContent) -> dict[str, Any]:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": block.mime_type, "data": block.data},
    }


def _result_content(content: list[UserContent]) -> str | list[dict[str, Any]]:
    if not any(isinstance(b, ImageContent) for b in content):
        return "\n".join(b.text for b in content if isinstance(b, TextContent))
    blocks = [
        {"type": "text", "text": b.text} if isinstance(b, TextContent) else _image(b)
        for b in content
    ]
    if not any(b["type"] == "text" for b in blocks):
        blocks.insert(0, {"type": "text", "text": IMAGE_ONLY_RESULT_TEXT})
    return blocks


def _user(message: UserMessage, model: Model) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        return {"role": "user", "content": message.content} if message.content.strip() else None
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text.strip():
                blocks.append({"type": "text", "text": block.text})
        elif "image" in model.input:
            blocks.append(_image(block))
    return {"role": "user", "content": blocks} if blocks else None


def _assistant(message: AssistantMessage, oauth: bool) -> dict[str, Any] | None:
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text.strip():
                blocks.append({"type": "text", "text": block.text})
        elif isinstance(block, ThinkingContent):
            signature = block.thinking_signature or ""
            if block.redacted:
                if signature:
                    blocks.append({"type": "redacted_thinking", "data": signature})
            elif signature.strip():
                blocks.append(
                    {"type": "thinking", "thinking": block.thinking, "signature": signature}
                )
            elif block.thinking.strip():
                blocks.append({"type": "text", "text": block.thinking})  # unsigned: plain text
        else:
            blocks.append(
                {
                    "type": "tool_use",
                    "id": block.id,
                    "name": to_claude_code_name(block.name) if oauth else block.name,
                    "input": block.arguments,
                }
            )
    return {"role": "assistant", "content": blocks} if blocks else None


def convert_messages(
    model: Model, context: Context, *, oauth: bool, cache: dict[str, str] | None
) -> list[dict[str, Any]]:
    """The ``messages`` array, with the moving cache breakpoint on the trailing user message."""
    messages = transform_messages(context.messages, model, normalize_tool_call_id)
    out: list[dict[str, Any]] = []
    i = 0
    while i < len(messages):
        message = messages[i]
        converted: dict[str, Any] | None
        if isinstance(message, UserMessage):
            converted = _user(message, model)
            i += 1
        elif isinstance(message, AssistantMessage):
            converted = _assistant(message, oauth)
            i += 1
        else:
            results: list[dict[str, Any]] = []
            while i < len(messages) and isinstance(messages[i], ToolResultMessage):
                result = messages[i]
                assert isinstance(result, ToolResultMessage)
                results.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": result.tool_call_id,
                        "content": _result_content(result.content),
                        "is_error": result.is_error,
                    }
                )
                i += 1
            converted = {"role": "user", "content": results}
        if converted is not None:
            out.append(converted)
    if cache is not None and out and out[-1]["role"] == "user":
        last = out[-1]
        if isinstance(last["content"], str):
            last["content"] = [{"type": "text", "text": last["content"], "cache_control": cache}]
        elif last["content"]:
            last["content"][-1]["cache_control"] = cache
    return out


def convert_tools(
    tools: list[Tool], *, oauth: bool, cache: dict[str, str] | None, compat: AnthropicCompat
) -> list[dict[str, Any]]:
    converted: list[dict[str, Any]] = []
    for tool in tools:
        schema = dict(tool.parameters)
        schema["type"] = "object"
        schema.setdefault("properties", {})
        converted.append(
            {
                "name": to_claude_code_name(tool.name) if oauth else tool.name,
                "description": tool.description,
                "input_schema": schema,
            }
        )
    if cache is not None and converted and compat.supports_cache_control_on_tools:
        converted[-1]["cache_control"] = cache
    return converted


def _effort(model: Model, level: str) -> str:
    mapped = (model.thinking_level_map or {}).get(level)
    if mapped:
        return mapped
    return {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}.get(level, "high")


def build_params(
    model: Model, context: Context, options: StreamOptions, *, oauth: bool
) -> dict[str, Any]:
    """The whole request body."""
    compat = get_compat(model)
    cache = cache_control(model, options, compat)
    params: dict[str, Any] = {
        "model": model.id,
        "messages": convert_messages(model, context, oauth=oauth, cache=cache),
        "max_tokens": options.max_tokens or model.max_tokens,
        "stream": True,
    }
    system: list[dict[str, Any]] = []
    if oauth:
        system.append({"type": "text", "text": CLAUDE_CODE_IDENTITY})
    if context.system_prompt:
        system.append({"type": "text", "text": context.system_prompt})
    if cache is not None:
        for block in system:
            block["cache_control"] = cache
    if system:
        params["system"] = system
    if context.tools:
        params["tools"] = convert_tools(context.tools, oauth=oauth, cache=cache, compat=compat)
    thinking = options.reasoning is not None and model.reasoning
    if thinking and options.reasoning is not None:
        if uses_adaptive_thinking(model, compat):
            params["thinking"] = {"type": "adaptive", "display": "summarized"}
            params["output_config"] = {"effort": _effort(model, options.reasoning)}
        else:
            max_tokens, budget = thinking_budget(
                options.reasoning, model.max_tokens, options.max_tokens, options.thinking_budgets
            )
            params["max_tokens"] = max_tokens
            params["thinking"] = {"type": "enabled", "budget_tokens": budget or 1024}
    if options.temperature is not None and not thinking and compat.supports_temperature:
        params["temperature"] = options.temperature
    return params
