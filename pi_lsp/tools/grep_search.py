"""The two search engines behind ``grep``: ripgrep when installed, a Python walk otherwise.

Owns ``GrepQuery`` and both backends, which return the same ``GrepOutcome`` (matches in path
order, stopped at the limit). Both respect ``.gitignore`` (nested too) and ``.ignore``, search
hidden files, skip ``.git``, do not follow symlinks and skip anything that is not a regular
file (a FIFO would block the read forever). Both define a binary file the same way, whatever
its size or where the byte sits: one holding a NUL byte (ripgrep's rule). In a directory
search a binary file's matches are dropped and the file is named in ``binary_files`` when it
matches (never a silent skip: issue 47); a file given as the search path is searched as text.
The ripgrep backend runs ``rg --json --binary`` (each file's ``end`` event tells whether it
held a NUL; rg is killed at the end of the file that reaches the limit, or on abort); the
Python one uses ``walk`` and
RE2 (``linear_regex``: a pathological pattern cannot freeze the server), streaming each file
in chunks (memory stays flat on a 400 MB log) and checking for abort between chunks.
Must not import anything above tools/.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import re
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal

import anyio.to_thread

from ..ai import AbortSignal
from .common import ABORTED_MESSAGE, ToolError
from .globs import PathGlob
from .linear_regex import LinearPattern, PatternError, compile_linear, escape
from .regular_files import open_regular
from .walk import walk

Backend = Literal["auto", "rg", "python"]
READ_CHUNK = 1 << 20
MAX_LINE_BYTES = 4 << 20
"""A longer line is searched in pieces of this size (its matches keep one line number)."""


@dataclass(frozen=True, slots=True)
class GrepQuery:
    pattern: str
    search_path: Path
    is_dir: bool
    root: Path
    """The workspace root the search path lies in (its ignore files apply)."""
    glob: str | None = None
    ignore_case: bool = False
    literal: bool = False
    limit: int = 100


@dataclass(frozen=True, slots=True)
class GrepMatch:
    path: str
    line_number: int
    line_text: str | None = None


@dataclass(slots=True)
class GrepOutcome:
    matches: list[GrepMatch] = field(default_factory=list)
    limit_reached: bool = False
    binary_files: list[str] = field(default_factory=list)
    """Binary files (a NUL byte) that match, skipped, in path order."""


def ripgrep_path() -> str | None:
    return shutil.which("rg")


async def search(query: GrepQuery, backend: Backend, signal: AbortSignal | None) -> GrepOutcome:
    rg = ripgrep_path() if backend in ("auto", "rg") else None
    if backend == "rg" and rg is None:
        raise ToolError("ripgrep (rg) is not available")
    if rg is not None:
        return await search_ripgrep(rg, query, signal)
    return await search_python(query, signal)


# ------------------------------------------------------------------------------ ripgrep


def _rg_args(query: GrepQuery) -> list[str]:
    args = ["--json", "--line-number", "--color=never", "--hidden", "--no-require-git"]
    args.append("--sort=path")  # deterministic order, the same as the Python walk
    # a directory: binary files searched too, so that their ``end`` event says so (rg skips
    # them silently otherwise); one file: searched as text, NUL an ordinary byte
    args.append("--binary" if query.is_dir else "--text")
    if query.ignore_case:
        args.append("--ignore-case")
    if query.literal:
        args.append("--fixed-strings")
    if query.glob:
        args += ["--glob", query.glob]
    args += ["--glob", "!.git", "--", query.pattern, str(query.search_path)]
    return args


def _text_field(node: Any) -> str | None:
    if not isinstance(node, dict):
        return None
    if isinstance(node.get("text"), str):
        return str(node["text"])
    if isinstance(node.get("bytes"), str):
        return base64.b64decode(node["bytes"]).decode("utf-8", "replace")
    return None


async def search_ripgrep(rg: str, query: GrepQuery, signal: AbortSignal | None) -> GrepOutcome:
    proc = await asyncio.create_subprocess_exec(
        rg,
        *_rg_args(query),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    events = _RgEvents(query.limit)
    outcome = events.outcome
    aborted = False

    def on_abort() -> None:
        nonlocal aborted
        aborted = True
        with contextlib.suppress(ProcessLookupError):
            proc.kill()

    remove = signal.add_callback(on_abort) if signal is not None else None
    stderr_task = asyncio.create_task(proc.stderr.read())
    buffer = b""
    try:
        while not outcome.limit_reached:
            chunk = await proc.stdout.read(READ_CHUNK)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for raw in lines:
                if events.take(raw):
                    with contextlib.suppress(ProcessLookupError):
                        proc.kill()
                    break
        code = await proc.wait()
        with contextlib.suppress(Exception):
            await proc.stdout.read()
        stderr = (await stderr_task).decode("utf-8", "replace").strip()
    finally:
        if remove is not None:
            remove()
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
    if aborted:
        raise ToolError(ABORTED_MESSAGE)
    if not outcome.limit_reached and code not in (0, 1):
        raise ToolError(stderr or f"ripgrep exited with code {code}")
    return outcome


class _RgEvents:
    """``rg --json`` events into an outcome: a file's matches are kept once its ``end``
    event says it held no NUL byte (``binary_offset``), else the file is a binary one."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.outcome = GrepOutcome()
        self._pending: list[GrepMatch] = []

    def take(self, raw: bytes) -> bool:
        """Record one event; True once the match limit is reached."""
        outcome = self.outcome
        if not raw.strip():
            return False
        try:
            event = json.loads(raw)
        except ValueError:
            return False
        kind = event.get("type")
        data = event.get("data") or {}
        if kind == "begin":
            self._pending = []
        elif kind == "match":
            path = _text_field(data.get("path"))
            number = data.get("line_number")
            room = self.limit - len(outcome.matches)
            if path is not None and isinstance(number, int) and len(self._pending) < room:
                self._pending.append(GrepMatch(path, number, _text_field(data.get("lines"))))
        elif kind == "end":
            pending, self._pending = self._pending, []
            if data.get("binary_offset") is not None:
                path = _text_field(data.get("path"))
                if pending and path is not None:
                    outcome.binary_files.append(path)
                return False
            outcome.matches.extend(pending)
            if len(outcome.matches) >= self.limit:
                outcome.limit_reached = True
                return True
        return False


