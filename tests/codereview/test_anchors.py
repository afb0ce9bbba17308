"""Findings move with the text (pi_lsp/codereview/anchors.py)."""

from __future__ import annotations

from pi_lsp.codereview.anchors import Anchor, anchor_lines, line_range, move

TEXT = "a\nb\nc\nd\n"


def test_anchor_and_lines() -> None:
    anchor = anchor_lines(TEXT, 2, 3)
    assert anchor == Anchor(2, 6)
    assert line_range(TEXT, anchor) == (1, 2)
    assert anchor_lines(TEXT, 5, 5) is None
    assert anchor_lines("x", 1, 1) == Anchor(0, 1)


def test_a_change_above_moves_it_below_leaves_it_inside_clears_it() -> None:
    anchor = anchor_lines(TEXT, 3, 3)
    assert anchor is not None
    above = "a\nnew\nb\nc\nd\n"
    moved = move(anchor, TEXT, above)
    assert moved is not None
    assert line_range(above, moved) == (3, 3)
    below = "a\nb\nc\nd\ne\n"
    assert move(anchor, TEXT, below) == anchor
    assert move(anchor, TEXT, "a\nb\nC\nd\n") is None
    removed_above = "b\nc\nd\n"
    moved = move(anchor, TEXT, removed_above)
    assert moved is not None
    assert line_range(removed_above, moved) == (1, 1)
