"""``pi/processes`` and ``pi/export``: a session's background processes (list, stop one) and
the session as a self-contained page (docs/protocol.md#background-processes-and-export).
Domain errors only; ``errors.jsonrpc_error`` maps them."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from ...sessions.export import ExportFormat, write_export
from ...sessions.session_file import SessionFile
from ..host.hosted import HostedSession
from ..protocol.contract import (
    ExportParams,
    ExportResult,
    ProcessesParams,
    ProcessesResult,
    ProcessInfo,
)
from .errors import InvalidRequest, RequestFailed


async def processes(hosted: HostedSession, p: ProcessesParams) -> ProcessesResult:
    jobs = hosted.session.jobs
    if p.op == "kill":
        if not p.id or jobs.get(p.id) is None:
            raise InvalidRequest(f"no process {p.id!r}")
        await jobs.kill(p.id)
    return ProcessesResult(processes=[ProcessInfo.model_validate(i) for i in hosted.processes()])


async def export(hosted: HostedSession, p: ExportParams) -> ExportResult:
    file = hosted.session.file
    if file is None:
        raise InvalidRequest("the session has no file")
    suffix = "html" if p.format == "html" else "md"
    default = f"pi-session-{hosted.id}.{suffix}"
    try:
        written = await asyncio.to_thread(_write, file, p.path, default, p.format)
    except OSError as exc:
        raise RequestFailed(f"Could not write the export: {exc}") from None
    return ExportResult(path=written)


def _write(file: SessionFile, path: str | None, default: str, fmt: ExportFormat) -> str:
    target = Path(path).expanduser() if path else Path(tempfile.gettempdir()) / default
    return str(write_export(file, target, fmt).resolve())
