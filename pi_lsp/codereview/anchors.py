"""Findings that move with the text: a finding is anchored to its lines, and every change
of the document moves it (a change above shifts it, one below leaves it) or — when the
change reaches into its lines — clears it: its code was edited, so the finding is taken as
addressed (a new review says whether it still holds). The same line-level diff as the review
hunks' (``review.hunks.split_hunks``). Pure: no I/O."""

from __future__ import annotations

from dataclasses import dataclass

from ..review.hunks import split_hunks


@dataclass(frozen=True, slots=True)
class Anchor:
    """The finding's lines in the live text: ``[start, end)`` code-point offsets from the
    start of its first line to past the end of its last (its line break included)."""

    start: int
    end: int


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return starts


def anchor_lines(text: str, line: int, end_line: int) -> Anchor | None:
    """The anchor of 1-based ``line``..``end_line`` (``None``: past the end of ``text``)."""
    starts = _line_starts(text)
    count = len(starts) if not text.endswith("\n") else len(starts) - 1
    if line < 1 or end_line < line or end_line > max(count, 1):
        return None
    end = starts[end_line] if end_line < len(starts) else len(text)
    return Anchor(starts[line - 1], end)


def line_range(text: str, anchor: Anchor) -> tuple[int, int]:
    """0-based first and last line of ``anchor`` in ``text``."""
    first = text.count("\n", 0, anchor.start)
    last = text.count("\n", 0, max(anchor.start, anchor.end - 1))
    return first, last


def move(anchor: Anchor, before: str, after: str) -> Anchor | None:
    """``anchor`` after ``before`` became ``after``; ``None`` when a change reached into its
    lines."""
    shift = 0
    for region in split_hunks(before, after):
        if region.end <= anchor.start:
            shift += len(region.new_text) - (region.end - region.start)
        elif region.start >= anchor.end:
            continue
        else:
            return None
    return Anchor(anchor.start + shift, anchor.end + shift)
