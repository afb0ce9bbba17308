"""The review note (docs/protocol.md#review-hunks-keep-or-undo-each-change-91): what the user
undid — from the review UI, with the editor's own undo, or unchecked in a confirm-mode preview —
as the one message the model reads with its next call, and the one line clients show for it."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from pydantic import TypeAdapter, ValidationError

from ...agent.messages import CustomMessage
from ...sessions.entries import CustomEntry, SessionEntry

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Undone:
    """An undone hunk, for the note the model reads before its next call."""

    path: str
    first_line: int
    last_line: int
    text: str
    reason: str | None
    how: Literal["review", "editor", "unchecked"] = "review"
    """Undone from the review UI, by the editor's own undo (or retyping the old text), or
    left unchecked in a confirm-mode preview."""


_undone = TypeAdapter(Undone)

NOTES_ENTRY_TYPE = "pi-lsp.review-notes"
"""``customType`` of the session-file entry holding the notes not yet told to the model: one
entry (the whole list) per change — queued or delivered — so a restart loses none and tells
none twice; the last such entry on the branch is the list to restore."""


def notes_data(undone: Sequence[Undone]) -> dict[str, Any]:
    """The entry's ``data``: ``{notes: [{path, first_line, last_line, text, reason, how}]}``."""
    return {"notes": [asdict(u) for u in undone]}


def saved_notes(branch: Sequence[SessionEntry]) -> list[Undone]:
    """The notes the last notes entry on ``branch`` holds (none: nothing owed). A note that
    no longer parses is skipped with a warning."""
    for entry in reversed(branch):
        if isinstance(entry, CustomEntry) and entry.custom_type == NOTES_ENTRY_TYPE:
            data = entry.data if isinstance(entry.data, dict) else {}
            raw = data.get("notes")
            out: list[Undone] = []
            for item in raw if isinstance(raw, list) else ():
                try:
                    out.append(_undone.validate_python(item))
                except ValidationError as exc:
                    log.warning(
                        "skipping a saved review note that does not parse: %s",
                        exc.errors(include_url=False)[0]["msg"],
                    )
            return out
    return []


UNDO_NOTE_HEAD = "[The user reviewed your edits and undid these changes"
REVIEW_NOTE_TYPE = "review_note"
"""``customType`` of the note message
(docs/protocol.md#review-hunks-keep-or-undo-each-change-91)."""

_VERB = {
    "review": "undid",
    "editor": "undid (with the editor's undo or by retyping the old text)",
    "unchecked": "unchecked in the preview (never applied)",
}


def undo_note(undone: list[Undone]) -> str:
    """The one user-role note that tells the model what the user undid."""
    lines = [f"{UNDO_NOTE_HEAD}; do not make them again unless asked:]"]
    for u in undone:
        where = f"{u.path} lines {u.first_line}-{u.last_line}"
        lines.append(f"- {where}: {_VERB[u.how]}\n```\n{u.text.rstrip()}\n```")
        if u.reason:
            lines.append(f"  reason: {u.reason}")
    return "\n".join(lines)


def note_summary(undone: list[Undone]) -> str:
    """One line for the transcript's marker: ``you undid app.py line 2``."""
    parts: list[str] = []
    for how in ("review", "editor", "unchecked"):
        spots = [
            f"{u.path} line {u.first_line}"
            if u.first_line == u.last_line
            else f"{u.path} lines {u.first_line}-{u.last_line}"
            for u in undone
            if u.how == how
        ]
        if spots:
            verb = "unchecked" if how == "unchecked" else "undid"
            parts.append(f"you {verb} {', '.join(spots)}")
    return "; ".join(parts)


def review_note(undone: list[Undone]) -> CustomMessage:
    """The note as a message: the model reads it as a user message; clients show a marker
    (``details.summary``), not a user bubble."""
    return CustomMessage(
        custom_type=REVIEW_NOTE_TYPE,
        content=undo_note(undone),
        display=True,
        details={"summary": note_summary(undone)},
    )
