"""The ``bash_output`` and ``bash_kill`` tools: read and stop the session's background
processes (``bash {background: true}``, docs/tools.md#background-processes).

``bash_output {id, since?}`` returns the output since the last read (or since byte offset
``since``), cut like other tool output (the last 2000 lines / 50 KiB), with the process's
state (running, exit code); output the bounded ring no longer holds is named with the log
file that has it. ``bash_kill {id}`` kills the process group and returns its last output.
Must not import anything above tools/.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from ..agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from ..ai import AbortSignal
from .background import BackgroundJobs, BackgroundProcess
from .bash import background_details
from .common import ToolError, ToolParams, text_result
from .truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_tail


class BashOutputParams(ToolParams):
    id: str = Field(description="The background process id (bash returned it, e.g. bg1)")
    since: int | SkipJsonSchema[None] = Field(
        default=None,
        description="Byte offset to read from (optional; default: where the last read stopped)",
    )


class BashKillParams(ToolParams):
    id: str = Field(description="The background process id (e.g. bg1)")


def _unknown(jobs: BackgroundJobs, job_id: str) -> ToolError:
    known = ", ".join(job.id for job in jobs.all()) or "none"
    return ToolError(f"No background process {job_id!r} in this session (known: {known}).")


def read_new_output(job: BackgroundProcess, since: int | None) -> str:
    """The text since ``since`` (default: the cursor), cut; moves the cursor to the end."""
    start = job.cursor if since is None else since
    data, dropped = job.ring.read(start)
    end = job.ring.end
    job.cursor = end
    text = data.decode("utf-8", "replace")
    cut = truncate_tail(text, max_lines=DEFAULT_MAX_LINES, max_bytes=DEFAULT_MAX_BYTES)
    notes: list[str] = []
    where = f"full log: {job.log_path}" if job.log_path else "no log file"
    if dropped:
        notes.append(f"[{format_size(dropped)} earlier output no longer kept in memory; {where}]")
    if cut.truncated:
        notes.append(f"[Showing the last {cut.output_lines} lines of the new output; {where}]")
    body = cut.content if cut.content else "(no new output)"
    return "\n".join([*notes, body, f"[next read from byte {end}]"])


class BashOutputTool(AgentTool[BashOutputParams]):
    name: ClassVar[str] = "bash_output"
    label: ClassVar[str] = "bash_output"
    description: ClassVar[str] = (
        "Read the new output of a background process started with bash (background: true), "
        "and whether it is still running or its exit code. Returns what was printed since the "
        "last read (give since to read from a byte offset)."
    )
    parameters: ClassVar[type[BashOutputParams]] = BashOutputParams
    prompt_snippet: ClassVar[str] = "Read a background process's new output"
    prompt_guidelines: ClassVar[tuple[str, ...]] = ()
    read_only: ClassVar[bool] = True

    def __init__(self, jobs: BackgroundJobs):
        self.jobs = jobs

    async def execute(
        self,
        tool_call_id: str,
        params: BashOutputParams,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        job = self.jobs.get(params.id)
        if job is None:
            raise _unknown(self.jobs, params.id)
        if params.since is not None and params.since < 0:
            raise ToolError("Invalid since: must be a byte offset (0 or more)")
        text = read_new_output(job, params.since)
        job.report_end()
        return text_result(f"{job.id} ({job.command}): {job.status_text()}\n{text}", _details(job))


class BashKillTool(AgentTool[BashKillParams]):
    name: ClassVar[str] = "bash_kill"
    label: ClassVar[str] = "bash_kill"
    description: ClassVar[str] = (
        "Stop a background process started with bash (background: true): kills it and "
        "everything it started. Returns its last output."
    )
    parameters: ClassVar[type[BashKillParams]] = BashKillParams
    prompt_snippet: ClassVar[str] = "Stop a background process"
    prompt_guidelines: ClassVar[tuple[str, ...]] = ()

    def __init__(self, jobs: BackgroundJobs):
        self.jobs = jobs

    async def execute(
        self,
        tool_call_id: str,
        params: BashKillParams,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        job = self.jobs.get(params.id)
        if job is None:
            raise _unknown(self.jobs, params.id)
        was_running = job.running
        await self.jobs.kill(job.id)
        text = read_new_output(job, None)
        job.report_end()
        state = "killed" if was_running else f"had already ended ({job.status_text()})"
        return text_result(f"{job.id} ({job.command}): {state}\n{text}", _details(job))


def _details(job: BackgroundProcess) -> dict[str, object]:
    return background_details(job)
