"""The two search engines behind ``grep``: ripgrep when installed, a Python walk otherwise.

Owns ``GrepQuery`` and both backends, which return the same ``GrepOutcome`` (matches in path
order, stopped at the limit). Both respect ``.gitignore`` (nested too) and ``.ignore``, search
hidden files, skip ``.git``, do not follow symlinks and skip binary files. The ripgrep backend
runs ``rg --json`` (killed once the limit is reached); the Python one uses ``walk`` and ``re``.
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
from typing import Any, Literal

import anyio.to_thread

from ..ai import AbortSignal
from .common import ABORTED_MESSAGE, ToolError
from .globs import PathGlob
from .images import looks_binary
from .walk import walk

Backend = Literal["auto", "rg", "python"]
READ_CHUNK = 65536


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


def compile_pattern(query: GrepQuery) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    """The per-line regex, and a whole-file pre-filter (``None`` when the pattern uses text
    anchors, where a line-by-line match is not a whole-text match)."""
    source = re.escape(query.pattern) if query.literal else query.pattern
    flags = re.IGNORECASE if query.ignore_case else 0
    try:
        line = re.compile(source, flags)
    except re.error as exc:
        raise ToolError(f"regex parse error: {exc} in pattern {query.pattern!r}") from exc
    if not query.literal and re.search(r"\\[AZz]", query.pattern):
        return line, None
    return line, re.compile(source, flags | re.MULTILINE)


async def search_python(query: GrepQuery, signal: AbortSignal | None) -> GrepOutcome:
    line_regex, file_regex = compile_pattern(query)
    stop = threading.Event()
    remove = signal.add_callback(stop.set) if signal is not None else None
    try:
        outcome = await anyio.to_thread.run_sync(
            _search_sync, query, line_regex, file_regex, stop
        )
    finally:
        if remove is not None:
            remove()
    if stop.is_set():
        raise ToolError(ABORTED_MESSAGE)
    return outcome


def _candidate_files(query: GrepQuery, stop: threading.Event) -> Iterator[str]:
    if not query.is_dir:
        return iter([str(query.search_path)])
    globs = [PathGlob(query.glob)] if query.glob else []

    def wanted(rel: str) -> bool:
        return all(g.matches(rel) != g.negated for g in globs)

    def forced(rel: str) -> bool:  # like rg: a matching --glob overrides the ignore files
        return any(not g.negated and g.matches(rel) for g in globs)

    entries = walk(
        query.root, query.search_path, cancelled=stop.is_set,
        keep_file=forced if globs else None,
    )
    return (e.path for e in entries if e.is_file and wanted(e.rel))


def _file_matches(
    path: str,
    regex: re.Pattern[str],
    file_regex: re.Pattern[str] | None,
    limit: int,
) -> list[GrepMatch]:
    """The first ``limit`` matching lines of one file (binary and unreadable files: none)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return []
    if looks_binary(data[:8192]):
        return []
    text = data.decode("utf-8", "replace")
    if file_regex is not None and file_regex.search(text) is None:
        return []  # quick reject of the whole file
    found: list[GrepMatch] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if regex.search(line) is not None:
            found.append(GrepMatch(path, number, line + "\n"))
            if len(found) >= limit:
                break
    return found


def _search_sync(
    query: GrepQuery,
    regex: re.Pattern[str],
    file_regex: re.Pattern[str] | None,
    stop: threading.Event,
) -> GrepOutcome:
    outcome = GrepOutcome()
    for path in _candidate_files(query, stop):
        if stop.is_set():
            break
        remaining = query.limit - len(outcome.matches)
        outcome.matches.extend(_file_matches(path, regex, file_regex, remaining))
        if len(outcome.matches) >= query.limit:
            outcome.limit_reached = True
            break
    return outcome
