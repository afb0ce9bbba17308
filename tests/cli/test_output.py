"""``pi-lsp run``'s terminal output shows a note the model was given (a review note) as one
line on stderr, never as the user's words or the model's answer."""

from __future__ import annotations

import io

from pi_lsp.agent.messages import CustomMessage
from pi_lsp.agent.types import MessageEndEvent
from pi_lsp.cli.output import TerminalPrinter


def test_a_review_note_is_one_marker_line() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = TerminalPrinter(out, err)
    note = CustomMessage(
        custom_type="review_note",
        content="[The user reviewed your edits and undid these changes; …]\n- a.py lines 2-2",
        details={"summary": "you undid a.py line 2"},
    )
    printer(MessageEndEvent(note))
    assert out.getvalue() == ""
    assert err.getvalue() == "[pi was told: you undid a.py line 2]\n"


def test_a_note_without_a_summary_shows_its_first_line() -> None:
    out, err = io.StringIO(), io.StringIO()
    TerminalPrinter(out, err)(MessageEndEvent(CustomMessage(content="first\nsecond")))
    assert err.getvalue() == "[pi was told: first]\n"
    hidden = CustomMessage(content="x", display=False)
    TerminalPrinter(out, err)(MessageEndEvent(hidden))
    assert err.getvalue() == "[pi was told: first]\n"
