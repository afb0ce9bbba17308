"""What the agent changed, per tool call, kept beside the session file (PROTOCOL §9.5).

A ``CheckpointStore`` lives in a directory next to the session file: ``objects/`` holds texts
by their SHA-256 (content-addressed: a text stored twice is stored once), ``records.jsonl``
one line per file a tool call changed (``toolCallId``, the checkpoint it came after, path,
the text before and after), ``restores.jsonl`` the same per file a restore changed (its
``toolCallId`` is the restore id, so ``pi/undoRestore`` takes it back the same way), and
``bash.jsonl`` the ``bash`` calls (what they changed is not known; a restore says so). All
survive restarts: a new store on the same directory sees every record. ``revert`` computes
how to take one record back out of the current text hunk by hunk, sparing what the user
changed since (a hunk overlapping a user change is a conflict, left as it is).

Storage and arithmetic only; ``pi_lsp/lsp/checkpoint_api.py`` serves it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .merge import MergeResult, merge3_partial

RECORDS = "records.jsonl"
RESTORES = "restores.jsonl"
BASH = "bash.jsonl"


@dataclass(frozen=True, slots=True)
class ChangeRecord:
    tool_call_id: str
    checkpoint: str
    """Entry id of the user message (checkpoint) this change came after."""
    path: str
    before: str
    """SHA-256 of the text before the tool call (``objects/``)."""
    after: str
    timestamp: int


class CheckpointStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @classmethod
    def beside(cls, session_file: Path) -> CheckpointStore:
        return cls(session_file.with_name(session_file.name + ".checkpoints"))

    # --------------------------------------------------------------------- objects

    def put_text(self, text: str) -> str:
        data = text.encode("utf-8", "surrogatepass")
        digest = hashlib.sha256(data).hexdigest()
        target = self.directory / "objects" / digest[:2] / digest
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, target)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        return digest

    def get_text(self, digest: str) -> str:
        path = self.directory / "objects" / digest[:2] / digest
        return path.read_bytes().decode("utf-8", "surrogatepass")

    # --------------------------------------------------------------------- records

    def record(
        self,
        tool_call_id: str,
        checkpoint: str,
        path: str,
        before: str,
        after: str,
        timestamp: int,
        *,
        kind: str = RECORDS,
    ) -> ChangeRecord:
        """One file a tool call (``kind=RECORDS``) or a restore (``RESTORES``) changed."""
        rec = ChangeRecord(
            tool_call_id, checkpoint, path, self.put_text(before), self.put_text(after), timestamp
        )
        self._append(kind, asdict(rec))
        return rec

    def records(self, kind: str = RECORDS) -> list[ChangeRecord]:
        """Every record, oldest first; a torn or bad line (a crash mid-write) is skipped."""
        out: list[ChangeRecord] = []
        for data in self._lines(kind):
            try:
                out.append(ChangeRecord(**data))
            except TypeError:
                continue
        return out

    def record_bash(self, tool_call_id: str, checkpoint: str, timestamp: int) -> None:
        """A ``bash`` call ran after ``checkpoint`` (what it changed is not tracked)."""
        self._append(
            BASH, {"tool_call_id": tool_call_id, "checkpoint": checkpoint, "timestamp": timestamp}
        )

    def bash_checkpoints(self) -> set[str]:
        """The checkpoints after which ``bash`` ran."""
        return {str(d["checkpoint"]) for d in self._lines(BASH) if "checkpoint" in d}

    def copy_to(self, other: CheckpointStore, checkpoints: set[str]) -> None:
        """Copy the records (and ``bash`` runs) made after ``checkpoints`` into ``other``
        (a forked session keeps the history of the part of the conversation it copies)."""
        for rec in self.records():
            if rec.checkpoint in checkpoints:
                other.record(
                    rec.tool_call_id,
                    rec.checkpoint,
                    rec.path,
                    self.get_text(rec.before),
                    self.get_text(rec.after),
                    rec.timestamp,
                )
        for data in self._lines(BASH):
            if data.get("checkpoint") in checkpoints:
                other._append(BASH, data)

    def _append(self, kind: str, data: dict[str, Any]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        line = json.dumps(data, ensure_ascii=False) + "\n"
        with open(self.directory / kind, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())

    def _lines(self, kind: str) -> list[dict[str, Any]]:
        try:
            lines = (self.directory / kind).read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        out: list[dict[str, Any]] = []
        for line in lines:
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if isinstance(data, dict):
                out.append(data)
        return out

    # ---------------------------------------------------------------------- revert

    def revert(self, record: ChangeRecord, current: str) -> MergeResult:
        """``current`` with ``record``'s change taken out hunk by hunk, the user's later
        edits kept; a hunk the user changed since is left as it is and listed in
        ``conflicts`` (``text`` is always set)."""
        return merge3_partial(self.get_text(record.after), self.get_text(record.before), current)
