"""Request building for the OpenAI Responses API (``POST …/responses``).

Turns a ``Context`` into the JSON body (docs/reference/pi.md#openai-responses): ``input``
items (user text and images; assistant ``message`` items with their ids; ``function_call`` /
``function_call_output``; replayed ``reasoning`` items verbatim, ``encrypted_content``
included; an item without it is never replayed), the system prompt as a ``developer``
(reasoning models) or ``system`` message, flat function tools, ``max_output_tokens``,
``reasoning {effort, summary}``, ``store: false`` with ``include:
["reasoning.encrypted_content"]`` for every reasoning model (thinking off too), and
``prompt_cache_key`` from the session id. Tool-call ids are ``call_id|item_id`` pairs;
calls made through another provider or API are replayed with a hashed item id or none
(Pi's rules). Pure functions, no I/O. Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import json
from typing import Any

from ..options import StreamOptions
from ..thinking import clamp_thinking_level
from ..transform import transform_messages
from ..types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    OpenAIResponsesCompat,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from ._ids import sanitize_id, short_hash

MAX_ID_LENGTH = 64
PROMPT_CACHE_KEY_MAX_LENGTH = 64
IMAGE_ONLY_RESULT_TEXT = "(see attached image)"
OPENAI_TOOL_CALL_PROVIDERS = frozenset({"openai", "openai-codex", "opencode"})
"""Providers whose Responses ids keep their ``|item`` part when replayed (Pi's set)."""


def get_compat(model: Model) -> OpenAIResponsesCompat:
    return OpenAIResponsesCompat.model_validate(model.compat or {})


# ------------------------------------------------------------------------------ text ids


def encode_text_signature(item_id: str, phase: str | None = None) -> str:
    """A text block's signature: ``{"v":1,"id":…,"phase"?:…}`` (Pi's TextSignatureV1)."""
    payload: dict[str, Any] = {"v": 1, "id": item_id}
    if phase:
        payload["phase"] = phase
    return json.dumps(payload, separators=(",", ":"))


def parse_text_signature(signature: str | None) -> tuple[str, str | None] | None:
    """(message id, phase) from a text signature; a plain string is a legacy id."""
    if not signature:
        return None
    if signature.startswith("{"):
        try:
            parsed = json.loads(signature)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("v") == 1 and isinstance(parsed.get("id"), str):
            phase = parsed.get("phase")
            return parsed["id"], phase if phase in ("commentary", "final_answer") else None
    return signature, None


# ------------------------------------------------------------------------ tool-call ids


def _foreign_item_id(item_id: str) -> str:
    return f"fc_{short_hash(item_id)}"[:MAX_ID_LENGTH]


def normalize_tool_call_id(model: Model, call_id: str, source: AssistantMessage) -> str:
    """The id a call from another model gets before it is replayed to ``model``."""
    if model.provider not in OPENAI_TOOL_CALL_PROVIDERS or "|" not in call_id:
        return sanitize_id(call_id)
    call_part, item_part = call_id.split("|", 1)
    foreign = source.provider != model.provider or source.api != model.api
    item = _foreign_item_id(item_part) if foreign else sanitize_id(item_part)
    if not item.startswith("fc_"):  # the API wants function-call item ids to start with fc
        item = sanitize_id(f"fc_{item}")
    return f"{sanitize_id(call_part)}|{item}"


# ------------------------------------------------------------------------------ messages


def _image(block: ImageContent) -> dict[str, Any]:
    return {
        "type": "input_image",
        "detail": "auto",
        "image_url": f"data:{block.mime_type};base64,{block.data}",
    }


def _user(message: UserMessage) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        return {"role": "user", "content": [{"type": "input_text", "text": message.content}]}
    content = [
        {"type": "input_text", "text": b.text} if isinstance(b, TextContent) else _image(b)
        for b in message.content
    ]
    return {"role": "user", "content": content} if content else None


def _reasoning_item(block: ThinkingContent) -> dict[str, Any] | None:
    """The stored reasoning item, exactly as the server sent it (``encrypted_content`` and
    all); a signature that is not one (another API's) is not replayed, nor an item without
    its encrypted content: with ``store: false`` the server kept nothing, so it could only
    answer 404 "Item with id … not found"."""
    try:
        item = json.loads(block.thinking_signature or "")
    except ValueError:
        return None
    if not isinstance(item, dict) or item.get("type") != "reasoning":
        return None
    return item if item.get("encrypted_content") else None


def _assistant(message: AssistantMessage, model: Model, index: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    different_model = (
        message.model != model.id
        and message.provider == model.provider
        and message.api == model.api
    )
    # A call's fc_ item id is paired with the reasoning item the server sent before it; when
    # that item cannot be replayed (no encrypted content), the id is left out as well.
    dropped_reasoning = False
    text_index = 0
    for block in message.content:
        if isinstance(block, ThinkingContent):
            if block.thinking_signature:
                item = _reasoning_item(block)
                if item is not None:
                    items.append(item)
                else:
                    dropped_reasoning = True
        elif isinstance(block, TextContent):
            parsed = parse_text_signature(block.text_signature)
            fallback = f"msg_pi_{index}" if text_index == 0 else f"msg_pi_{index}_{text_index}"
            text_index += 1
            message_id = parsed[0] if parsed else fallback
            if len(message_id) > MAX_ID_LENGTH:
                message_id = f"msg_{short_hash(message_id)}"
            out: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": block.text, "annotations": []}],
                "status": "completed",
                "id": message_id,
            }
            if parsed and parsed[1]:
                out["phase"] = parsed[1]
            items.append(out)
        elif isinstance(block, ToolCall):
            call_id, _, item_id = block.id.partition("|")
            call: dict[str, Any] = {"type": "function_call"}
            # Another model of the same provider: the server pairs fc_ ids with the reasoning
            # items it saw, so the id is left out (as for calls from another provider).
            unpaired = different_model or dropped_reasoning
            if item_id and not (unpaired and item_id.startswith("fc_")):
                call["id"] = item_id
            call.update(
                call_id=call_id,
                name=block.name,
                arguments=json.dumps(block.arguments, ensure_ascii=False),
            )
            items.append(call)
    return items


def _tool_result(message: ToolResultMessage, model: Model) -> dict[str, Any]:
    text = "\n".join(b.text for b in message.content if isinstance(b, TextContent))
    images = [b for b in message.content if isinstance(b, ImageContent)]
    output: str | list[dict[str, Any]]
    if images and "image" in model.input:
        parts: list[dict[str, Any]] = [{"type": "input_text", "text": text}] if text else []
        output = parts + [_image(b) for b in images]
    else:
        output = text if text else IMAGE_ONLY_RESULT_TEXT
    return {
        "type": "function_call_output",
        "call_id": message.tool_call_id.split("|", 1)[0],
        "output": output,
    }


def convert_input(model: Model, context: Context) -> list[dict[str, Any]]:
    """The ``input`` array (after ``transform_messages``), system prompt first."""
    out: list[dict[str, Any]] = []
    if context.system_prompt:
        developer = model.reasoning and get_compat(model).supports_developer_role
        out.append(
            {"role": "developer" if developer else "system", "content": context.system_prompt}
        )
    messages = transform_messages(
        context.messages,
        model,
        normalize_with_source=lambda call_id, source: normalize_tool_call_id(
            model, call_id, source
        ),
    )
    for index, message in enumerate(messages):
        if isinstance(message, UserMessage):
            item = _user(message)
            if item is not None:
                out.append(item)
        elif isinstance(message, AssistantMessage):
            out.extend(_assistant(message, model, index))
        else:
            out.append(_tool_result(message, model))
    return out


def convert_tools(tools: list[Tool]) -> list[dict[str, Any]]:
    """Flat function tools (``strict: false``, as Pi sends them)."""
    return [
        {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
            "strict": False,
        }
        for tool in tools
    ]


def prompt_cache_key(options: StreamOptions) -> str | None:
    if options.cache_retention == "none" or not options.session_id:
        return None
    return options.session_id[:PROMPT_CACHE_KEY_MAX_LENGTH]


def _reasoning(model: Model, options: StreamOptions) -> dict[str, Any] | None:
    if not model.reasoning:
        return None
    mapping = model.thinking_level_map or {}
    level = clamp_thinking_level(model, options.reasoning) if options.reasoning else "off"
    if level != "off":
        effort = mapping.get(level) or level
        return {"effort": effort, "summary": "auto"}
    # Thinking off: the model's own "off" value ("none" unless its map says it has none).
    if "off" in mapping and mapping["off"] is None:
        return None
    return {"effort": mapping.get("off") or "none"}


def build_params(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    """The whole request body."""
    params: dict[str, Any] = {
        "model": model.id,
        "input": convert_input(model, context),
        "stream": True,
        "store": False,
    }
    cache_key = prompt_cache_key(options)
    if cache_key is not None:
        params["prompt_cache_key"] = cache_key
    if options.cache_retention == "long" and get_compat(model).supports_long_cache_retention:
        params["prompt_cache_retention"] = "24h"
    if options.max_tokens:
        params["max_output_tokens"] = options.max_tokens
    if options.temperature is not None:
        params["temperature"] = options.temperature
    if context.tools:
        params["tools"] = convert_tools(context.tools)
    reasoning = _reasoning(model, options)
    if reasoning is not None:
        params["reasoning"] = reasoning
    if model.reasoning:
        # A reasoning model returns a reasoning item even with thinking off; with
        # store: false it can be replayed next turn only with its encrypted content.
        params["include"] = ["reasoning.encrypted_content"]
    return params
