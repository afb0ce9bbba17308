"""Session file entries (Pi's JSONL format, version 3) as pydantic models.

Line 1 of a file is a ``SessionHeader``; every other line is one ``SessionEntry`` with an
8-hex ``id``, a ``parentId`` (``null`` for a root) and an ISO ``timestamp``. Entries are
discriminated on ``type``. ``entry_to_json`` / ``parse_line`` are the only (de)serialisers.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Field, TypeAdapter, ValidationError

from ..agent.messages import AgentMessage
from ..ai import UserContent, WireModel
from ..ai.surrogates import clean_surrogates

CURRENT_SESSION_VERSION = 3


class SessionHeader(WireModel):
    type: Literal["session"] = "session"
    version: int = CURRENT_SESSION_VERSION
    id: str
    timestamp: str
    cwd: str = ""
    parent_session: str | None = None


class _EntryBase(WireModel):
    type: str
    id: str
    parent_id: str | None = None
    timestamp: str


class MessageEntry(_EntryBase):
    type: Literal["message"] = "message"
    message: AgentMessage


class ModelChangeEntry(_EntryBase):
    type: Literal["model_change"] = "model_change"
    provider: str
    model_id: str


class ThinkingLevelChangeEntry(_EntryBase):
    type: Literal["thinking_level_change"] = "thinking_level_change"
    thinking_level: str


class CompactionEntry(_EntryBase):
    type: Literal["compaction"] = "compaction"
    summary: str
    first_kept_entry_id: str
    tokens_before: int = 0
    details: Any = None
    from_hook: bool | None = None


class BranchSummaryEntry(_EntryBase):
    type: Literal["branch_summary"] = "branch_summary"
    from_id: str = "root"
    summary: str
    details: Any = None
    from_hook: bool | None = None


class CustomEntry(_EntryBase):
    """Product/extension state; never part of the model context."""

    type: Literal["custom"] = "custom"
    custom_type: str
    data: Any = None


class CustomMessageEntry(_EntryBase):
    """A custom message that reaches the model (as a user message)."""

    type: Literal["custom_message"] = "custom_message"
    custom_type: str
    content: str | list[UserContent]
    display: bool = True
    details: Any = None


class LabelEntry(_EntryBase):
    type: Literal["label"] = "label"
    target_id: str
    label: str | None = None


class SessionInfoEntry(_EntryBase):
    type: Literal["session_info"] = "session_info"
    name: str | None = None


SessionEntry: TypeAlias = Annotated[
    MessageEntry
    | ModelChangeEntry
    | ThinkingLevelChangeEntry
    | CompactionEntry
    | BranchSummaryEntry
    | CustomEntry
    | CustomMessageEntry
    | LabelEntry
    | SessionInfoEntry,
    Field(discriminator="type"),
]

entry_adapter: TypeAdapter[SessionEntry] = TypeAdapter(SessionEntry)


class MalformedLineError(ValueError):
    """A line is not valid JSON, or not a known entry."""


def entry_to_dict(entry: SessionHeader | SessionEntry) -> dict[str, Any]:
    """The JSON-ready dict of an entry: camelCase, unset optionals left out, ``parentId``
    always present on tree entries (``null`` for a root). Values JSON cannot hold (in tool
    ``details``) are written as their ``repr`` rather than failing the append."""
    data = entry.model_dump(by_alias=True, exclude_none=True, mode="json", fallback=repr)
    if not isinstance(entry, SessionHeader):
        data["parentId"] = entry.parent_id
    return data


def dumps_line(data: dict[str, Any]) -> str:
    """One JSONL record (no newline). ``ensure_ascii`` keeps U+2028/U+2029 escaped, so no
    reader that splits on them can tear a record. Lone surrogates (which strict JSON readers,
    pydantic's included, reject) are replaced first: only valid JSON text is ever written."""
    line = json.dumps(data, separators=(",", ":"), ensure_ascii=True)
    if _SURROGATE_ESCAPE.search(line) is not None:  # rare: check the data itself
        line = json.dumps(clean_surrogates(data), separators=(",", ":"), ensure_ascii=True)
    return line


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def parse_header(line: str) -> SessionHeader:
    try:
        return SessionHeader.model_validate_json(line)
    except ValidationError as exc:
        raise MalformedLineError(f"not a session header: {_short(exc)}") from exc


def parse_entry(line: str) -> SessionEntry:
    """One entry; a line strict JSON rejects but Python's reader accepts (lone surrogates
    written by older versions) is cleaned and parsed rather than lost."""
    try:
        return entry_adapter.validate_json(line)
    except ValidationError as exc:
        try:
            data = json.loads(line)
        except ValueError:
            raise MalformedLineError(_short(exc)) from exc
        try:
            return entry_adapter.validate_python(clean_surrogates(data))
        except ValidationError:
            raise MalformedLineError(_short(exc)) from exc


def _short(exc: ValidationError) -> str:
    first = exc.errors()[0] if exc.errors() else {"msg": str(exc)}
    where = ".".join(str(p) for p in first.get("loc", ()))
    return f"{where}: {first.get('msg', '')}" if where else str(first.get("msg", ""))
