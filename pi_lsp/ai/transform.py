"""pi-ai ``transformMessages``: make a stored history safe to replay to a given model.

Run by every provider before its own conversion (docs/reference/pi.md#transform-messages):
1. images become placeholder text when the model does not accept images;
2. assistant messages from another model: thinking becomes text (empty / redacted dropped),
   signatures are stripped, tool-call ids are normalised and their results remapped;
3. assistant messages that ended in ``error`` / ``aborted`` are dropped (with any results
   that answer their tool calls);
4. orphan tool calls get a synthetic ``No result provided`` error result.
The input messages are never mutated. Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .types import (
    AssistantContent,
    AssistantMessage,
    ImageContent,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserContent,
    UserMessage,
)

IMAGE_PLACEHOLDER = "(image omitted: model does not support images)"
TOOL_IMAGE_PLACEHOLDER = "(tool image omitted: model does not support images)"
NO_RESULT_TEXT = "No result provided"

ToolCallIdNormalizer = Callable[[str], str]
SourceAwareNormalizer = Callable[[str, AssistantMessage], str]
"""Like ``ToolCallIdNormalizer`` but also told the message the call comes from (the Responses
provider hashes item ids of calls made through another provider or API)."""


def _replace_images(content: list[UserContent], placeholder: str) -> list[UserContent]:
    out: list[UserContent] = []
    for block in content:
        if isinstance(block, ImageContent):
            previous = out[-1] if out else None
            if isinstance(previous, TextContent) and previous.text == placeholder:
                continue  # consecutive placeholders collapse into one
            out.append(TextContent(text=placeholder))
        else:
            out.append(block)
    return out


def _has_images(content: str | list[UserContent]) -> bool:
    return not isinstance(content, str) and any(isinstance(b, ImageContent) for b in content)


def _is_same_model(message: AssistantMessage, model: Model) -> bool:
    return (
        message.provider == model.provider
        and message.api == model.api
        and message.model == model.id
    )


def _transform_assistant(
    message: AssistantMessage,
    model: Model,
    normalize: SourceAwareNormalizer | None,
    id_map: dict[str, str],
) -> AssistantMessage:
    same = _is_same_model(message, model)
    content: list[AssistantContent] = []
    changed = False
    for block in message.content:
        if isinstance(block, ThinkingContent):
            if same and block.thinking_signature:
                content.append(block)  # signed thinking is replayed, even when empty
                continue
            if block.redacted or not block.thinking.strip():
                changed = True  # empty or redacted thinking is dropped
            elif same:
                content.append(block)
            else:
                content.append(TextContent(text=block.thinking))
                changed = True
        elif isinstance(block, TextContent):
            if same or block.text_signature is None:
                content.append(block)
            else:
                content.append(TextContent(text=block.text))
                changed = True
        else:
            call = block
            if not same:
                new_id = normalize(call.id, message) if normalize else call.id
                if new_id != call.id:
                    id_map[call.id] = new_id
                if new_id != call.id or call.thought_signature is not None:
                    call = call.model_copy(update={"id": new_id, "thought_signature": None})
                    changed = True
            content.append(call)
    if not changed:
        return message
    return message.model_copy(update={"content": content})


def _synthetic_results(pending: list[ToolCall], answered: set[str]) -> list[Message]:
    return [
        ToolResultMessage(
            tool_call_id=call.id,
            tool_name=call.name,
            content=[TextContent(text=NO_RESULT_TEXT)],
            is_error=True,
        )
        for call in pending
        if call.id not in answered
    ]


def transform_messages(
    messages: Sequence[Message],
    model: Model,
    normalize_tool_call_id: ToolCallIdNormalizer | None = None,
    *,
    normalize_with_source: SourceAwareNormalizer | None = None,
) -> list[Message]:
    """The replay-safe copy of ``messages`` for ``model`` (see the module docstring).
    ``normalize_with_source`` replaces ``normalize_tool_call_id`` when given."""
    normalize = normalize_with_source
    if normalize is None and normalize_tool_call_id is not None:
        plain = normalize_tool_call_id
        normalize = lambda call_id, _source: plain(call_id)  # noqa: E731
    supports_images = "image" in model.input
    id_map: dict[str, str] = {}
    dropped_calls: set[str] = set()
    first: list[Message] = []
    for message in messages:
        if isinstance(message, UserMessage):
            if not supports_images and _has_images(message.content):
                assert not isinstance(message.content, str)
                message = message.model_copy(
                    update={"content": _replace_images(message.content, IMAGE_PLACEHOLDER)}
                )
            first.append(message)
        elif isinstance(message, ToolResultMessage):
            if message.tool_call_id in dropped_calls:
                continue  # it answers a call of an assistant message we do not replay
            update: dict[str, object] = {}
            if not supports_images and _has_images(message.content):
                update["content"] = _replace_images(message.content, TOOL_IMAGE_PLACEHOLDER)
            new_id = id_map.get(message.tool_call_id)
            if new_id is not None and new_id != message.tool_call_id:
                update["tool_call_id"] = new_id
            first.append(message.model_copy(update=update) if update else message)
        else:
            if message.stop_reason in ("error", "aborted"):
                dropped_calls.update(b.id for b in message.content if isinstance(b, ToolCall))
                continue
            first.append(_transform_assistant(message, model, normalize, id_map))

    result: list[Message] = []
    pending: list[ToolCall] = []
    answered: set[str] = set()
    for message in first:
        if isinstance(message, ToolResultMessage):
            answered.add(message.tool_call_id)
            result.append(message)
            continue
        if pending:
            result.extend(_synthetic_results(pending, answered))
            pending, answered = [], set()
        if isinstance(message, AssistantMessage):
            pending = [b for b in message.content if isinstance(b, ToolCall)]
        result.append(message)
    if pending:
        result.extend(_synthetic_results(pending, answered))
    return result
