"""``session/load``: a saved conversation as the ACP updates it produced live.

User and agent text, thinking, and every tool call as ``tool_call`` + ``tool_call_update``
with the title, kind, locations and content ``tool_view`` gives the live stream (a ``write``
that replaced a file shows the replaced text, recorded in the session file under
``OLD_TEXT_ENTRY`` when it ran). Message ids come from ``updates.message_id``, as live.
Pure: session entries in, updates out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from acp.schema import AgentThoughtChunk, ToolCallProgress, ToolCallStart

from ..ai.types import AssistantMessage, TextContent, ThinkingContent, ToolCall, ToolResultMessage
from ..sessions.entries import CustomEntry, MessageEntry
from . import tool_view as view
from .updates import (
    SessionUpdate,
    agent_text,
    error_text,
    message_id,
    message_text,
    text_block,
    user_text,
)

OLD_TEXT_ENTRY = "pi-lsp.acp.replaced-text"
"""A custom entry ``{toolCallId, oldText}``: the text a ``write`` call replaced."""


def replay(
    session_id: str, cwd: Path, entries: Iterable[Any], terminal: bool = False
) -> Iterator[SessionUpdate]:
    """``terminal``: the client renders Zed's display-only terminal (else ``bash`` output
    is ``content`` text, as live)."""
    for _, update in replay_timed(session_id, cwd, entries, terminal):
        yield update


def replay_timed(
    session_id: str, cwd: Path, entries: Iterable[Any], terminal: bool = False
) -> Iterator[tuple[str, SessionUpdate]]:
    """``replay`` with each update's time: its entry's ISO ``timestamp`` (a ``task`` tree is
    replayed in the order its sessions' entries were written: ``subagents.py``)."""
    entries = list(entries)
    old_texts: dict[str, str] = {}
    for entry in entries:
        if isinstance(entry, CustomEntry) and entry.custom_type == OLD_TEXT_ENTRY:
            data = entry.data if isinstance(entry.data, dict) else {}
            call_id, text = data.get("toolCallId"), data.get("oldText")
            if isinstance(call_id, str) and isinstance(text, str):
                old_texts[call_id] = text
    open_calls: dict[str, tuple[str, dict[str, Any]]] = {}
    at = ""
    for entry in entries:
        if not isinstance(entry, MessageEntry):
            continue
        at = entry.timestamp
        message = entry.message
        role = getattr(message, "role", None)
        msg_id = message_id(session_id, message)
        if role == "user":
            text = message_text(message)
            if text:
                yield at, user_text(text, msg_id)
        elif isinstance(message, AssistantMessage):
            for update in _assistant(message, msg_id, cwd, open_calls, terminal):
                yield at, update
        elif isinstance(message, ToolResultMessage):
            name, args = open_calls.pop(message.tool_call_id, (message.tool_name, {}))
            old = old_texts.get(message.tool_call_id)
            yield at, _result(message, name, args, cwd, old, terminal)
    for call_id in open_calls:  # a run that stopped before its tools finished
        yield (
            at,
            ToolCallProgress(
                session_update="tool_call_update", tool_call_id=call_id, status="failed"
            ),
        )


def _assistant(
    message: AssistantMessage,
    msg_id: str,
    cwd: Path,
    open_calls: dict[str, tuple[str, dict[str, Any]]],
    terminal: bool,
) -> Iterator[SessionUpdate]:
    for block in message.content:
        if isinstance(block, TextContent) and block.text:
            yield agent_text(block.text, msg_id)
        elif isinstance(block, ThinkingContent) and block.thinking:
            yield AgentThoughtChunk(
                session_update="agent_thought_chunk",
                content=text_block(block.thinking),
                message_id=msg_id,
            )
        elif isinstance(block, ToolCall):
            args = view.args_dict(block.arguments)
            open_calls[block.id] = (block.name, args)
            yield ToolCallStart(
                session_update="tool_call",
                tool_call_id=block.id,
                title=view.title_of(block.name, args),
                kind=view.kind_of(block.name),
                status="in_progress",
                locations=view.locations_of(block.name, args, cwd),
                raw_input=args,
                content=view.start_content(block.name, block.id, terminal) or None,
                field_meta=view.start_meta(block.name, block.id, cwd, terminal),
            )
    if message.stop_reason == "error":
        yield agent_text(error_text(message), msg_id)


def _result(
    message: ToolResultMessage,
    name: str,
    args: dict[str, Any],
    cwd: Path,
    old: str | None,
    terminal: bool,
) -> ToolCallProgress:
    text = view.result_text(message.content)
    call_id = message.tool_call_id
    meta = None
    if name == "bash" and terminal:
        meta = {**view.output_meta(call_id, text), **view.exit_meta(call_id, message.is_error)}
    return ToolCallProgress(
        session_update="tool_call_update",
        tool_call_id=call_id,
        status="failed" if message.is_error else "completed",
        locations=view.locations_of(name, args, cwd, message.details),
        content=view.final_content(
            name, call_id, args, cwd, text, message.details, message.is_error, old, terminal
        ),
        raw_output={"content": text, "isError": message.is_error},
        field_meta=meta,
    )
