"""The agent's applied edits as hunks, tracked through every later change
(docs/protocol.md#review-hunks-keep-or-undo-each-change-91).

A hunk is a region of one document the agent changed: ``old_text`` (what was there) and
``new_text`` (what the agent wrote), at ``[start, end)`` in the *live* text (code-point
offsets). Every later change moves it: a change wholly before shifts it, one wholly after
leaves it, one that reaches inside marks it ``touched`` (the user's text is in it now, so an
undo would destroy user work: it becomes a conflict). A later agent edit overlapping a
pending hunk absorbs it: the merged hunk's ``old_text`` is what was there before either edit,
so undoing it restores the text before the agent touched that region at all.

Feed every change in the order the document saw it: ``change`` for the user's typing (and
for any change not made by the agent), ``agent_edit`` for the agent's. Pure: no I/O.
"""

from __future__ import annotations

import difflib
import itertools
from dataclasses import dataclass, field


@dataclass(slots=True)
class Hunk:
    id: str
    uri: str
    tool_call_id: str
    start: int
    end: int
    old_text: str
    new_text: str
    touched: bool = False
    """The user changed text inside the hunk since it was applied."""


@dataclass(frozen=True, slots=True)
class Region:
    """Replace ``text[start:end]`` with ``new_text`` (offsets into the text before)."""

    start: int
    end: int
    new_text: str


@dataclass(frozen=True, slots=True)
class UndoConflict:
    hunk_id: str
    message: str


def split_hunks(before: str, after: str) -> list[Region]:
    """The line-level changes turning ``before`` into ``after``, as non-overlapping regions
    of ``before`` (ascending)."""
    a = before.splitlines(keepends=True)
    b = after.splitlines(keepends=True)
    a_off = [0, *itertools.accumulate(len(x) for x in a)]
    b_off = [0, *itertools.accumulate(len(x) for x in b)]
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [
        Region(a_off[i1], a_off[i2], after[b_off[j1] : b_off[j2]])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


@dataclass(slots=True)
class HunkTracker:
    _hunks: dict[str, list[Hunk]] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    # ------------------------------------------------------------------- queries

    def pending(self, uri: str | None = None) -> list[Hunk]:
        uris = [uri] if uri is not None else sorted(self._hunks)
        return [h for u in uris for h in sorted(self._hunks.get(u, ()), key=lambda h: h.start)]

    def get(self, hunk_id: str) -> Hunk | None:
        return next((h for hs in self._hunks.values() for h in hs if h.id == hunk_id), None)

    # ------------------------------------------------------------------- changes

    def change(self, uri: str, start: int, end: int, new_text: str) -> None:
        """A change not made by the agent (the user's typing): moves or touches hunks."""
        delta = len(new_text) - (end - start)
        for h in self._hunks.get(uri, ()):
            if end <= h.start and not (start == end == h.start and h.start == h.end):
                h.start += delta
                h.end += delta
            elif start >= h.end and not (start == end == h.end and h.start == h.end):
                continue
            else:  # reaches inside (or sits on an empty hunk): the user's text is in it now
                h.touched = True
                h.start = min(h.start, start)
                h.end = max(h.end, end) + delta

    def agent_edit(self, uri: str, before: str, after: str, tool_call_id: str) -> list[Hunk]:
        """The agent turned ``before`` (the live text) into ``after``: new hunks, absorbing
        any pending hunk they overlap. Returns the new hunks."""
        regions = split_hunks(before, after)
        hunks = self._hunks.setdefault(uri, [])
        clusters: list[_Cluster] = []
        for region in regions:
            absorbed = [h for h in hunks if h.start <= region.end and region.start <= h.end]
            lo = min([region.start, *(h.start for h in absorbed)])
            hi = max([region.end, *(h.end for h in absorbed)])
            last = clusters[-1] if clusters else None
            if last is not None and lo <= last.hi:
                last.lo, last.hi = min(last.lo, lo), max(last.hi, hi)
                last.regions.append(region)
                last.absorbed.extend(h for h in absorbed if h not in last.absorbed)
            else:
                clusters.append(_Cluster(lo, hi, [region], absorbed))
        created: list[Hunk] = []
        shift = 0  # offset change from the clusters already processed
        for c in clusters:
            old = _original(before, c.lo, c.hi, c.absorbed)
            delta = sum(len(r.new_text) - (r.end - r.start) for r in c.regions)
            new_start = c.lo + shift
            new_text = after[new_start : c.hi + shift + delta]
            for h in c.absorbed:
                hunks.remove(h)
            shift += delta
            if old != new_text:
                created.append(
                    Hunk(
                        f"h{next(self._ids)}",
                        uri,
                        tool_call_id,
                        new_start,
                        new_start + len(new_text),
                        old,
                        new_text,
                    )
                )
        # move the hunks the edit did not absorb (positions are still in ``before``)
        for h in hunks:
            moved = sum(len(r.new_text) - (r.end - r.start) for r in regions if r.end <= h.start)
            h.start += moved
            h.end += moved
        hunks.extend(created)
        return created

    # ----------------------------------------------------------------- decisions

    def keep(self, hunk_id: str) -> Hunk | None:
        hunk = self.get(hunk_id)
        if hunk is not None:
            self._hunks[hunk.uri].remove(hunk)
        return hunk

    def undo_region(self, hunk_id: str, text: str) -> Region | UndoConflict:
        """The change that undoes ``hunk_id`` in the live ``text``, or why it cannot. The
        hunk stays pending until ``keep`` (called once the undo is applied) removes it."""
        hunk = self.get(hunk_id)
        if hunk is None:
            return UndoConflict(hunk_id, "no pending hunk with this id")
        if hunk.touched or text[hunk.start : hunk.end] != hunk.new_text:
            return UndoConflict(
                hunk_id, "the text was changed in the editor since the edit; left as it is"
            )
        return Region(hunk.start, hunk.end, hunk.old_text)

    def forget(self, uri: str) -> None:
        self._hunks.pop(uri, None)


@dataclass(slots=True)
class _Cluster:
    lo: int
    hi: int
    regions: list[Region]
    absorbed: list[Hunk]


def _original(before: str, lo: int, hi: int, absorbed: list[Hunk]) -> str:
    """``before[lo:hi]`` with each untouched absorbed hunk's text put back to its old text."""
    parts: list[str] = []
    pos = lo
    for h in sorted(absorbed, key=lambda h: h.start):
        if h.touched:
            continue
        parts.append(before[pos : h.start])
        parts.append(h.old_text)
        pos = h.end
    parts.append(before[pos:hi])
    return "".join(parts)
