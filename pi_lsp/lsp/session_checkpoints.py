"""One session's checkpoints (PROTOCOL §9.5): its user messages, and what the agent changed
after each.

Every user message on the session's current branch is a checkpoint (its session-file entry
id). Each file an ``edit`` / ``write`` tool call changed is recorded in the session's
``CheckpointStore`` (beside the session file, so it survives restarts), tagged with the latest
checkpoint; each ``bash`` call is recorded too, since what it changed is not known.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..ai.types import text_of
from ..review.checkpoints import ChangeRecord, CheckpointStore
from ..sessions import SessionFile
from ..sessions.entries import MessageEntry
from .review_book import UNDO_NOTE_HEAD

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Checkpoint:
    entry_id: str
    parent_id: str | None
    text: str
    timestamp: str


class SessionCheckpoints:
    def __init__(self, store: CheckpointStore, tree: Callable[[], SessionFile]) -> None:
        self.store = store
        self._tree = tree

    def checkpoints(self) -> list[Checkpoint]:
        """The user messages of the current branch, oldest first."""
        out: list[Checkpoint] = []
        for entry in self._tree().get_branch():
            if isinstance(entry, MessageEntry) and entry.message.role == "user":
                text = _prompt_text(entry.message.content)
                out.append(Checkpoint(entry.id, entry.parent_id, text, entry.timestamp))
        return out

    def since(self, entry_id: str) -> list[Checkpoint] | None:
        """``entry_id`` and every later checkpoint; ``None`` when it is not a checkpoint."""
        points = self.checkpoints()
        ids = [c.entry_id for c in points]
        return points[ids.index(entry_id) :] if entry_id in ids else None

    def records_since(self, entry_id: str) -> list[ChangeRecord]:
        later = {c.entry_id for c in self.since(entry_id) or ()}
        return [r for r in self.store.records() if r.checkpoint in later]

    def files(self) -> dict[str, list[str]]:
        """Checkpoint id → the files the agent changed after it (first change first)."""
        points = [c.entry_id for c in self.checkpoints()]
        by_point: dict[str, list[str]] = {p: [] for p in points}
        for rec in self.store.records():
            if rec.checkpoint not in by_point:
                continue
            for p in points[: points.index(rec.checkpoint) + 1]:
                if rec.path not in by_point[p]:
                    by_point[p].append(rec.path)
        return by_point

    def bash_since(self, entry_id: str) -> bool:
        later = {c.entry_id for c in self.since(entry_id) or ()}
        return bool(self.store.bash_checkpoints() & later)

    def latest(self) -> str | None:
        points = self.checkpoints()
        return points[-1].entry_id if points else None

    # ---------------------------------------------------------------------- record

    def record_edit(self, tool_call_id: str, path: Path, before: str, after: str) -> None:
        checkpoint = self.latest()
        if checkpoint is None:
            return
        try:
            self.store.record(tool_call_id, checkpoint, str(path), before, after, _now())
        except OSError as exc:
            log.error("could not record the checkpoint data of %s: %s", path, exc)

    def record_bash(self, tool_call_id: str) -> None:
        checkpoint = self.latest()
        if checkpoint is None:
            return
        try:
            self.store.record_bash(tool_call_id, checkpoint, _now())
        except OSError as exc:
            log.error("could not record a bash run: %s", exc)


def _prompt_text(content: str | list[Any]) -> str:
    """What the user typed: the text without the review note joined to it (§9.1)."""
    if isinstance(content, str):
        return content
    return text_of([b for b in content if not getattr(b, "text", "").startswith(UNDO_NOTE_HEAD)])


def _now() -> int:
    return int(time.time() * 1000)
