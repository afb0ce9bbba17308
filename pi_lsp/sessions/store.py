"""``SessionStore``: the session files of one workspace — create, open by id, list.

Files are ``<dir>/<timestamp>_<sessionId>.jsonl`` (see ``paths``); ``list()`` reads each
file tolerantly (skipping what it cannot parse) and reports the title (the session name, or
the first prompt), the last activity time and the message count, newest first.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .jsonl import CorruptSessionError
from .paths import SESSION_ID_RE, iso_from_datetime, parse_iso, sessions_dir
from .redact import Redactor
from .session_file import SessionFile

__all__ = [
    "SessionFile",
    "SessionInfo",
    "SessionNotFoundError",
    "SessionStore",
    "sessions_dir",
]

log = logging.getLogger("pi_lsp.sessions")

TITLE_MAX = 80
NO_TITLE = "(no messages)"


class SessionNotFoundError(LookupError):
    """No session file with that id in this workspace's session directory."""


@dataclass(frozen=True, slots=True)
class SessionInfo:
    session_id: str
    title: str
    updated_at: datetime
    message_count: int
    path: Path
    created_at: datetime
    name: str | None = None
    parent_session: str | None = None
    subagent_of: str | None = None
    """A ``task`` child's parent session id (its ``subagent_parent`` entry)."""

    @property
    def updated_at_iso(self) -> str:
        return iso_from_datetime(self.updated_at)


class SessionStore:
    """The sessions of the workspace rooted at ``cwd``, stored in ``directory``."""

    def __init__(
        self,
        directory: Path,
        cwd: Path,
        *,
        redactor: Redactor | None = None,
        sync: Callable[[Path, bool], None] | None = None,
    ) -> None:
        self.directory = Path(directory)
        self.cwd = Path(cwd)
        self.redactor = redactor
        self.sync = sync
        """Where the files' fsyncs go (a background worker in the server); ``None``: inline."""

    @classmethod
    def for_workspace(
        cls,
        cwd: Path,
        *,
        data_home: Path | None = None,
        redactor: Redactor | None = None,
        sync: Callable[[Path, bool], None] | None = None,
    ) -> SessionStore:
        return cls(sessions_dir(cwd, data_home), cwd, redactor=redactor, sync=sync)

    def create(
        self, *, session_id: str | None = None, parent_session: str | None = None
    ) -> SessionFile:
        """A new session (its file appears with its first message)."""
        file = SessionFile.new(
            self.directory,
            self.cwd,
            session_id=session_id,
            parent_session=parent_session,
            redactor=self.redactor,
        )
        file.sync = self.sync
        return file

    def path_of(self, session_id: str) -> Path | None:
        if not SESSION_ID_RE.match(session_id) or not self.directory.is_dir():
            return None
        matches = sorted(self.directory.glob(f"*_{session_id}.jsonl"))
        return matches[-1] if matches else None

    def open(self, session_id: str) -> SessionFile:
        """Load a session by id; ``SessionNotFoundError`` when there is no such file (or it is
        not a session file)."""
        path = self.path_of(session_id)
        if path is None:
            raise SessionNotFoundError(f"Session not found: {session_id}")
        try:
            file = SessionFile.load(path, redactor=self.redactor)
        except CorruptSessionError as exc:
            raise SessionNotFoundError(f"Session {session_id} is unreadable: {exc}") from exc
        file.sync = self.sync
        return file

    def open_for_writing(self, session_id: str) -> tuple[SessionFile, str | None]:
        """``open`` plus the session's write lock. When another process (another editor
        window, a ``pi-lsp run``) has it open, the session is forked at its latest entry and
        the copy is returned with the original's id: both keep their work, visibly."""
        file = self.open(session_id)
        if file.acquire_lock():
            return file, None
        leaf = file.leaf_id
        if leaf is None:
            return self.create(parent_session=str(file.path)), session_id
        copy = file.fork(leaf, directory=self.directory)
        copy.acquire_lock()
        log.warning("session %s is open elsewhere: continuing in %s", session_id, copy.session_id)
        return copy, session_id

    def list(self, *, include_children: bool = False) -> list[SessionInfo]:
        """Every readable session, newest activity first; ``task`` children only with
        ``include_children`` (their parent lists them: docs/subagents.md)."""
        if not self.directory.is_dir():
            return []
        infos: list[SessionInfo] = []
        for path in self.directory.glob("*.jsonl"):
            try:
                info = read_session_info(path)
            except OSError as exc:
                log.warning("cannot read session %s: %s", path.name, exc)
                continue
            if info is not None and (include_children or info.subagent_of is None):
                infos.append(info)
        infos.sort(key=lambda i: (i.updated_at, i.created_at, i.path.name), reverse=True)
        return infos


def read_session_info(path: Path) -> SessionInfo | None:
    """Summarise a session file without validating every message (``None`` if it has no
    valid header)."""
    header: dict[str, Any] | None = None
    count = 0
    first_prompt = ""
    name: str | None = None
    subagent_of: str | None = None
    last_activity = 0
    with path.open("rb") as f:
        for raw in f:
            try:
                record = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(record, dict):
                continue
            if header is None:
                if record.get("type") != "session" or not isinstance(record.get("id"), str):
                    return None
                header = record
                continue
            kind = record.get("type")
            if kind == "session_info":
                name = str(record.get("name") or "").strip() or None
            if kind == "custom" and record.get("customType") == "subagent_parent":
                data = record.get("data")
                parent = data.get("parentSessionId") if isinstance(data, dict) else None
                subagent_of = parent if isinstance(parent, str) else None
            if kind != "message" or not isinstance(record.get("message"), dict):
                continue
            count += 1
            message = record["message"]
            role = message.get("role")
            if role not in ("user", "assistant"):
                continue
            stamp = message.get("timestamp")
            if isinstance(stamp, int | float):
                last_activity = max(last_activity, int(stamp))
            if role == "user" and not first_prompt:
                first_prompt = prompt_text(message.get("content"))
    if header is None:
        return None
    created = parse_iso(str(header.get("timestamp", ""))) or _mtime(path)
    updated = datetime.fromtimestamp(last_activity / 1000, UTC) if last_activity else created
    return SessionInfo(
        session_id=header["id"],
        title=session_title(first_prompt, name),
        updated_at=updated,
        message_count=count,
        path=path,
        created_at=created,
        name=name,
        parent_session=header.get("parentSession"),
        subagent_of=subagent_of,
    )


def prompt_text(content: Any) -> str:
    """The text of a user message's content: a string, or its text blocks joined — blocks as
    saved (JSON objects) or live (content models)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(_block_text(b)) for b in content if _block_type(b) == "text")
    return ""


def _block_type(block: Any) -> Any:
    return block.get("type") if isinstance(block, dict) else getattr(block, "type", None)


def _block_text(block: Any) -> Any:
    return block.get("text", "") if isinstance(block, dict) else getattr(block, "text", "")


def session_title(first_prompt: str, name: str | None = None) -> str:
    """The one title of a session, live or saved (``pi/sessions``): its name when it has one,
    else its first prompt on one line, cut to ``TITLE_MAX`` characters ending in "…"."""
    if name and name.strip():
        return " ".join(name.split())
    flat = " ".join(first_prompt.split())
    if not flat:
        return NO_TITLE
    return flat if len(flat) <= TITLE_MAX else flat[: TITLE_MAX - 1].rstrip() + "…"


def _mtime(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime, UTC)
