"""Request building for OpenAI Chat Completions (and every OpenAI-compatible server).

Turns a ``Context`` into the JSON body: system/developer prompt, user text and images (data
URLs), assistant text + ``tool_calls`` (+ replayed reasoning per compat), tool results as
``role: tool`` messages (their images follow in one user message), tools, max tokens and
reasoning effort, all steered by ``OpenAICompat``. Pure functions, no I/O.
Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..options import StreamOptions
from ..thinking import clamp_thinking_level
from ..transform import transform_messages
from ..types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    OpenAICompat,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserContent,
    UserMessage,
)

TOOL_RESULT_IMAGES_TEXT = "Attached image(s) from tool result:"
IMAGE_ONLY_RESULT_TEXT = "(see attached image)"
ASSISTANT_BRIDGE_TEXT = "I have processed the tool results."
_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def get_compat(model: Model) -> OpenAICompat:
    """The model's compat switches (camelCase or snake_case keys), defaults elsewhere."""
    return OpenAICompat.model_validate(model.compat or {})


def normalize_tool_call_id(model: Model, call_id: str) -> str:
    """Ids from other APIs: ``call|item`` pairs keep the call part; OpenAI caps ids at 40."""
    if "|" in call_id:
        return _ID_CHARS.sub("_", call_id.split("|", 1)[0])[:40]
    if model.provider == "openai" and len(call_id) > 40:
        return call_id[:40]
    return call_id


def _data_url(image: ImageContent) -> dict[str, Any]:
    url = f"data:{image.mime_type};base64,{image.data}"
    return {"type": "image_url", "image_url": {"url": url}}


def _user_content(content: str | list[UserContent], model: Model) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    with_images = "image" in model.input and any(isinstance(b, ImageContent) for b in content)
    if not with_images:
        return "\n".join(b.text for b in content if isinstance(b, TextContent))
    parts: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, TextContent):
            parts.append({"type": "text", "text": block.text})
        else:
            parts.append(_data_url(block))
    return parts


def _assistant(message: AssistantMessage, compat: OpenAICompat) -> dict[str, Any] | None:
    out: dict[str, Any] = {"role": "assistant", "content": None}
    texts = [b.text for b in message.content if isinstance(b, TextContent) and b.text.strip()]
    text: str | None = "".join(texts) if texts else None
    thinking = [b for b in message.content if isinstance(b, ThinkingContent) and b.thinking.strip()]
    if thinking:
        joined = "\n\n".join(b.thinking for b in thinking)
        if compat.requires_thinking_as_text:
            text = joined if text is None else f"{joined}\n\n{text}"
        elif thinking[0].thinking_signature:
            # the field it streamed in (reasoning_content / reasoning / reasoning_text)
            out[thinking[0].thinking_signature] = "\n".join(b.thinking for b in thinking)
    calls = [b for b in message.content if isinstance(b, ToolCall)]
    if calls:
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": json.dumps(call.arguments, ensure_ascii=False),
                },
            }
            for call in calls
        ]
    if text is None and not calls:
        return None  # empty (e.g. aborted before any content): providers reject it
    out["content"] = (
        text if text is not None else ("" if compat.requires_assistant_after_tool_result else None)
    )
    return out


def _tool_result(message: ToolResultMessage, compat: OpenAICompat) -> dict[str, Any]:
    text = "\n".join(b.text for b in message.content if isinstance(b, TextContent))
    has_images = any(isinstance(b, ImageContent) for b in message.content)
    out: dict[str, Any] = {
        "role": "tool",
        "tool_call_id": message.tool_call_id,
        "content": text if text or not has_images else IMAGE_ONLY_RESULT_TEXT,
    }
    if compat.requires_tool_result_name and message.tool_name:
        out["name"] = message.tool_name
    return out


def convert_messages(model: Model, context: Context, compat: OpenAICompat) -> list[dict[str, Any]]:
    """The ``messages`` array (after ``transform_messages``)."""
    out: list[dict[str, Any]] = []
    if context.system_prompt:
        role = "developer" if model.reasoning and compat.supports_developer_role else "system"
        out.append({"role": role, "content": context.system_prompt})
    messages = transform_messages(
        context.messages, model, lambda call_id: normalize_tool_call_id(model, call_id)
    )
    last_role: str | None = None
    i = 0
    while i < len(messages):
        message = messages[i]
        if isinstance(message, UserMessage):
            if compat.requires_assistant_after_tool_result and last_role == "toolResult":
                out.append({"role": "assistant", "content": ASSISTANT_BRIDGE_TEXT})
            content = _user_content(message.content, model)
            if content:
                out.append({"role": "user", "content": content})
            last_role = "user"
            i += 1
        elif isinstance(message, AssistantMessage):
            converted = _assistant(message, compat)
            if converted is not None:
                out.append(converted)
            last_role = "assistant"
            i += 1
        else:
            images: list[dict[str, Any]] = []
            while i < len(messages) and isinstance(messages[i], ToolResultMessage):
                result = messages[i]
                assert isinstance(result, ToolResultMessage)
                out.append(_tool_result(result, compat))
                if "image" in model.input:
                    images += [_data_url(b) for b in result.content if isinstance(b, ImageContent)]
                i += 1
            last_role = "toolResult"
            if images:
                if compat.requires_assistant_after_tool_result:
                    out.append({"role": "assistant", "content": ASSISTANT_BRIDGE_TEXT})
                out.append(
                    {
                        "role": "user",
                        "content": [{"type": "text", "text": TOOL_RESULT_IMAGES_TEXT}, *images],
                    }
                )
                last_role = "user"
    return out


def convert_tools(tools: list[Tool], compat: OpenAICompat) -> list[dict[str, Any]]:
    converted = []
    for tool in tools:
        function: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        }
        if compat.supports_strict_mode:
            function["strict"] = False
        converted.append({"type": "function", "function": function})
    return converted


def reasoning_effort(model: Model, options: StreamOptions) -> str | None:
    """The effort string for ``options.reasoning``, or None when thinking is off or
    unsupported. A level the model does not support is clamped first (o3 has no
    ``minimal``: it gets ``low``); the model's map then names the value."""
    if options.reasoning is None or not model.reasoning:
        return None
    level = clamp_thinking_level(model, options.reasoning)
    if level == "off":
        return None
    mapped = (model.thinking_level_map or {}).get(level)
    return mapped or level


def build_params(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    """The whole request body."""
    compat = get_compat(model)
    params: dict[str, Any] = {
        "model": model.id,
        "messages": convert_messages(model, context, compat),
        "stream": True,
    }
    if compat.supports_usage_in_streaming:
        params["stream_options"] = {"include_usage": True}
    if compat.supports_store:
        params["store"] = False
    if options.max_tokens:
        params[compat.max_tokens_field] = options.max_tokens
    if options.temperature is not None:
        params["temperature"] = options.temperature
    if context.tools:
        params["tools"] = convert_tools(context.tools, compat)
    effort = reasoning_effort(model, options) if compat.supports_reasoning_effort else None
    if effort is not None:
        if compat.thinking_format == "openrouter":
            params["reasoning"] = {"effort": effort}
        else:
            params["reasoning_effort"] = effort
    return params
