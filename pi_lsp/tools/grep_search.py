"""The two search engines behind ``grep``: ripgrep when installed, a Python walk otherwise.

Owns ``GrepQuery`` and both backends, which return the same ``GrepOutcome`` (matches in path
order, stopped at the limit). Both respect ``.gitignore`` (nested too) and ``.ignore``, search
hidden files, skip ``.git``, do not follow symlinks and skip binary files and anything that is
not a regular file (a FIFO would block the read forever). The ripgrep backend runs
``rg --json`` (killed once the limit is reached, or on abort); the Python one uses ``walk`` and
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
from .images import looks_binary
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
    outcome = GrepOutcome()
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
                if _take_rg_event(raw, outcome, query.limit):
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


def _take_rg_event(raw: bytes, outcome: GrepOutcome, limit: int) -> bool:
    """Record one ``rg --json`` line; True once the match limit is reached."""
    if len(outcome.matches) >= limit or not raw.strip():
        return len(outcome.matches) >= limit
    try:
        event = json.loads(raw)
    except ValueError:
        return False
    if event.get("type") != "match":
        return False
    data = event.get("data") or {}
    path = _text_field(data.get("path"))
    number = data.get("line_number")
    if path is None or not isinstance(number, int):
        return False
    outcome.matches.append(GrepMatch(path, number, _text_field(data.get("lines"))))
    if len(outcome.matches) >= limit:
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
) -> list[GrepMatch]:
    """The first ``limit`` matching lines of one file (binary, unreadable and non-regular
    files: none)."""
    try:
        fh = open_regular(path)
    except OSError:
        return []
    found: list[GrepMatch] = []
    number = 0
    with fh:
        first = True
        for raw in iter_line_chunks(fh, stop):
            if first and looks_binary(raw[:8192]):
                return []
            first = False
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
                    if len(found) >= limit:
                        return found
            if not text.endswith("\n"):
                number -= 1  # the chunk ended inside a line cut at MAX_LINE_BYTES
    return found


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
        outcome.matches.extend(_file_matches(path, regex, chunk_regex, remaining, stop))
        if len(outcome.matches) >= query.limit:
            outcome.limit_reached = True
            break
    return outcome
