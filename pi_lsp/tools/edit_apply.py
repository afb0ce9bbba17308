"""The edit algorithm (docs/reference/pi.md#tool-edit): match every oldText, apply, and plan minimal
edits.

Owns line-ending and BOM handling, Pi's fuzzy normalisation, matching with Pi's exact error
texts, and the translation of the result into minimal line-level ``TextEdit``s against the
document's real text, so untouched lines keep their bytes and an editor keeps cursors and undo.
Pure functions; must not import anything above tools/.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import accumulate, pairwise

from ..agent.types import ToolFailure
from .edit_hint import closest_candidate
from .workspace import TextEdit

BOM = "\ufeff"
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_OTHER_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # str.splitlines() splits on these too
_FUZZY_MAP = str.maketrans(
    {
        **dict.fromkeys(map(ord, "\u2018\u2019\u201a\u201b"), "'"),
        **dict.fromkeys(map(ord, "\u201c\u201d\u201e\u201f"), '"'),
        **dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"), "-"),
        **dict.fromkeys(
            map(
                ord,
                "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000",
            ),
            " ",
        ),
    }
)


class EditError(ToolFailure):
    """The edit cannot be applied; the message is Pi's text for the model."""


@dataclass(frozen=True, slots=True)
class Replacement:
    old_text: str
    new_text: str


@dataclass(frozen=True, slots=True)
class Hunk:
    """Lines ``[old_start, old_end)`` of the LF base become ``new_lines`` (LF, with endings)."""

    old_start: int
    old_end: int
    new_lines: list[str]


@dataclass(frozen=True, slots=True)
class EditPlan:
    base: str
    """The original text, BOM stripped, LF-normalised (what diffs are computed over)."""
    new: str
    """The result, BOM stripped, LF-normalised."""
    base_lines: list[str]
    new_lines: list[str]
    changes: list[tuple[str, int, int, int, int]]
    """Non-equal difflib opcodes ``(tag, i1, i2, j1, j2)`` over ``base_lines``/``new_lines``."""
    text_edits: list[TextEdit]
    """Minimal edits against the document's real text (BOM and original line endings)."""


def detect_line_ending(text: str) -> str:
    crlf = text.find("\r\n")
    lf = text.find("\n")
    if lf == -1 or crlf == -1:
        return "\n"
    return "\r\n" if crlf < lf else "\n"


def normalize_to_lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def normalize_for_fuzzy_match(text: str) -> str:
    """Pi's ``normalizeForFuzzyMatch``: NFKC, trailing whitespace off every line, smart quotes,
    Unicode dashes and spaces to ASCII."""
    nfkc = unicodedata.normalize("NFKC", text)
    return "\n".join([line.rstrip() for line in nfkc.split("\n")]).translate(_FUZZY_MAP)


def split_lines(text: str) -> list[str]:
    """Lines with their terminators (``\\r\\n``, ``\\r`` or ``\\n``); the last may lack one."""
    return _LINE.findall(text)


# ------------------------------------------------------------------------------ errors


def _not_found(path: str, i: int, n: int, base: str, old_text: str) -> EditError:
    head = (
        f"Could not find the exact text in {path}."
        if n == 1
        else f"Could not find edits[{i}] in {path}."
    )
    msg = f"{head} The old text must match exactly including all whitespace and newlines."
    hint = closest_candidate(base, old_text)
    return EditError(f"{msg}\n{hint}" if hint else msg)


def _duplicate(path: str, i: int, n: int, count: int) -> EditError:
    if n == 1:
        return EditError(
            f"Found {count} occurrences of the text in {path}. The text must be unique. "
            "Please provide more context to make it unique."
        )
    return EditError(
        f"Found {count} occurrences of edits[{i}] in {path}. Each oldText must be unique. "
        "Please provide more context to make it unique."
    )


def _no_change(path: str, n: int) -> EditError:
    if n == 1:
        return EditError(
            f"No changes made to {path}. The replacement produced identical content. This "
            "might indicate an issue with special characters or the text not existing as "
            "expected."
        )
    return EditError(f"No changes made to {path}. The replacements produced identical content.")


# ------------------------------------------------------------------------------ matching


@dataclass(frozen=True, slots=True)
class _Match:
    edit_index: int
    index: int
    length: int
    new_text: str


def _match_all(base: str, edits: Sequence[Replacement], path: str) -> tuple[str, list[_Match]]:
    """Match every edit against ``base`` (never incrementally). If any edit is found only
    after fuzzy normalisation, every edit is matched in the fuzzy space (as Pi does).
    Returns the replacement space and the matches sorted by position."""
    n = len(edits)
    for i, e in enumerate(edits):
        if not e.old_text:
            raise EditError(
                f"oldText must not be empty in {path}."
                if n == 1
                else f"edits[{i}].oldText must not be empty in {path}."
            )
    fuzzy_base: str | None = None
    needs_fuzzy = False
    for e in edits:
        if e.old_text not in base:
            if fuzzy_base is None:
                fuzzy_base = normalize_for_fuzzy_match(base)
            if normalize_for_fuzzy_match(e.old_text) in fuzzy_base:
                needs_fuzzy = True
                break
    space = fuzzy_base if needs_fuzzy and fuzzy_base is not None else base
    counted: str | None = space if needs_fuzzy else None
    matches: list[_Match] = []
    for i, e in enumerate(edits):
        needle = e.old_text
        index = space.find(needle)
        if index == -1 and needs_fuzzy:
            needle = normalize_for_fuzzy_match(e.old_text)
            index = space.find(needle)
        if index == -1:
            raise _not_found(path, i, n, base, e.old_text)
        if counted is None:
            counted = normalize_for_fuzzy_match(space)
        count = _count(counted, normalize_for_fuzzy_match(e.old_text))
        if count > 1:
            raise _duplicate(path, i, n, count)
        matches.append(_Match(i, index, len(needle), e.new_text))
    matches.sort(key=lambda m: m.index)
    for prev, cur in pairwise(matches):
        if prev.index + prev.length > cur.index:
            raise EditError(
                f"edits[{prev.edit_index}] and edits[{cur.edit_index}] overlap in {path}. "
                "Merge them into one edit or target disjoint regions."
            )
    return space, matches


