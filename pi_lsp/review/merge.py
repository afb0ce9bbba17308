"""Three-way merge on lines: rebase the agent's change onto text the user changed since.

``merge3(base, ours, theirs)``: ``base`` is the text the agent's change was computed from,
``ours`` the agent's result, ``theirs`` the buffer as it is now (the user typed). When the
regions each side changed do not overlap, the result has both changes. Two changes touching
the same base lines (or both inserting at one place, or one inserting at the edge of the
other's region) are a conflict: nothing is merged and the conflict names the current text of
that region, so the model can look again. Line endings travel with their lines.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class _Change:
    start: int
    """First base line replaced."""
    end: int
    """One past the last base line replaced (``start == end``: an insertion)."""
    lines: list[str]


@dataclass(frozen=True, slots=True)
class MergeConflict:
    first_line: int
    """1-based first line of the region in the current text (``theirs``)."""
    current_text: str
    """The current text of the lines the user changed where the agent's change lands."""


@dataclass(frozen=True, slots=True)
class MergeResult:
    text: str | None
    """The merged text; ``None`` when there are conflicts."""
    conflicts: tuple[MergeConflict, ...] = ()


def _changes(base: list[str], other: list[str]) -> list[_Change]:
    matcher = difflib.SequenceMatcher(None, base, other, autojunk=False)
    return [
        _Change(i1, i2, other[j1:j2])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _overlap(a: _Change, b: _Change) -> bool:
    if a.start == a.end or b.start == b.end:  # an insertion clashes with anything at its edge
        return b.start <= a.start <= b.end if a.start == a.end else a.start <= b.start <= a.end
    return a.start < b.end and b.start < a.end


def _to_theirs(base_line: int, theirs: list[_Change]) -> int:
    """Where base line ``base_line`` is in the user's text (before any change after it)."""
    shift = 0
    for ch in theirs:
        if ch.end <= base_line and not (ch.start == ch.end == base_line):
            shift += len(ch.lines) - (ch.end - ch.start)
    return base_line + shift


def _trivial(base: str, ours: str, theirs: str) -> MergeResult | None:
    """The result when one side changed nothing (or both made the same text)."""
    if theirs == base or ours == theirs:
        return MergeResult(ours)
    if ours == base:
        return MergeResult(theirs)
    return None


def _sides(base: str, ours: str, theirs: str) -> tuple[list[str], list[_Change], list[_Change]]:
    base_lines = base.splitlines(keepends=True)
    mine = _changes(base_lines, ours.splitlines(keepends=True))
    return base_lines, mine, _changes(base_lines, theirs.splitlines(keepends=True))


def merge3(base: str, ours: str, theirs: str) -> MergeResult:
    trivial = _trivial(base, ours, theirs)
    if trivial is not None:
        return trivial
    base_lines, mine, user = _sides(base, ours, theirs)
    conflicts: list[MergeConflict] = []
    for u in user:
        if any(_overlap(m, u) for m in mine):
            start = _to_theirs(u.start, user)
            lines = u.lines or base_lines[max(0, u.start - 1) : u.start + 1]
            conflicts.append(MergeConflict(start + 1, "".join(lines)))
    if conflicts:
        return MergeResult(None, tuple(conflicts))
    return MergeResult(_apply(base_lines, [*mine, *user]))


def merge3_partial(base: str, ours: str, theirs: str) -> MergeResult:
    """Like ``merge3``, but a conflict does not stop the rest: each of ``ours``' changes
    that touches none of the user's is applied, one the user made too is there already,
    and each one that touches another user change is skipped (the user's text stays as it
    is there) and listed in ``conflicts``. ``text`` is always set. Used to take a tool
    call back out of a file hunk by hunk
    (docs/protocol.md#checkpoints-restore-revert-one-tool-call-95)."""
    trivial = _trivial(base, ours, theirs)
    if trivial is not None:
        return trivial
    base_lines, mine, user = _sides(base, ours, theirs)
    conflicts: list[MergeConflict] = []
    kept: list[_Change] = []
    for m in mine:
        if m in user:  # the user already made this very change (e.g. undid the hunk)
            continue
        clashing = [u for u in user if _overlap(m, u)]
        if not clashing:
            kept.append(m)
            continue
        first = min(clashing, key=lambda u: u.start)
        lines = [line for u in clashing for line in u.lines]
        if not lines:
            lines = base_lines[max(0, first.start - 1) : first.start + 1]
        conflicts.append(MergeConflict(_to_theirs(first.start, user) + 1, "".join(lines)))
    return MergeResult(_apply(base_lines, [*kept, *user]), tuple(conflicts))


def _apply(base_lines: list[str], changes: list[_Change]) -> str:
    """Walk the base once, taking each (non-overlapping) change where it is."""
    out: list[str] = []
    pos = 0
    for ch in sorted(changes, key=lambda c: (c.start, c.end)):
        out.extend(base_lines[pos : ch.start])
        out.extend(ch.lines)
        pos = max(pos, ch.end)
    out.extend(base_lines[pos:])
    return "".join(out)
