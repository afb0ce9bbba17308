"""Turning old messages into a structured summary with the current model
(docs/reference/pi.md#compaction ``compact``).

The conversation is serialised as text (``[User]: …``, ``[Assistant]: …``, ``[Assistant tool
calls]: …``, ``[Tool result]: …`` cut at 2000 characters) inside ``<conversation>`` tags, so
the model reads it instead of continuing it; a previous summary is merged (the update
prompt); a split turn gets a second, parallel summary of its prefix. The request goes
through the injected ``stream_fn`` (tests use the faux provider).

Errors: ``CompactionError`` (summarisation failed), ``CompactionAbortedError`` (cancelled).
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...agent.messages import AgentMessage, convert_to_llm_coding
from ...agent.types import StreamFn
from ...ai import (
    AbortSignal,
    AssistantMessage,
    Context,
    Message,
    Model,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ThinkingLevel,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from ...ai import stream as default_stream
from .cut_point import CompactionPreparation, format_file_operations
from .tokens import js_json

TOOL_RESULT_MAX_CHARS = 2000

SUMMARIZATION_SYSTEM_PROMPT = (
    "You are a context summarization assistant. You read a conversation between a user and "
    "an AI coding assistant and write a structured summary of it in exactly the format you "
    "are given.\n\n"
    "Do NOT continue the conversation. Do NOT answer any question asked in it. ONLY output "
    "the structured summary."
)

_FORMAT = """## Goal
[{goal}]

## Constraints & Preferences
- [{constraints}]

## Progress
### Done
- [x] [{done}]

### In Progress
- [ ] [{in_progress}]

### Blocked
- [{blocked}]

## Key Decisions
- **[Decision]**: [{decisions}]

## Next Steps
1. [{next_steps}]

## Critical Context
- [{critical}]

Be brief in every section. Keep file paths, function names, commands and error messages
exactly as they appear."""

SUMMARIZATION_PROMPT = (
    "The conversation above is to be summarized. Write a structured checkpoint of it that "
    "another model will use to carry on the work.\n\nUse EXACTLY this format:\n\n"
    + _FORMAT.format(
        goal="What the user wants done; several items if the session covers several tasks",
        constraints='Requirements and preferences the user stated, or "(none)"',
        done="Tasks and changes that are finished",
        in_progress="What was being worked on",
        blocked="What stops progress, if anything",
        decisions="The reason, in a few words",
        next_steps="What should happen next, in order",
        critical='Data, examples or references needed to continue, or "(none)"',
    )
)

UPDATE_SUMMARIZATION_PROMPT = (
    "The conversation above holds NEW messages. Fold them into the existing summary given in "
    "the <previous-summary> tags.\n\nRules:\n"
    "- KEEP everything the previous summary says unless it is clearly obsolete\n"
    "- ADD the new progress, decisions and context\n"
    '- MOVE finished items from "In Progress" to "Done"\n'
    '- REWRITE "Next Steps" for the current state\n'
    "- KEEP file paths, function names and error messages exact\n\n"
    "Use EXACTLY this format:\n\n"
    + _FORMAT.format(
        goal="The goals so far, plus new ones if the task grew",
        constraints="Earlier constraints, plus any new ones",
        done="Earlier finished items AND the newly finished ones",
        in_progress="Current work, updated",
        blocked="Current blockers; drop the resolved ones",
        decisions="The reason, in a few words (keep earlier decisions)",
        next_steps="Updated for where things stand now",
        critical="Earlier context that still matters, plus new context",
    )
)

TURN_PREFIX_SUMMARIZATION_PROMPT = """The conversation above is the BEGINNING of one turn that \
was too long to keep whole. Its END (the most recent work) is kept verbatim after your summary.

Summarize the beginning so that the kept end makes sense:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Decisions made and work done in this beginning part]

## Context for Suffix
- [What someone reading only the kept end needs to know]

