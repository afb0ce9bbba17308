"""Appending a streamed delta to a message field in amortised O(len(delta)).

``block.text += delta`` builds a new string and copies everything so far on every delta: a
640 KB answer in 4-character deltas copied ~50 GB. CPython grows a string in place when the
only reference is the one being extended, so the field's reference is dropped first and the
grown string stored back. Where another reference exists (a consumer kept the old text) the
addition copies, exactly as before: always correct, linear in the usual case.
Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

from pydantic import BaseModel


def append_to_field(model: BaseModel, name: str, delta: str) -> None:
    """``model.<name> += delta`` for a ``str`` field, without copying the text so far."""
    fields = model.__dict__
    text: str = fields[name]
    fields[name] = ""
    text += delta
    fields[name] = text
