"""What the agent changed, per tool call, kept beside the session file (PROTOCOL §9.5).

A ``CheckpointStore`` lives in a directory next to the session file: ``objects/`` holds texts
by their SHA-256 (content-addressed: a text stored twice is stored once), ``records.jsonl``
one line per file a tool call changed (``toolCallId``, the checkpoint it came after, path,
the text before and after). Both survive restarts: a new store on the same directory sees
every record. ``revert`` computes how to take one record back out of the current text,
sparing what the user changed since (a three-way merge; an overlap is a conflict).

This is the storage and the arithmetic only; nothing here is served on the wire yet.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from .merge import MergeResult, merge3


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
    ) -> ChangeRecord:
        rec = ChangeRecord(
            tool_call_id, checkpoint, path, self.put_text(before), self.put_text(after), timestamp
        )
        self.directory.mkdir(parents=True, exist_ok=True)
        line = json.dumps(asdict(rec), ensure_ascii=False) + "\n"
        with open(self.directory / "records.jsonl", "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())
        return rec

    def records(self) -> list[ChangeRecord]:
        """Every record, oldest first; a torn or bad line (a crash mid-write) is skipped."""
        path = self.directory / "records.jsonl"
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        out: list[ChangeRecord] = []
        for line in lines:
            try:
                out.append(ChangeRecord(**json.loads(line)))
            except (ValueError, TypeError):
                continue
        return out

    # ---------------------------------------------------------------------- revert

    def revert(self, record: ChangeRecord, current: str) -> MergeResult:
        """``current`` with ``record``'s change taken out, the user's later edits kept."""
        return merge3(self.get_text(record.after), self.get_text(record.before), current)
