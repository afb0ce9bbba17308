"""Review of the agent's edits (PROTOCOL §9), as pure text algorithms.

``merge``: three-way line merge used to rebase an edit onto newer user text (§9.2).
``hunks``: the agent's applied edits as hunks tracked through later changes (§9.1).
Nothing here imports pygls, lsprotocol or anything of ours above ``tools/``.
"""

from .hunks import Hunk, HunkTracker, UndoConflict, split_hunks
from .merge import MergeConflict, MergeResult, merge3

__all__ = [
    "Hunk",
    "HunkTracker",
    "MergeConflict",
    "MergeResult",
    "UndoConflict",
    "merge3",
    "split_hunks",
]
