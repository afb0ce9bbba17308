"""The hunk tracker (docs/protocol.md#review-hunks-keep-or-undo-each-change-91): hunks move with
later changes; undo spares user text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.review import HunkTracker, UndoConflict
from pi_lsp.review.hunks import Region

URI = "file:///w/a.py"


def _apply(text: str, region: Region) -> str:
    return text[: region.start] + region.new_text + text[region.end :]


def _agent(tracker: HunkTracker, text: str, after: str, call: str = "c1") -> str:
    tracker.agent_edit(URI, text, after, call)
    return after


def _user(tracker: HunkTracker, text: str, start: int, end: int, new: str) -> str:
    tracker.change(URI, start, end, new)
    return text[:start] + new + text[end:]


def _undo(tracker: HunkTracker, text: str, hunk_id: str) -> str | UndoConflict:
    region = tracker.undo_region(hunk_id, text)
    if isinstance(region, UndoConflict):
        return region
    text = _user(tracker, text, region.start, region.end, region.new_text)
    tracker.keep(hunk_id)
    return text


def test_one_edit_two_hunks() -> None:
    t = HunkTracker()
    text = _agent(t, "a\nb\nc\nd\n", "A\nb\nc\nD\n")
    hunks = t.pending(URI)
    assert [(h.old_text, h.new_text) for h in hunks] == [("a\n", "A\n"), ("d\n", "D\n")]
    assert all(text[h.start : h.end] == h.new_text for h in hunks)
    assert len({h.id for h in hunks}) == 2


def test_typing_above_moves_the_hunk_and_undo_keeps_the_typing() -> None:
    t = HunkTracker()
    text = _agent(t, "a\nb\n", "a\nB\n")
    [hunk] = t.pending(URI)
    text = _user(t, text, 0, 0, "# mine\n")
    assert text[hunk.start : hunk.end] == "B\n"
    text = _undo(t, text, hunk.id)
    assert text == "# mine\na\nb\n"
    assert t.pending(URI) == []


def test_typing_inside_makes_undo_a_conflict() -> None:
    t = HunkTracker()
    text = _agent(t, "a\nb\n", "a\nB\n")
    [hunk] = t.pending(URI)
    text = _user(t, text, hunk.start + 1, hunk.start + 1, "X")
    result = _undo(t, text, hunk.id)
    assert isinstance(result, UndoConflict)
    assert t.get(hunk.id) is not None  # still pending: the user decides


def test_later_agent_edit_absorbs_and_undo_restores_the_original() -> None:
    t = HunkTracker()
    text = _agent(t, "a\nb\nc\n", "a\nB\nc\n", "c1")
    text = _agent(t, text, "a\nBB\nc\n", "c2")
    [hunk] = t.pending(URI)
    assert (hunk.old_text, hunk.new_text, hunk.tool_call_id) == ("b\n", "BB\n", "c2")
    assert _undo(t, text, hunk.id) == "a\nb\nc\n"


def test_undo_to_no_change_is_dropped() -> None:
    t = HunkTracker()
    text = _agent(t, "a\nb\n", "a\nB\n", "c1")
    _agent(t, text, "a\nb\n", "c2")
    assert t.pending(URI) == []


LOWER = st.text(alphabet="abc\n", max_size=6)
UPPER = st.text(alphabet="XYZ\n", max_size=4)
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("user"), st.integers(0, 200), st.integers(0, 5), UPPER),
        st.tuples(st.just("agent"), st.integers(0, 200), st.integers(0, 3), LOWER),
        st.tuples(st.just("undo"), st.integers(0, 20), st.just(0), st.just("")),
        st.tuples(st.just("keep"), st.integers(0, 20), st.just(0), st.just("")),
    ),
    max_size=25,
)


@settings(max_examples=300, deadline=None)
@given(start=st.lists(LOWER, min_size=1, max_size=6), ops=OPS)
def test_interleavings_keep_user_text_and_hunk_ranges(start: list[str], ops: list) -> None:
    """User text is upper case, the agent's lower case: an undo never removes an upper-case
    character, and every untouched pending hunk's range holds exactly its ``new_text``."""
    t = HunkTracker()
    text = "\n".join(start)
    for kind, pos, size, new in ops:
        if kind == "user":
            s = pos % (len(text) + 1)
            text = _user(t, text, s, min(len(text), s + size), new)
        elif kind == "agent":
            lines = text.splitlines(keepends=True)
            i = pos % (len(lines) + 1)
            after = "".join([*lines[:i], new, *lines[i + size :]])
            text = _agent(t, text, after)
        else:
            pending = t.pending(URI)
            if not pending:
                continue
            hunk = pending[pos % len(pending)]
            if kind == "keep":
                t.keep(hunk.id)
                continue
            before_upper = sum(ch.isupper() for ch in text)
            result = _undo(t, text, hunk.id)
            if isinstance(result, UndoConflict):
                assert hunk.touched or text[hunk.start : hunk.end] != hunk.new_text
                continue
            assert sum(ch.isupper() for ch in result) >= before_upper
            text = result
        for h in t.pending(URI):
            assert 0 <= h.start <= h.end <= len(text)
            if not h.touched:
                assert text[h.start : h.end] == h.new_text