# ------------------------------------------------------------------------------- python


def compile_pattern(query: GrepQuery) -> tuple[LinearPattern, LinearPattern | None]:
    """The per-line regex, and a per-chunk pre-filter (``None`` when the pattern uses text
    anchors, where a line-by-line match is not a match in a chunk of lines)."""
    source = escape(query.pattern) if query.literal else query.pattern
    try:
        line = compile_linear(source, ignore_case=query.ignore_case)
        if not query.literal and re.search(r"\\[AZz]", query.pattern):
            return line, None
        chunk = compile_linear(source, ignore_case=query.ignore_case, multiline=True)
    except PatternError as exc:
        raise ToolError(f"regex parse error: {exc} in pattern {query.pattern!r}") from exc
    return line, chunk


async def search_python(query: GrepQuery, signal: AbortSignal | None) -> GrepOutcome:
    line_regex, chunk_regex = compile_pattern(query)
    stop = threading.Event()
    remove = signal.add_callback(stop.set) if signal is not None else None
    try:
        outcome = await anyio.to_thread.run_sync(_search_sync, query, line_regex, chunk_regex, stop)
    finally:
        if remove is not None:
            remove()
    if stop.is_set():
        raise ToolError(ABORTED_MESSAGE)
    return outcome


def _candidate_files(query: GrepQuery, stop: threading.Event) -> Iterator[str]:
    if not query.is_dir:
        return iter([str(query.search_path)])
    try:
        globs = [PathGlob(query.glob)] if query.glob else []
    except PatternError as exc:
        raise ToolError(f"invalid glob {query.glob!r}: {exc}") from None

    def wanted(rel: str) -> bool:
        return all(g.matches(rel) != g.negated for g in globs)

    def forced(rel: str) -> bool:  # like rg: a matching --glob overrides the ignore files
        return any(not g.negated and g.matches(rel) for g in globs)

    entries = walk(
        query.root,
        query.search_path,
        cancelled=stop.is_set,
        keep_file=forced if globs else None,
    )
    return (e.path for e in entries if e.is_file and wanted(e.rel))


def iter_line_chunks(fh: BinaryIO, stop: threading.Event) -> Iterator[bytes]:
    """The file in pieces of about ``READ_CHUNK`` bytes that end at a line end (a line
    longer than ``MAX_LINE_BYTES`` is cut there); stops early when ``stop`` is set."""
    pending = b""
    while not stop.is_set():
        data = fh.read(READ_CHUNK)
        if not data:
            break
        pending += data
        cut = pending.rfind(b"\n")
        if cut == -1:
            if len(pending) < MAX_LINE_BYTES:
                continue
            cut = len(pending) - 1
        yield pending[: cut + 1]
        pending = pending[cut + 1 :]
    if pending and not stop.is_set():
        yield pending


def _file_matches(
    path: str,
    regex: LinearPattern,
    chunk_regex: LinearPattern | None,
    limit: int,
    stop: threading.Event,
    as_text: bool,
) -> tuple[list[GrepMatch], bool]:
    """The first ``limit`` matching lines of one file (unreadable and non-regular files:
    none), and whether it is binary: a NUL byte anywhere, unless ``as_text``. A binary
    file's matches only say that it matches (a NUL ends a line there, as in ``rg --binary``):
    the caller drops them. Reads on after the limit only to look for a NUL."""
    try:
        fh = open_regular(path)
    except OSError:
        return [], False
    found: list[GrepMatch] = []
    number = 0
    binary = full = False
    with fh:
        for raw in iter_line_chunks(fh, stop):
            if not as_text and not binary and b"\x00" in raw:
                binary = True
            if binary:
                if found:
                    return found, True  # a binary file that matches: all there is to know
                raw = raw.replace(b"\x00", b"\n")
            elif full:
                continue
            text = raw.decode("utf-8", "replace")
            if chunk_regex is not None and chunk_regex.search(text) is None:
                number += text.count("\n")  # quick reject of the whole chunk
                continue
            lines = text.split("\n")
            if text.endswith("\n"):
                lines.pop()
            for line in lines:
                number += 1
                if regex.search(line) is not None:
                    found.append(GrepMatch(path, number, line + "\n"))
                    if len(found) >= limit or binary:
                        full = True
                        break
            if binary and found:
                return found, True
            if not text.endswith("\n"):
                number -= 1  # the chunk ended inside a line cut at MAX_LINE_BYTES
    return found, binary


def _search_sync(
    query: GrepQuery,
    regex: LinearPattern,
    chunk_regex: LinearPattern | None,
    stop: threading.Event,
) -> GrepOutcome:
    outcome = GrepOutcome()
    for path in _candidate_files(query, stop):
        if stop.is_set():
            break
        remaining = query.limit - len(outcome.matches)
        found, binary = _file_matches(
            path, regex, chunk_regex, remaining, stop, as_text=not query.is_dir
        )
        if binary:
            if found:
                outcome.binary_files.append(path)
            continue
        outcome.matches.extend(found)
        if len(outcome.matches) >= query.limit:
            outcome.limit_reached = True
            break
    return outcome
