"""Request building for the Gemini API (``google-generative-ai``, ``streamGenerateContent``).

Turns a ``Context`` into the JSON body (docs/reference/pi.md#google-gemini): ``contents``
with ``user`` / ``model`` turns, text, images as ``inlineData``, ``functionCall`` /
``functionResponse`` parts (a call id the API gave is echoed on both); ``systemInstruction``;
``tools`` as ``functionDeclarations`` with ``parametersJsonSchema``; ``generationConfig``
with ``thinkingConfig`` (a thinking level for Gemini 3 and Gemma 4, a token budget for 2.x).
Every ``thoughtSignature`` stored with a block is sent back on the same part, but only to the
model that made it and only when it is valid base64 (Gemini 3 rejects a replayed function
call without its signature).
Pure functions, no I/O. Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from ..options import StreamOptions
from ..thinking import clamp_thinking_level
from ..transform import transform_messages
from ..types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from ._ids import sanitize_id

ToolChoice = Literal["auto", "none", "any"]
IMAGE_ONLY_RESULT_TEXT = "(see attached image)"
TOOL_IMAGE_TEXT = "Tool result image:"
_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
_GEMINI_MAJOR = re.compile(r"^gemini(?:-live)?-(\d+)")
_GEMINI3_PRO = re.compile(r"gemini-3(?:\.\d+)?-pro")
_GEMINI3_FLASH = re.compile(r"gemini-3(?:\.\d+)?-flash")
_GEMMA4 = re.compile(r"gemma-?4")

# Token budgets per level for Gemini 2.5 (Pi's table); other budget models think dynamically.
_BUDGETS: dict[str, dict[str, int]] = {
    "2.5-pro": {"minimal": 128, "low": 2048, "medium": 8192, "high": 32768},
    "2.5-flash-lite": {"minimal": 512, "low": 2048, "medium": 8192, "high": 24576},
    "2.5-flash": {"minimal": 128, "low": 2048, "medium": 8192, "high": 24576},
}


# ------------------------------------------------------------------------------ signatures


def is_valid_signature(signature: str | None) -> bool:
    """Gemini signatures are base64 bytes; anything else (another API's) is not sent."""
    return (
        bool(signature) and len(signature or "") % 4 == 0 and bool(_BASE64.match(signature or ""))
    )


def _signature(same_model: bool, signature: str | None) -> dict[str, str]:
    if same_model and signature and is_valid_signature(signature):
        return {"thoughtSignature": signature}
    return {}


def requires_tool_call_id(model_id: str) -> bool:
    """Models behind the Gemini API that want ids on calls and responses (Claude, gpt-oss)."""
    return model_id.startswith(("claude-", "gpt-oss-"))


def is_generated_call_id(call_id: str, name: str) -> bool:
    """An id we made for a call that came without one (``<name>_<ms>_<counter>``, as the
    stream makes them): never the API's, so never sent back as if it were."""
    prefix = f"{name}_"
    if not call_id.startswith(prefix):
        return False
    ms, sep, counter = call_id[len(prefix) :].partition("_")
    return bool(sep) and ms.isdigit() and counter.isdigit()


def _api_call_ids(message: AssistantMessage, model: Model) -> set[str]:
    """The ids of ``message``'s calls that the Gemini API itself gave to this model (the
    reference asks for them back on the call and on its ``functionResponse``); like the
    signatures, not sent to another model."""
    if (message.provider, message.api, message.model) != (model.provider, model.api, model.id):
        return set()
    return {
        block.id
        for block in message.content
        if isinstance(block, ToolCall)
        and block.id
        and not is_generated_call_id(block.id, block.name)
    }


def _multimodal_function_response(model_id: str) -> bool:
    match = _GEMINI_MAJOR.match(model_id.lower())
    return int(match.group(1)) >= 3 if match else True


# ------------------------------------------------------------------------------- messages


def _inline(image: ImageContent) -> dict[str, Any]:
    return {"inlineData": {"mimeType": image.mime_type, "data": image.data}}


def _user(message: UserMessage) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        return {"role": "user", "parts": [{"text": message.content}]}
    parts = [
        {"text": b.text} if isinstance(b, TextContent) else _inline(b) for b in message.content
    ]
    return {"role": "user", "parts": parts} if parts else None


def _assistant(message: AssistantMessage, model: Model, api_ids: set[str]) -> dict[str, Any] | None:
    same = message.provider == model.provider and message.model == model.id
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text.strip():
                parts.append({"text": block.text, **_signature(same, block.text_signature)})
        elif isinstance(block, ThinkingContent):
            if not block.thinking.strip():
                continue
            if same:
                sig = _signature(same, block.thinking_signature)
                parts.append({"thought": True, "text": block.thinking, **sig})
            else:
                parts.append({"text": block.thinking})
        elif isinstance(block, ToolCall):
            call: dict[str, Any] = {"name": block.name, "args": block.arguments}
            if requires_tool_call_id(model.id) or block.id in api_ids:
                call["id"] = block.id
            parts.append({"functionCall": call, **_signature(same, block.thought_signature)})
    return {"role": "model", "parts": parts} if parts else None


def _tool_result(
    message: ToolResultMessage, model: Model, contents: list[dict[str, Any]], api_ids: set[str]
) -> None:
    text = "\n".join(b.text for b in message.content if isinstance(b, TextContent))
    images = (
        [b for b in message.content if isinstance(b, ImageContent)]
        if "image" in model.input
        else []
    )
    value = text if text else (IMAGE_ONLY_RESULT_TEXT if images else "")
    nested_images = bool(images) and _multimodal_function_response(model.id)
    response: dict[str, Any] = {
        "name": message.tool_name,
        "response": {"error": value} if message.is_error else {"output": value},
    }
    if nested_images:
        response["parts"] = [_inline(b) for b in images]
    if requires_tool_call_id(model.id) or message.tool_call_id in api_ids:
        response["id"] = message.tool_call_id
    part = {"functionResponse": response}
    last = contents[-1] if contents else None
    if (
        last is not None
        and last["role"] == "user"
        and any("functionResponse" in p for p in last["parts"])
    ):
        last["parts"].append(part)  # all answers of one turn in one user turn
    else:
        contents.append({"role": "user", "parts": [part]})
    if images and not nested_images:
        contents.append(
            {"role": "user", "parts": [{"text": TOOL_IMAGE_TEXT}, *map(_inline, images)]}
        )


def convert_contents(model: Model, context: Context) -> list[dict[str, Any]]:
    """The ``contents`` array (after ``transform_messages``)."""

    def normalize(call_id: str) -> str:
        return sanitize_id(call_id) if requires_tool_call_id(model.id) else call_id

    contents: list[dict[str, Any]] = []
    api_ids: set[str] = set()  # call ids the API gave, echoed on the call and its response
    for message in transform_messages(context.messages, model, normalize):
        if isinstance(message, UserMessage):
            item = _user(message)
        elif isinstance(message, AssistantMessage):
            api_ids |= _api_call_ids(message, model)
            item = _assistant(message, model, api_ids)
        else:
            _tool_result(message, model, contents, api_ids)
            continue
        if item is not None:
            contents.append(item)
    return contents


def convert_tools(tools: list[Tool]) -> list[dict[str, Any]]:
    return [
        {
            "functionDeclarations": [
                {
                    "name": tool.name,
                    "description": tool.description,
                    "parametersJsonSchema": tool.parameters,
                }
                for tool in tools
            ]
        }
    ]


# -------------------------------------------------------------------------------- thinking


def _is_gemini3_pro(model: Model) -> bool:
    return bool(_GEMINI3_PRO.search(model.id.lower()))


def _is_gemini3_flash(model: Model) -> bool:
    lowered = model.id.lower()
    return bool(_GEMINI3_FLASH.search(lowered)) or lowered in (
        "gemini-flash-latest",
        "gemini-flash-lite-latest",
    )


def _is_gemma4(model: Model) -> bool:
    return bool(_GEMMA4.search(model.id.lower()))


def uses_thinking_level(model: Model) -> bool:
    """Gemini 3 and Gemma 4 take ``thinkingLevel``; 2.x takes ``thinkingBudget``."""
    return _is_gemini3_pro(model) or _is_gemini3_flash(model) or _is_gemma4(model)


def _level(model: Model, effort: str) -> str:
    if _is_gemini3_pro(model):
        return "LOW" if effort in ("minimal", "low") else "HIGH"
    if _is_gemma4(model):
        return "MINIMAL" if effort in ("minimal", "low") else "HIGH"
    return effort.upper()


def _budget(model: Model, effort: str, custom: Mapping[str, int] | None) -> int:
    if custom and effort in custom:
        return custom[effort]
    for fragment, table in _BUDGETS.items():  # most specific first (lite before flash)
        if fragment in model.id:
            return table[effort]
    return -1  # dynamic


def _disabled(model: Model) -> dict[str, Any]:
    """Thinking "off": Gemini 3 cannot turn it off, so the lowest level without thoughts."""
    if _is_gemini3_pro(model):
        return {"thinkingLevel": "LOW"}
    if _is_gemini3_flash(model) or _is_gemma4(model):
        return {"thinkingLevel": "MINIMAL"}
    return {"thinkingBudget": 0}


def thinking_config(model: Model, options: StreamOptions) -> dict[str, Any] | None:
    if not model.reasoning:
        return None
    if options.reasoning is None:
        return _disabled(model)
    level = clamp_thinking_level(model, options.reasoning)
    effort = "high" if level in ("off", "xhigh") else level
    if uses_thinking_level(model):
        return {"includeThoughts": True, "thinkingLevel": _level(model, effort)}
    return {
        "includeThoughts": True,
        "thinkingBudget": _budget(model, effort, options.thinking_budgets),
    }


def build_params(
    model: Model, context: Context, options: StreamOptions, tool_choice: ToolChoice | None = None
) -> dict[str, Any]:
    """The whole request body (the model id is in the URL)."""
    body: dict[str, Any] = {"contents": convert_contents(model, context)}
    if context.system_prompt:
        body["systemInstruction"] = {"parts": [{"text": context.system_prompt}]}
    if context.tools:
        body["tools"] = convert_tools(context.tools)
        if tool_choice is not None:
            body["toolConfig"] = {"functionCallingConfig": {"mode": tool_choice.upper()}}
    generation: dict[str, Any] = {}
    if options.temperature is not None:
        generation["temperature"] = options.temperature
    if options.max_tokens:
        generation["maxOutputTokens"] = options.max_tokens
    thinking = thinking_config(model, options)
    if thinking is not None:
        generation["thinkingConfig"] = thinking
    if generation:
        body["generationConfig"] = generation
    return body
