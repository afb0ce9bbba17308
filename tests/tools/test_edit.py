"""The edit tool beyond the checklist: byte-exact round trips, minimal TextEdits, diffs,
the closest-candidate hint, and the seam (edits go through ``apply_edits``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from unidiff import PatchSet

from pi_lsp.tools import (
    DiskWorkspace,
    Document,
    EditRejectedError,
    EditTool,
    TextEdit,
    ToolError,
    apply_text_edits,
)
from pi_lsp.tools.edit_apply import (
    EditError,
    Replacement,
    detect_line_ending,
    normalize_for_fuzzy_match,
    plan_edits,
)
from pi_lsp.tools.edit_diff import display_diff, unified_patch
from pi_lsp.tools.workspace import ToolCallContext

from .conftest import call, text


async def test_crlf_and_bom_round_trip_byte_exact(ws: DiskWorkspace, root: Path) -> None:
    original = b"\xef\xbb\xbfa\r\nb\r\nc\r\nd"  # no final newline
    (root / "f.txt").write_bytes(original)
    await call(EditTool(ws), {"path": "f.txt", "oldText": "b\nc", "newText": "B\nC"})
    assert (root / "f.txt").read_bytes() == b"\xef\xbb\xbfa\r\nB\r\nC\r\nd"
    await call(EditTool(ws), {"path": "f.txt", "oldText": "B\nC", "newText": "b\nc"})
    assert (root / "f.txt").read_bytes() == original


async def test_mixed_line_endings_keep_untouched_lines(ws: DiskWorkspace, root: Path) -> None:
    (root / "f.txt").write_bytes(b"crlf\r\nlf\nlone cr\rtarget\r\nend\n")
    await call(EditTool(ws), {"path": "f.txt", "oldText": "target", "newText": "T1\nT2"})
    # the file's ending is CRLF (the first one); only the rewritten line uses it
    assert (root / "f.txt").read_bytes() == b"crlf\r\nlf\nlone cr\rT1\r\nT2\r\nend\n"


async def test_fuzzy_edit_with_crlf(ws: DiskWorkspace, root: Path) -> None:
    (root / "f.txt").write_bytes("keep  \r\nsay \u201chi\u201d  \r\nkeep too  \r\n".encode())
    await call(EditTool(ws), {"path": "f.txt", "oldText": 'say "hi"', "newText": "said"})
    assert (root / "f.txt").read_bytes() == b"keep  \r\nsaid\r\nkeep too  \r\n"


def test_text_edits_are_minimal_lines() -> None:
    content = "".join(f"line {i}\n" for i in range(1, 11))
    plan = plan_edits(
        content,
        [Replacement("line 4\nline 5\nline 6\n", "line 4\nFIVE\nline 6\n")],
        "f.txt",
    )
    offset = content.index("line 5")
    assert plan.text_edits == [TextEdit(offset, offset + len("line 5\n"), "FIVE\n")]


def test_two_distant_edits_give_two_text_edits() -> None:
    content = "".join(f"line {i}\n" for i in range(1, 31))
    plan = plan_edits(
        content, [Replacement("line 2\n", "two\n"), Replacement("line 29\n", "")], "f"
    )
    assert len(plan.text_edits) == 2
    assert apply_text_edits(content, plan.text_edits) == plan.new


def test_display_diff_context_between_close_and_distant_changes() -> None:
    base = "".join(f"l{i}\n" for i in range(1, 31))
    near = plan_edits(base, [Replacement("l5\n", "X\n"), Replacement("l12\n", "Y\n")], "f")
    diff, first = display_diff(near.base, near.new, near.base_lines, near.new_lines, near.changes)
    lines = diff.split("\n")
    assert first == 5
    assert lines[:5] == ["  1 l1", "  2 l2", "  3 l3", "  4 l4", "- 5 l5"]
    assert "-12 l12" in lines
    assert " 11 l11" in lines  # 6 context lines between changes (≤ 8) are all shown
    assert lines[-6:] == ["+12 Y", " 13 l13", " 14 l14", " 15 l15", " 16 l16", "    ..."]
    far = plan_edits(base, [Replacement("l2\n", "X\n"), Replacement("l25\n", "Y\n")], "f")
    diff, _ = display_diff(far.base, far.new, far.base_lines, far.new_lines, far.changes)
    lines = diff.split("\n")
    assert lines[:3] == ["  1 l1", "- 2 l2", "+ 2 X"]
    assert lines[6:9] == ["  6 l6", "    ...", " 21 l21"]  # 4 after, skip, 4 before
    assert lines.count("    ...") == 2  # the long middle stretch and the tail


async def test_miss_shows_the_closest_candidate(ws: DiskWorkspace, root: Path) -> None:
    source = (
        "def helper():\n    return 1\n\n\ndef compute(a, b):\n    total = a + b\n    return total\n"
    )
    (root / "m.py").write_text(source)
    with pytest.raises(ToolError) as err:
        await call(
            EditTool(ws),
            {"path": "m.py", "oldText": "def compute(a, b):\n    total = a * b\n", "newText": "x"},
        )
    first, rest = str(err.value).split("\n", 1)
    assert first == (
        "Could not find the exact text in m.py. The old text must match exactly including "
        "all whitespace and newlines."
    )
    assert rest.startswith("The closest text in the file is at lines 5-6 (")
    assert "  5: def compute(a, b):\n  6:     total = a + b" in rest


async def test_miss_with_nothing_similar_has_no_hint(ws: DiskWorkspace, root: Path) -> None:
    (root / "m.py").write_text("alpha\nbeta\n")
    with pytest.raises(ToolError) as err:
        await call(EditTool(ws), {"path": "m.py", "oldText": "zzzzqqqq9999", "newText": "x"})
    assert "\n" not in str(err.value)
    with pytest.raises(ToolError) as err:
        await call(
            EditTool(ws),
            {
                "path": "m.py",
                "edits": [
                    {"oldText": "alpha", "newText": "a"},
                    {"oldText": "gamma!!", "newText": "g"},
                ],
            },
        )
    assert str(err.value).startswith("Could not find edits[1] in m.py. The old text must match")


async def test_missing_file_and_directory(ws: DiskWorkspace, root: Path) -> None:
    with pytest.raises(ToolError) as err:
        await call(EditTool(ws), {"path": "nope.txt", "oldText": "a", "newText": "b"})
    assert str(err.value) == "Could not edit file: nope.txt. Error code: ENOENT."
    (root / "d").mkdir()
    with pytest.raises(ToolError) as err:
        await call(EditTool(ws), {"path": "d", "oldText": "a", "newText": "b"})
    assert str(err.value) == "Could not edit file: d. Error code: EISDIR."


async def test_binary_file_is_not_edited(ws: DiskWorkspace, root: Path) -> None:
    (root / "b.bin").write_bytes(b"abc\x00def")
    with pytest.raises(ToolError) as err:
        await call(EditTool(ws), {"path": "b.bin", "oldText": "abc", "newText": "x"})
    assert str(err.value) == "Cannot edit b.bin: it is a binary file."


async def test_unknown_parameters_are_rejected_by_the_schema(ws: DiskWorkspace) -> None:
    with pytest.raises(ValueError):
        await call(EditTool(ws), {"path": "f", "edits": [], "extra": 1})


class _RecordingWorkspace(DiskWorkspace):
    """Like the editor's workspace: edits arrive as TextEdits; this one may refuse them."""

    def __init__(self, roots: Sequence[Path], *, refuse: bool = False) -> None:
        super().__init__(roots)
        self.refuse = refuse
        self.calls: list[tuple[Document, list[TextEdit], str]] = []

    async def apply_edits(
        self,
        document: Document,
        edits: Sequence[TextEdit],
        *,
        label: str,
        context: ToolCallContext | None = None,
    ) -> None:
        self.calls.append((document, list(edits), label))
        if self.refuse:
            raise EditRejectedError("The user rejected the edit.")
        await super().apply_edits(document, edits, label=label)


