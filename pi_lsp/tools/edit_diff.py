"""Diffs of an applied edit: Pi's numbered display diff and a standard unified patch.

Owns ``display_diff`` (``+NNN``/``-NNN``/`` NNN`` lines, 4 lines of context, `` ... `` for
skipped stretches, plus ``firstChangedLine`` in the new file) and ``unified_patch`` (file
headers only, context 4, ``\\ No newline at end of file`` markers; parsable by ``unidiff``).
Both are built from the edit plan's line opcodes (difflib's grouping for the patch).
Pure functions; must not import anything above tools/.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from difflib import SequenceMatcher

CONTEXT_LINES = 4
Opcode = tuple[str, int, int, int, int]


def full_opcodes(n_old: int, n_new: int, changes: Sequence[Opcode]) -> list[Opcode]:
    """The non-equal ``changes`` with the equal stretches between them filled in."""
    out: list[Opcode] = []
    i = j = 0
    for tag, i1, i2, j1, j2 in changes:
        if i1 > i:
            out.append(("equal", i, i1, j, j1))
        out.append((tag, i1, i2, j1, j2))
        i, j = i2, j2
    if i < n_old or j < n_new:
        out.append(("equal", i, n_old, j, n_new))
    return out


def _parts(opcodes: Sequence[Opcode]) -> Iterator[tuple[str, int, int]]:
    """jsdiff-style parts: ``("=", i1, i2)``, ``("-", i1, i2)``, ``("+", j1, j2)``."""
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            yield "=", i1, i2
            continue
        if i2 > i1:
            yield "-", i1, i2
        if j2 > j1:
            yield "+", j1, j2


def _strip_eol(line: str) -> str:
    return line[:-1] if line.endswith("\n") else line


def display_diff(
    base: str,
    new: str,
    old_lines: Sequence[str],
    new_lines: Sequence[str],
    changes: Sequence[Opcode],
    context: int = CONTEXT_LINES,
) -> tuple[str, int | None]:
    """Pi's ``generateDiffString``: the display diff and the first changed new-file line."""
    width = len(str(max(len(base.split("\n")), len(new.split("\n")))))
    pad = " " * width
    parts = list(_parts(full_opcodes(len(old_lines), len(new_lines), changes)))
    out: list[str] = []
    old_no = new_no = 1
    first_changed: int | None = None
    last_was_change = False

    def context_line(line: str) -> None:
        nonlocal old_no, new_no
        out.append(f" {str(old_no).rjust(width)} {_strip_eol(line)}")
        old_no += 1
        new_no += 1

    def skip(count: int) -> None:
        nonlocal old_no, new_no
        out.append(f" {pad} ...")
        old_no += count
        new_no += count

    for k, (kind, a, b) in enumerate(parts):
        if kind == "-":
            first_changed = new_no if first_changed is None else first_changed
            for line in old_lines[a:b]:
                out.append(f"-{str(old_no).rjust(width)} {_strip_eol(line)}")
                old_no += 1
            last_was_change = True
            continue
        if kind == "+":
            first_changed = new_no if first_changed is None else first_changed
            for line in new_lines[a:b]:
                out.append(f"+{str(new_no).rjust(width)} {_strip_eol(line)}")
                new_no += 1
            last_was_change = True
            continue
        lines = old_lines[a:b]
        next_is_change = k + 1 < len(parts) and parts[k + 1][0] != "="
        if last_was_change and next_is_change:
            if len(lines) <= context * 2:
                for line in lines:
                    context_line(line)
            else:
                for line in lines[:context]:
                    context_line(line)
                skip(len(lines) - 2 * context)
                for line in lines[len(lines) - context :]:
                    context_line(line)
        elif last_was_change:
            for line in lines[:context]:
                context_line(line)
            if len(lines) > context:
                skip(len(lines) - context)
        elif next_is_change:
            skipped = max(0, len(lines) - context)
            if skipped:
                skip(skipped)
            for line in lines[skipped:]:
                context_line(line)
        else:
            old_no += len(lines)
            new_no += len(lines)
        last_was_change = False
    return "\n".join(out), first_changed


class _Opcodes(SequenceMatcher[str]):
    """A matcher that reports precomputed opcodes, to reuse difflib's hunk grouping."""

    def __init__(self, opcodes: list[Opcode]) -> None:
        super().__init__(None, [], [])
        self._fixed = opcodes

    def get_opcodes(self) -> list[Opcode]:  # type: ignore[override]
        return self._fixed


def _range(start: int, stop: int) -> str:
    length = stop - start
    return f"{start + 1 if length else start},{length}"


def unified_patch(
    path: str,
    old_lines: Sequence[str],
    new_lines: Sequence[str],
    changes: Sequence[Opcode],
    context: int = CONTEXT_LINES,
) -> str:
    """A standard unified diff of the LF-normalised texts (Pi's ``createTwoFilesPatch`` with
    file headers only)."""
    out = [f"--- {path}\n", f"+++ {path}\n"]
    opcodes = full_opcodes(len(old_lines), len(new_lines), changes)
    for group in _Opcodes(opcodes).get_grouped_opcodes(context):
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@\n")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(_patch_lines(" ", old_lines[a1:a2]))
                continue
            out.extend(_patch_lines("-", old_lines[a1:a2]))
            out.extend(_patch_lines("+", new_lines[b1:b2]))
    return "".join(out)


def _patch_lines(prefix: str, lines: Sequence[str]) -> Iterator[str]:
    for line in lines:
        if line.endswith("\n"):
            yield prefix + line
        else:
            yield f"{prefix}{line}\n\\ No newline at end of file\n"
