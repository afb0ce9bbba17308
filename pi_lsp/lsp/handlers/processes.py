"""``pi/processes`` and ``pi/export``: a session's background processes (list, stop one) and
the session as a self-contained page (docs/protocol.md#background-processes-and-export)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from ...sessions.export import write_export
from ..host.hosted import HostedSession
from ..protocol.contract import (
    ExportParams,
    ExportResult,
    ProcessesParams,
    ProcessesResult,
    ProcessInfo,
)

REQUEST_FAILED = -32803


async def processes(hosted: HostedSession, p: ProcessesParams) -> dict[str, Any]:
    jobs = hosted.session.jobs
    if p.op == "kill":
        if not p.id or jobs.get(p.id) is None:
            raise JsonRpcInvalidParams(f"Invalid params for pi/processes: no process {p.id!r}")
        await jobs.kill(p.id)
    infos = [ProcessInfo.model_validate(info) for info in hosted.processes()]
    return ProcessesResult(processes=infos).to_wire()


async def export(hosted: HostedSession, p: ExportParams) -> dict[str, Any]:
    file = hosted.session.file
    if file is None:
        raise JsonRpcInvalidParams("Invalid params for pi/export: the session has no file")
    suffix = "html" if p.format == "html" else "md"
    default = f"pi-session-{hosted.id}.{suffix}"
    try:
        written = await asyncio.to_thread(_write, file, p.path, default, p.format)
    except OSError as exc:
        raise JsonRpcException(f"Could not write the export: {exc}", code=REQUEST_FAILED) from None
    return ExportResult(path=written).to_wire()


def _write(file: Any, path: str | None, default: str, fmt: Any) -> str:
    target = Path(path).expanduser() if path else Path(tempfile.gettempdir()) / default
    return str(write_export(file, target, fmt).resolve())