async def test_edit_goes_through_apply_edits(root: Path) -> None:
    (root / "f.txt").write_text("a\nb\nc\n")
    ws = _RecordingWorkspace([root])
    await call(EditTool(ws), {"path": "f.txt", "oldText": "b", "newText": "B"})
    [(document, edits, label)] = ws.calls
    assert document.text == "a\nb\nc\n"
    assert edits == [TextEdit(2, 4, "B\n")]
    assert label == "pi: edit f.txt"
    refusing = _RecordingWorkspace([root], refuse=True)
    with pytest.raises(EditRejectedError, match="rejected"):
        await call(EditTool(refusing), {"path": "f.txt", "oldText": "B", "newText": "b"})
    assert (root / "f.txt").read_text() == "a\nB\nc\n"


# ------------------------------------------------------------------- property: the plan


def _apply_patch(base_lines: list[str], patch: str) -> list[str]:
    """Rebuild the target from the source with a parsed unified diff."""
    [patched] = PatchSet(patch)
    out: list[str] = []
    pos = 0
    for hunk in patched:
        start = hunk.source_start - 1 if hunk.source_length else hunk.source_start
        out.extend(base_lines[pos:start])
        pos = start
        previous = None
        for line in hunk:
            if line.line_type == "\\":  # "\ No newline at end of file" for the line before
                if previous is not None and previous.is_added:
                    out[-1] = out[-1].removesuffix("\n")
                continue
            previous = line
            if line.is_context:
                out.append(base_lines[pos])
                pos += 1
            elif line.is_removed:
                pos += 1
            elif line.is_added:
                out.append(line.value)
    out.extend(base_lines[pos:])
    return out


