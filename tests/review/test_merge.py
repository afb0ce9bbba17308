"""Three-way line merge (docs/protocol.md#rebase-onto-your-newer-text-92): both sides' changes when
they do not overlap."""

from __future__ import annotations

from pi_lsp.review import merge3
from pi_lsp.review.merge import merge3_partial

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


def test_partial_merge_applies_what_does_not_clash() -> None:
    base = "a\nb\nc\nd\ne\n"
    ours = "A\nb\nc\nd\nE\n"
    theirs = "a\nb\nC\nd\ne mine\n"
    result = merge3_partial(base, ours, theirs)
    assert result.text == "A\nb\nC\nd\ne mine\n"
    assert [(c.first_line, c.current_text) for c in result.conflicts] == [(5, "e mine\n")]


def test_partial_merge_without_clashes_is_merge3() -> None:
    base, ours, theirs = "a\nb\nc\n", "A\nb\nc\n", "a\nb\nC\n"
    assert merge3_partial(base, ours, theirs) == merge3(base, ours, theirs)


def test_partial_merge_takes_a_change_the_user_made_too_as_done() -> None:
    base, ours = "a\nb\nc\n", "a\nB\nc\n"
    theirs = "x\na\nB\nc\n"
    assert merge3_partial(base, ours, theirs).text == "x\na\nB\nc\n"
    assert merge3_partial(base, ours, theirs).conflicts == ()
