"""Review of the agent's edits (PROTOCOL §9), as pure text algorithms.

``merge``: three-way line merge used to rebase an edit onto newer user text (§9.2).
``hunks``: the agent's applied edits as hunks tracked through later changes (§9.1).
``checkpoints``: what each tool call changed, beside the session file, and restore logs (§9.5).
Nothing here imports pygls, lsprotocol or anything of ours above ``tools/``.
"""

from .checkpoints import ChangeRecord, CheckpointStore, RestoredFile, RestoreLog
from .hunks import Hunk, HunkTracker, UndoConflict, split_hunks
from .merge import MergeConflict, MergeResult, merge3

__all__ = [
    "ChangeRecord",
    "CheckpointStore",
    "Hunk",
    "HunkTracker",
    "MergeConflict",
    "MergeResult",
    "RestoreLog",
    "RestoredFile",
    "UndoConflict",
    "merge3",
    "split_hunks",
]
