"""Durable JSONL I/O for session files: crash-safe appends and tolerant loading.

Every append is one ``write`` of whole lines to an ``O_APPEND`` descriptor, then ``fsync``;
a new file is created exclusively (``O_EXCL``) and its directory fsync'd. A process killed at
any moment therefore leaves complete lines plus at most one torn last line, which
``load_file`` skips with a warning and ``repair_tail`` cuts off before the next append.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .entries import (
    MalformedLineError,
    SessionEntry,
    SessionHeader,
    parse_entry,
    parse_header,
)

log = logging.getLogger("pi_lsp.sessions")

FILE_MODE = 0o600
DIR_MODE = 0o700


class CorruptSessionError(ValueError):
    """The file has no valid session header (it is not a session, or its creation tore)."""


@dataclass(slots=True)
class LoadedFile:
    header: SessionHeader
    entries: list[SessionEntry]
    warnings: list[str] = field(default_factory=list)
    good_size: int = 0
    """Byte length of the file up to the end of its last complete line."""
    torn_tail: bool = False
    """The last line had no newline and did not parse: cut it before appending."""
    missing_newline: bool = False
    """The last line parsed but has no trailing newline: add one before appending."""


def load_file(path: Path) -> LoadedFile:
    """Read a session file. Malformed lines are skipped with a logged warning; a header that
    is missing or invalid raises ``CorruptSessionError``."""
    data = path.read_bytes()
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    offset = 0
    header: SessionHeader | None = None
    entries: list[SessionEntry] = []
    warnings: list[str] = []
    skipped: dict[str, str | None] = {}  # id -> parentId of lines that could not be loaded
    for number, raw in enumerate(lines, start=1):
        offset += len(raw) + 1
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
            if header is None:
                header = parse_header(text)
            else:
                entries.append(parse_entry(text))
        except (UnicodeDecodeError, MalformedLineError) as exc:
            if header is None:
                raise CorruptSessionError(f"{path}: line {number}: {exc}") from exc
            warnings.append(f"{path.name}: line {number} skipped: {exc}")
            _remember_link(raw, skipped)
    loaded_header, torn, missing_newline = header, False, False
    if tail.strip():
        try:
            text = tail.decode("utf-8")
            if loaded_header is None:
                loaded_header = parse_header(text)
            else:
                entries.append(parse_entry(text))
            missing_newline = True
        except (UnicodeDecodeError, MalformedLineError):
            torn = True
            warnings.append(
                f"{path.name}: torn last line skipped ({len(tail)} bytes; the process "
                "writing it probably stopped mid-write)"
            )
    if loaded_header is None:
        raise CorruptSessionError(f"{path}: no session header")
    entries = _relink(entries, skipped, warnings, path.name)
    for warning in warnings:
        log.warning("%s", warning)
    return LoadedFile(
        header=loaded_header,
        entries=entries,
        warnings=warnings,
        good_size=offset,
        torn_tail=torn,
        missing_newline=missing_newline,
    )


def _remember_link(raw: bytes, skipped: dict[str, str | None]) -> None:
    """The id and parent of a line that did not load, when its JSON still says them."""
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        return
    if isinstance(data, dict) and isinstance(data.get("id"), str):
        parent = data.get("parentId")
        skipped[data["id"]] = parent if isinstance(parent, str) else None


def _relink(
    entries: list[SessionEntry],
    skipped: dict[str, str | None],
    warnings: list[str],
    name: str,
) -> list[SessionEntry]:
    """One bad line must not cut a branch off at its children: an entry whose parent did not
    load takes that parent's own parent (the chain skips the bad line), or, when nothing is
    known about it, the entry before it in the file."""
    ids = {e.id for e in entries}
    out: list[SessionEntry] = []
    previous: str | None = None
    for entry in entries:
        parent = entry.parent_id
        seen: set[str] = set()
        while parent is not None and parent not in ids and parent in skipped:
            if parent in seen:
                parent = None
                break
            seen.add(parent)
            parent = skipped[parent]
        if parent is not None and parent not in ids:
            parent = previous
        if parent != entry.parent_id:
            warnings.append(
                f"{name}: entry {entry.id} re-attached to {parent or 'the root'} "
                f"(its parent {entry.parent_id} could not be loaded)"
            )
            entry = entry.model_copy(update={"parent_id": parent})
        out.append(entry)
        previous = entry.id
    return out


def repair_tail(path: Path, loaded: LoadedFile) -> None:
    """Make the file end with a complete line, so an append cannot glue onto a torn one."""
    if loaded.torn_tail:
        log.warning("%s: cutting the torn last line before appending", path.name)
        os.truncate(path, loaded.good_size)
        loaded.torn_tail = False
    elif loaded.missing_newline:
        append_lines(path, [], create=False, newline_only=True)
        loaded.missing_newline = False


def append_lines(
    path: Path,
    lines: Sequence[str],
    *,
    create: bool,
    newline_only: bool = False,
    sync: Callable[[Path, bool], None] | None = None,
) -> None:
    """Append whole ``lines`` (each without its newline) durably.

    ``create=True`` creates the file exclusively (``FileExistsError`` if it exists) and
    fsyncs the directory so the new name survives a power loss too. With ``sync`` the write
    happens here and the fsyncs are handed to ``sync(path, created)`` (a background worker:
    ``fsync_worker.BackgroundFsync``) instead of blocking the caller."""
    data = b"\n" if newline_only else "".join(line + "\n" for line in lines).encode("utf-8")
    if create:
        path.parent.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    flags = os.O_WRONLY | os.O_APPEND | (os.O_CREAT | os.O_EXCL if create else 0)
    fd = os.open(path, flags, FILE_MODE)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        if sync is None:
            os.fsync(fd)
    finally:
        os.close(fd)
    if sync is not None:
        sync(path, create)
    elif create:
        fsync_dir(path.parent)


def fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform/filesystem allows it
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
