"""What the agent changed, per tool call, kept beside the session file
(docs/protocol.md#checkpoints-restore-revert-one-tool-call-95).

A ``CheckpointStore`` lives in a directory next to the session file: ``objects/`` holds texts
by their SHA-256 (content-addressed: a text stored twice is stored once), ``records.jsonl``
one line per file a tool call changed (``toolCallId``, the checkpoint it came after, path,
the text before and after). Both survive restarts: a new store on the same directory sees
every record. ``revert`` computes how to take one record back out of the current text, hunk
by hunk, sparing what the user changed since (a hunk overlapping a user change is a
conflict, left as it is; the record's other hunks are still taken out).

``bash.jsonl`` names the checkpoints after which ``bash`` ran (what a command changed on disk
is not tracked, so a restore says so). ``RestoreLog`` keeps what a restore changed per file
(the text before and after it), so ``pi/undoRestore`` can put it back, also after a restart.
Served by ``pi_lsp/lsp/handlers/checkpoints.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from .merge import MergeResult, merge3_partial


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

    def copy_to(self, other: CheckpointStore, checkpoints: set[str]) -> None:
        """Copy the records made after ``checkpoints`` (and their ``bash`` marks) into
        ``other``: a forked session keeps what the agent did in the part it copies."""
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
        for checkpoint in sorted(self.bash_checkpoints() & checkpoints):
            other.record_bash("", checkpoint, 0)

    def record_bash(self, tool_call_id: str, checkpoint: str, timestamp: int) -> None:
        """``bash`` ran after ``checkpoint`` (its changes are not tracked)."""
        line = (
            json.dumps(
                {"toolCallId": tool_call_id, "checkpoint": checkpoint, "timestamp": timestamp}
            )
            + "\n"
        )
        self.directory.mkdir(parents=True, exist_ok=True)
        with open(self.directory / "bash.jsonl", "a", encoding="utf-8") as f:
            f.write(line)

    def bash_checkpoints(self) -> set[str]:
        try:
            lines = (self.directory / "bash.jsonl").read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return set()
        out: set[str] = set()
        for line in lines:
            try:
                out.add(str(json.loads(line)["checkpoint"]))
            except (ValueError, KeyError, TypeError):
                continue
        return out

    # ---------------------------------------------------------------------- revert

    def revert(self, record: ChangeRecord, current: str) -> MergeResult:
        """``current`` with ``record``'s change taken out hunk by hunk, the user's later
        edits kept: a hunk whose lines the user changed since stays as it is and is listed
        in ``conflicts``; the others are still reverted (``text`` is always set)."""
        return merge3_partial(self.get_text(record.after), self.get_text(record.before), current)


@dataclass(frozen=True, slots=True)
class RestoredFile:
    uri: str
    before: str
    """The file's text just before the restore."""
    after: str
    """Its text just after it."""


class RestoreLog:
    """What each restore changed, one JSON file per restore id (texts stored inline)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def save(self, restore_id: str, files: list[RestoredFile]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        data = json.dumps([asdict(f) for f in files], ensure_ascii=False)
        fd, tmp = tempfile.mkstemp(dir=self.directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", errors="surrogatepass") as f:
                f.write(data)
            os.replace(tmp, self.directory / f"{restore_id}.json")
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def load(self, restore_id: str) -> list[RestoredFile] | None:
        if not restore_id.isalnum():
            return None
        try:
            raw = (self.directory / f"{restore_id}.json").read_text(
                encoding="utf-8", errors="surrogatepass"
            )
            return [RestoredFile(**item) for item in json.loads(raw)]
        except (OSError, ValueError, TypeError):
            return None

    def forget(self, restore_id: str) -> None:
        if restore_id.isalnum():
            (self.directory / f"{restore_id}.json").unlink(missing_ok=True)