_LINE = st.text(alphabet=st.sampled_from(list("ab x=\u201c\u2014\t\x0c\u2028")), max_size=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(_LINE, min_size=1, max_size=25),
    crlf=st.booleans(),
    bom=st.booleans(),
    final_newline=st.booleans(),
    start=st.integers(min_value=0, max_value=24),
    span=st.integers(min_value=1, max_value=4),
    replacement=st.lists(_LINE, max_size=4),
)
def test_plan_round_trips(
    lines: list[str],
    crlf: bool,
    bom: bool,
    final_newline: bool,
    start: int,
    span: int,
    replacement: list[str],
) -> None:
    start = min(start, len(lines) - 1)
    eol = "\r\n" if crlf else "\n"
    body = eol.join(lines) + (eol if final_newline else "")
    text_ = ("\ufeff" if bom else "") + body
    old = "\n".join(lines[start : start + span])
    new = "\n".join(replacement)
    try:
        plan = plan_edits(text_, [Replacement(old, new)], "f")
    except EditError:
        return  # not found / not unique / no change: nothing to check
    # the TextEdits rebuild exactly Pi's output: bom + new content with the file's ending
    file_eol = detect_line_ending(body)  # a one-line file has no ending: LF
    expected = ("\ufeff" if bom else "") + plan.new.replace("\n", file_eol)
    assert apply_text_edits(text_, plan.text_edits) == expected
    # every TextEdit covers whole original lines
    for edit in plan.text_edits:
        assert edit.start == len("\ufeff" if bom else "") or text_[edit.start - 1] == "\n"
    # the unified patch is parsable and turns the base into the new content
    patch = unified_patch("f", plan.base_lines, plan.new_lines, plan.changes)
    assert "".join(_apply_patch(plan.base_lines, patch)) == plan.new
    diff, first = display_diff(plan.base, plan.new, plan.base_lines, plan.new_lines, plan.changes)
    assert first is not None
    assert any(line.startswith(("+", "-")) for line in diff.split("\n"))


def test_edits_apply_to_the_document_text_not_the_disk(root: Path) -> None:
    document_text = "buffer a\nbuffer b\n"
    plan = plan_edits(document_text, [Replacement("buffer b", "B")], "f")
    assert apply_text_edits(document_text, plan.text_edits) == "buffer a\nB\n"
    assert text  # the helper module is shared with other tests


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(_LINE, min_size=1, max_size=20),
    start=st.integers(min_value=0, max_value=19),
    span=st.integers(min_value=1, max_value=3),
    replacement=st.lists(_LINE, max_size=3),
)
def test_fuzzy_plan_keeps_every_other_line(
    lines: list[str], start: int, span: int, replacement: list[str]
) -> None:
    start = min(start, len(lines) - 1)
    content = "\n".join(lines) + "\n"
    old = normalize_for_fuzzy_match("\n".join(lines[start : start + span]))
    try:
        plan = plan_edits(content, [Replacement(old, "\n".join(replacement))], "f")
    except EditError:
        return
    result = apply_text_edits(content, plan.text_edits)
    assert result == plan.new
    # edits replace whole original lines, so every other line keeps its exact bytes
    for edit in plan.text_edits:
        assert edit.start == 0 or content[edit.start - 1] == "\n"
        assert edit.end == len(content) or content[edit.end - 1] == "\n"
    first_touched = min(c[1] for c in plan.changes)
    assert result.split("\n")[:first_touched] == content.split("\n")[:first_touched]


async def test_fifo_is_not_edited_or_written(ws: DiskWorkspace, root: Path) -> None:
    import os

    from pi_lsp.tools import WriteTool

    os.mkfifo(root / "pipe")
    with pytest.raises(ToolError) as err:
        await call(EditTool(ws), {"path": "pipe", "oldText": "a", "newText": "b"})
    assert str(err.value) == "Could not edit file: pipe. Error code: EINVAL."
    with pytest.raises(ToolError, match="Not a regular file"):
        await call(WriteTool(ws), {"path": "pipe", "content": "x"})


async def test_undecodable_bytes_are_visible_in_the_diff(ws: DiskWorkspace, root: Path) -> None:
    """A Latin-1 byte is kept as a lone surrogate in memory; the diff (which is persisted in
    the session) shows it as \\xNN, never as a surrogate (issue 10 item 1)."""
    (root / "latin1.txt").write_bytes(b"caf\xe9 = 1\nx = 2\n")
    args = {"path": "latin1.txt", "oldText": "x = 2", "newText": "x = 3"}
    result = await call(EditTool(ws), args)
    details = result.details
    assert isinstance(details, dict)
    assert "caf\\xe9 = 1" in details["diff"]
    assert "\\xe9" in details["patch"]
    assert (root / "latin1.txt").read_bytes() == b"caf\xe9 = 1\nx = 3\n"
    json_safe = json.dumps(details, ensure_ascii=False).encode("utf-8")
    assert json_safe
