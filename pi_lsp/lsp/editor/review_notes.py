"""The review note (docs/protocol.md#review-hunks-keep-or-undo-each-change-91): what the user
undid — from the review UI, with the editor's own undo, or unchecked in a confirm-mode preview —
as the one message the model reads with its next call, and the one line clients show for it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ...agent.messages import CustomMessage


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
