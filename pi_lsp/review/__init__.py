"""Review of the agent's edits (docs/protocol.md#9-review-rebase-checkpoints), as pure text
algorithms.

``merge``: three-way line merge used to rebase an edit onto newer user text
(docs/protocol.md#rebase-onto-your-newer-text-92).
``hunks``: the agent's applied edits as hunks tracked through later changes
(docs/protocol.md#review-hunks-keep-or-undo-each-change-91).
``checkpoints``: what each tool call changed, beside the session file, and restore logs
(docs/protocol.md#checkpoints-restore-revert-one-tool-call-95).
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
