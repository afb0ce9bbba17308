"""Three-way line merge (PROTOCOL §9.2): both sides' changes when they do not overlap."""

from __future__ import annotations

from pi_lsp.review import merge3

BASE = "a\nb\nc\nd\ne\n"


def test_distant_changes_both_apply() -> None:
    ours = "a\nB by agent\nc\nd\ne\n"
    theirs = "a\nb\nc\nd\nE by user\nextra\n"
    assert merge3(BASE, ours, theirs).text == "a\nB by agent\nc\nd\nE by user\nextra\n"


def test_insertions_elsewhere_shift() -> None:
    ours = "a\nb\nc\nnew\nd\ne\n"
    theirs = "top\na\nb\nc\nd\ne\n"
    assert merge3(BASE, ours, theirs).text == "top\na\nb\nc\nnew\nd\ne\n"


def test_overlap_is_a_conflict_with_the_current_text() -> None:
    ours = "a\nb\nagent c\nd\ne\n"
    theirs = "x\na\nb\nuser c\nd\ne\n"
    result = merge3(BASE, ours, theirs)
    assert result.text is None
    [conflict] = result.conflicts
    assert conflict.current_text == "user c\n"
    assert conflict.first_line == 4


def test_insertions_at_the_same_place_conflict() -> None:
    result = merge3(BASE, "a\nagent\nb\nc\nd\ne\n", "a\nuser\nb\nc\nd\ne\n")
    assert result.text is None


def test_identical_or_one_sided() -> None:
    assert merge3(BASE, "z\n", BASE).text == "z\n"
    assert merge3(BASE, BASE, "q\n").text == "q\n"
    assert merge3(BASE, "same\n", "same\n").text == "same\n"


def test_crlf_lines_keep_their_endings() -> None:
    base = "a\r\nb\r\nc\r\n"
    assert merge3(base, "A\r\nb\r\nc\r\n", "a\r\nb\r\nC\r\n").text == "A\r\nb\r\nC\r\n"
