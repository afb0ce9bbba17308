"""A session as a Markdown transcript, and a run's final answer as plain text.

For clients that show no ``pi/event``: the transcript file sits beside the session file
(same name, ``.md``) and holds the whole branch — prompts, answers, tool calls with their
arguments and (cut) results, compactions — so a user can open it in any editor.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..agent.messages import AgentMessage
from ..ai import AssistantMessage, TextContent, ThinkingContent, ToolCall, ToolResultMessage
from .entries import CompactionEntry, MessageEntry, SessionEntry

RESULT_LINES = 20
"""Lines of each tool result kept in the transcript."""


def transcript_path(session_file: Path) -> Path:
    return session_file.with_suffix(".md")


def answer_text(message: AgentMessage) -> str:
    """The text an assistant message shows the user (no thinking, no tool calls)."""
    if not isinstance(message, AssistantMessage):
        return ""
    return "".join(b.text for b in message.content if isinstance(b, TextContent)).strip()


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _fenced(text: str, language: str = "") -> str:
    fence = _fence(text)
    return f"{fence}{language}\n{text}\n{fence}"


def _content_text(content: str | Sequence[Any]) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, TextContent):
            parts.append(block.text)
        elif getattr(block, "type", None) == "image":
            parts.append("[image]")
    return "\n".join(parts)


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def _cut(text: str, lines: int) -> str:
    rows = text.split("\n")
    if len(rows) <= lines:
        return text
    return "\n".join(rows[:lines]) + f"\n… ({len(rows) - lines} more lines)"


def _message(message: AgentMessage) -> list[str]:
    role = message.role
    if role == "user":
        return ["## You", "", _quote(_content_text(message.content))]  # type: ignore[union-attr]
    if isinstance(message, AssistantMessage):
        out = ["## pi", ""]
        for block in message.content:
            if isinstance(block, TextContent) and block.text.strip():
                out += [block.text.strip(), ""]
            elif isinstance(block, ThinkingContent) and block.thinking.strip():
                out += [
                    f"<details><summary>thinking</summary>\n\n{block.thinking.strip()}"
                    "\n\n</details>",
                    "",
                ]
            elif isinstance(block, ToolCall):
                args = json.dumps(block.arguments, ensure_ascii=False, indent=1)
                out += [f"**{block.name}**", "", _fenced(args, "json"), ""]
        if message.stop_reason in ("error", "aborted"):
            why = message.error_message or message.stop_reason
            out += [f"*({message.stop_reason}: {why})*", ""]
        return out
    if isinstance(message, ToolResultMessage):
        label = "error" if message.is_error else "result"
        body = _cut(_content_text(message.content), RESULT_LINES)
        return [f"*{message.tool_name} {label}:*", "", _fenced(body), ""]
    summary = getattr(message, "summary", None)
    if isinstance(summary, str):
        return ["*Summary of earlier turns:*", "", _quote(summary), ""]
    return []


def transcript_markdown(title: str, entries: Sequence[SessionEntry]) -> str:
    """The branch ``entries`` (root to leaf) as Markdown."""
    out = [f"# {title}", ""]
    for entry in entries:
        if isinstance(entry, MessageEntry):
            out += _message(entry.message)
            out.append("")
        elif isinstance(entry, CompactionEntry):
            out += [
                "*Earlier turns were compacted; the model now sees this summary:*",
                "",
                _quote(entry.summary),
                "",
            ]
    return "\n".join(out).rstrip() + "\n"


def cut_answer(text: str, limit: int, pointer: str) -> str:
    """``text`` if it fits in ``limit`` characters, else its start (at a line break when
    there is one near) followed by ``pointer``."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    newline = head.rfind("\n")
    if newline > limit // 2:
        head = head[:newline]
    return head.rstrip() + f"\n… {pointer}"
