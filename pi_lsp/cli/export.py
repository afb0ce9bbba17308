"""``pi-lsp export SESSION [--html OUT | --markdown [OUT]] [--cwd DIR]``: a saved session as
a self-contained HTML page (default) or Markdown (docs/sessions.md#export).

``SESSION`` is a session id of the workspace ``--cwd`` (default: the current directory), or
the path of a session file. The HTML goes to ``OUT`` (default ``pi-session-<id>.html`` in
the current directory) and its path is printed; Markdown goes to ``OUT`` or to stdout.
Exit codes: 0 written, 2 bad usage or no such session.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ..sessions import SessionFile
from ..sessions.export import export_session, write_export
from ..sessions.jsonl import CorruptSessionError
from ..sessions.store import SessionNotFoundError, SessionStore


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pi-lsp export",
        description="Export a saved session as a self-contained HTML page or Markdown.",
    )
    p.add_argument("session", metavar="SESSION", help="a session id, or a session file's path")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--html", metavar="OUT", help="write the HTML page here")
    out.add_argument(
        "--markdown",
        metavar="OUT",
        nargs="?",
        const="-",
        help="Markdown instead of HTML: to OUT, or to stdout without one",
    )
    p.add_argument(
        "--cwd", metavar="DIR", default=".", help="the workspace whose sessions to look in"
    )
    return p


def open_session(spec: str, cwd: Path) -> SessionFile:
    path = Path(spec).expanduser()
    if path.suffix == ".jsonl" and path.is_file():
        try:
            return SessionFile.load(path)
        except CorruptSessionError as exc:
            raise SessionNotFoundError(f"{path} is not a readable session file: {exc}") from exc
    return SessionStore.for_workspace(cwd.resolve()).open(spec)


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    try:
        file = open_session(args.session, Path(args.cwd))
    except SessionNotFoundError as exc:
        print(f"pi-lsp export: {exc}", file=sys.stderr)
        return 2
    if args.markdown == "-":
        sys.stdout.write(export_session(file, "markdown"))
        return 0
    if args.markdown:
        target, fmt = Path(args.markdown), "markdown"
    else:
        target = Path(args.html or f"pi-session-{file.session_id}.html")
        fmt = "html"
    try:
        written = write_export(file, target, fmt)  # type: ignore[arg-type]
    except OSError as exc:
        print(f"pi-lsp export: cannot write {target}: {exc}", file=sys.stderr)
        return 2
    print(written.resolve())
    return 0