def _count(haystack: str, needle: str) -> int:
    """JavaScript's ``haystack.split(needle).length - 1``."""
    if not needle:
        return max(len(haystack) - 1, 0)
    return haystack.count(needle)


# ------------------------------------------------------------------------------ applying


def _lf_lines(text: str) -> list[str]:
    """``text`` split after every ``\\n`` (the last line may lack one)."""
    if not any(ch in text for ch in _OTHER_BREAKS):
        return text.splitlines(keepends=True)
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _offsets(lines: Sequence[str], shift: int = 0) -> list[int]:
    """Start offset of every line, plus the end of the text as a last entry."""
    return list(accumulate(map(len, lines), initial=shift))


def _hunks(space: str, matches: Sequence[_Match]) -> list[Hunk]:
    """Widen each replacement to the lines it touches, merge groups that share a line, and
    rewrite those lines from ``space`` (Pi's applyReplacementsPreservingUnchangedLines).
    Lines are located by counting newlines, so a large file is never split here."""
    groups: list[tuple[int, int, int, int, list[_Match]]] = []  # first, end, lo, hi, matches
    line, counted_to = 0, 0
    for m in matches:  # sorted by position
        if m.index >= len(space):
            raise EditError("Replacement range is outside the base content.")
        line += space.count("\n", counted_to, m.index)
        counted_to = m.index
        last_pos = max(m.index, m.index + m.length - 1)
        last = line + space.count("\n", m.index, last_pos)
        lo = space.rfind("\n", 0, m.index) + 1
        newline = space.find("\n", last_pos)
        hi = len(space) if newline == -1 else newline + 1
        if groups and line < groups[-1][1]:
            g_first, g_end, g_lo, g_hi, g_matches = groups[-1]
            groups[-1] = (g_first, max(g_end, last + 1), g_lo, max(g_hi, hi), [*g_matches, m])
        else:
            groups.append((line, last + 1, lo, hi, [m]))
    hunks: list[Hunk] = []
    for first, end, lo, hi, group in groups:
        segment = space[lo:hi]
        for m in reversed(group):
            a, b = m.index - lo, m.index - lo + m.length
            segment = segment[:a] + m.new_text + segment[b:]
        hunks.append(Hunk(first, end, _lf_lines(segment) if segment else []))
    return hunks


def line_changes(
    base_lines: Sequence[str], hunks: Sequence[Hunk]
) -> list[tuple[str, int, int, int, int]]:
    """Minimal non-equal opcodes (difflib style) over whole-file line indices."""
    changes: list[tuple[str, int, int, int, int]] = []
    delta = 0
    for h in hunks:
        old = base_lines[h.old_start : h.old_end]
        new = h.new_lines
        lo = 0
        while lo < len(old) and lo < len(new) and old[lo] == new[lo]:
            lo += 1
        hi = 0
        while hi < len(old) - lo and hi < len(new) - lo and old[-1 - hi] == new[-1 - hi]:
            hi += 1
        mid_old, mid_new = old[lo : len(old) - hi], new[lo : len(new) - hi]
        matcher = SequenceMatcher(None, mid_old, mid_new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                i0 = h.old_start + lo
                changes.append((tag, i0 + i1, i0 + i2, i0 + delta + j1, i0 + delta + j2))
        delta += len(new) - len(old)
    return changes


def plan_edits(text: str, edits: Sequence[Replacement], path: str) -> EditPlan:
    """Apply ``edits`` to a document's ``text`` the way Pi's edit tool does.

    Raises ``EditError`` with Pi's texts. The returned ``text_edits`` turn ``text`` into
    ``bom + new`` with the file's line ending on rewritten lines; untouched lines keep their
    exact bytes (Pi rewrites every line ending; for a uniform file the result is the same)."""
    bom = BOM if text.startswith(BOM) else ""
    content = text[len(bom) :]
    eol = detect_line_ending(content)
    base = normalize_to_lf(content)
    replacements = [
        Replacement(normalize_to_lf(e.old_text), normalize_to_lf(e.new_text)) for e in edits
    ]
    space, matches = _match_all(base, replacements, path)
    hunks = _hunks(space, matches)
    base_lines = _lf_lines(base)
    parts: list[str] = []
    pos = 0
    for h in hunks:
        parts.extend(base_lines[pos : h.old_start])
        parts.extend(h.new_lines)
        pos = h.old_end
    parts.extend(base_lines[pos:])
    new = "".join(parts)
    if new == base:
        raise _no_change(path, len(edits))
    original_lines = split_lines(content) if "\r" in content else base_lines
    if len(original_lines) != len(base_lines):  # cannot happen: both split on every ending
        raise EditError(f"Could not map the edit onto the line structure of {path}.")
    offsets = _offsets(original_lines, len(bom))
    changes = line_changes(base_lines, hunks)
    text_edits: list[TextEdit] = []
    for _tag, i1, i2, j1, j2 in changes:
        new_text = "".join(parts[j1:j2])
        if eol != "\n":
            new_text = new_text.replace("\n", eol)
        text_edits.append(TextEdit(offsets[i1], offsets[i2], new_text))
    return EditPlan(
        base=base,
        new=new,
        base_lines=base_lines,
        new_lines=parts,
        changes=changes,
        text_edits=text_edits,
    )