Be brief. Only what the kept end needs."""

SPLIT_TURN_SEPARATOR = "\n\n---\n\n**Turn Context (split turn):**\n\n"


class CompactionError(RuntimeError):
    """Summarisation failed (the message says why)."""


class CompactionAbortedError(CompactionError):
    """The compaction was cancelled."""


@dataclass(slots=True)
class CompactionResult:
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: dict[str, Any] = field(default_factory=dict)
    estimated_tokens_after: int | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "summary": self.summary,
            "firstKeptEntryId": self.first_kept_entry_id,
            "tokensBefore": self.tokens_before,
            "details": self.details,
        }
        if self.estimated_tokens_after is not None:
            out["estimatedTokensAfter"] = self.estimated_tokens_after
        return out


# ------------------------------------------------------------------------- serialisation


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n\n[... {len(text) - limit} more characters truncated]"


def serialize_conversation(messages: Sequence[Message]) -> str:
    """LLM messages as plain text, one ``[Role]: …`` paragraph each."""
    parts: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            content = message.content
            text = (
                content
                if isinstance(content, str)
                else "".join(b.text for b in content if isinstance(b, TextContent))
            )
            if text:
                parts.append(f"[User]: {text}")
        elif isinstance(message, AssistantMessage):
            texts = [b.text for b in message.content if isinstance(b, TextContent)]
            thinking = [b.thinking for b in message.content if isinstance(b, ThinkingContent)]
            calls = [
                f"{b.name}(" + ", ".join(f"{k}={js_json(v)}" for k, v in b.arguments.items()) + ")"
                for b in message.content
                if isinstance(b, ToolCall)
            ]
            if thinking:
                parts.append("[Assistant thinking]: " + "\n".join(thinking))
            if texts:
                parts.append("[Assistant]: " + "\n".join(texts))
            if calls:
                parts.append("[Assistant tool calls]: " + "; ".join(calls))
        elif isinstance(message, ToolResultMessage):
            text = "".join(b.text for b in message.content if isinstance(b, TextContent))
            if text:
                parts.append(f"[Tool result]: {_truncate(text, TOOL_RESULT_MAX_CHARS)}")
    return "\n\n".join(parts)


# ------------------------------------------------------------------------- requests


@dataclass(slots=True)
class SummaryRequest:
    """How to reach the model for a summary (the session's current model and settings)."""

    model: Model
    stream_fn: StreamFn | None = None
    options: StreamOptions = field(default_factory=StreamOptions)
    """Base options (api key, headers, env, client); ``max_tokens``/``signal``/``reasoning``
    are set per request."""
    thinking_level: str = "off"
    signal: AbortSignal | None = None


def _max_tokens(model: Model, budget: int) -> int:
    return min(budget, model.max_tokens) if model.max_tokens > 0 else budget


async def _complete(request: SummaryRequest, prompt: str, max_tokens: int) -> str:
    reasoning: ThinkingLevel | None = None
    if request.model.reasoning and request.thinking_level != "off":
        reasoning = request.thinking_level  # type: ignore[assignment]
    options = dataclasses.replace(
        request.options, max_tokens=max_tokens, signal=request.signal, reasoning=reasoning
    )
    context = Context(
        system_prompt=SUMMARIZATION_SYSTEM_PROMPT,
        messages=[UserMessage(content=[TextContent(text=prompt)])],
    )
    fn = request.stream_fn or default_stream
    started = fn(request.model, context, options)
    stream = await started if inspect.isawaitable(started) else started
    response = await stream.result()
    if response.stop_reason == "aborted" or (request.signal and request.signal.aborted):
        raise CompactionAbortedError("Compaction cancelled")
    if response.stop_reason == "error":
        raise CompactionError(f"Summarization failed: {response.error_message or 'Unknown error'}")
    return "\n".join(b.text for b in response.content if isinstance(b, TextContent))


async def generate_summary(
    messages: Sequence[AgentMessage],
    request: SummaryRequest,
    reserve_tokens: int,
    *,
    custom_instructions: str | None = None,
    previous_summary: str | None = None,
) -> str:
    base = UPDATE_SUMMARIZATION_PROMPT if previous_summary else SUMMARIZATION_PROMPT
    if custom_instructions:
        base += f"\n\nAdditional focus: {custom_instructions}"
    text = serialize_conversation(convert_to_llm_coding(messages))
    prompt = f"<conversation>\n{text}\n</conversation>\n\n"
    if previous_summary:
        prompt += f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n"
    prompt += base
    return await _complete(request, prompt, _max_tokens(request.model, int(0.8 * reserve_tokens)))


async def generate_turn_prefix_summary(
    messages: Sequence[AgentMessage], request: SummaryRequest, reserve_tokens: int
) -> str:
    text = serialize_conversation(convert_to_llm_coding(messages))
    prompt = f"<conversation>\n{text}\n</conversation>\n\n{TURN_PREFIX_SUMMARIZATION_PROMPT}"
    return await _complete(request, prompt, _max_tokens(request.model, int(0.5 * reserve_tokens)))


async def compact(
    preparation: CompactionPreparation,
    request: SummaryRequest,
    *,
    custom_instructions: str | None = None,
) -> CompactionResult:
    """Summarise what ``preparation`` says to drop; the caller appends the entry."""
    reserve = preparation.settings.reserve_tokens
    if preparation.is_split_turn and preparation.turn_prefix_messages:

        async def history() -> str:
            if not preparation.messages_to_summarize:
                return "No prior history."
            return await generate_summary(
                preparation.messages_to_summarize,
                request,
                reserve,
                custom_instructions=custom_instructions,
                previous_summary=preparation.previous_summary,
            )

        try:  # both in parallel; the first failure cancels the other
            async with asyncio.TaskGroup() as group:
                history_task = group.create_task(history())
                prefix_task = group.create_task(
                    generate_turn_prefix_summary(preparation.turn_prefix_messages, request, reserve)
                )
        except BaseExceptionGroup as failures:
            raise failures.exceptions[0] from None
        summary = history_task.result() + SPLIT_TURN_SEPARATOR + prefix_task.result()
    else:
        summary = await generate_summary(
            preparation.messages_to_summarize,
            request,
            reserve,
            custom_instructions=custom_instructions,
            previous_summary=preparation.previous_summary,
        )
    read_files, modified_files = preparation.file_ops.lists()
    summary += format_file_operations(read_files, modified_files)
    return CompactionResult(
        summary=summary,
        first_kept_entry_id=preparation.first_kept_entry_id,
        tokens_before=preparation.tokens_before,
        details={"readFiles": read_files, "modifiedFiles": modified_files},
    )
