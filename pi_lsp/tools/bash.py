"""The ``bash`` tool (docs/reference/pi.md#tool-bash): run a command in the workspace cwd, stream
its output.

The command runs as ``[shell, "-c", command]`` in its own process group with stdin closed,
stdout and stderr merged, and an environment without secrets (``security``: credential-looking
names and values, the secrets the process holds, the configured key variable — unless the
user allowed a name). With ``BashOptions.sandbox`` the shell runs inside bubblewrap
(``security.sandbox``: read-only system, writable workspace roots and private /tmp, the
credential files of ``security.credential_files`` hidden, no network unless allowed); a
sandbox that does not work refuses the command. Output streams as throttled updates (at most
one per 100 ms, the accumulated tail each time); the result keeps the last 2000 lines / 50 KiB
with the full output in a temp file. Timeout and abort SIGKILL the whole group.

``background: true`` starts the command as a background process of the session
(``background.BackgroundJobs``, read with ``bash_output``, stopped with ``bash_kill``) and
returns at once; a foreground command without a timeout that still runs after
``BashOptions.auto_background_after`` seconds is moved there too. Background commands run
under the process guard (a moved one is watched by it from then on), so they die with
pi-lsp. Must not import anything above tools/.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from ..agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from ..ai import AbortSignal, TextContent
from ..ai.env_keys import scrub_env
from ..security import vault
from ..security.credential_files import hidden_files
from ..security.sandbox import Bubblewrap, SandboxPolicy
from .background import BackgroundJobs, BackgroundLimitError, BackgroundProcess
from .common import ToolError, ToolParams, emit_update, format_number, text_result
from .output import OutputAccumulator, OutputSnapshot
from .process import ProcessRegistry, ShellProcess, default_registry, guarded, watch_group
from .truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_tail
from .workspace import Workspace

UPDATE_INTERVAL_SECONDS = 0.1
MAX_TIMEOUT_SECONDS = 2_147_483_647 / 1000
AUTO_BACKGROUND_SECONDS = 120.0
FIRST_OUTPUT_SECONDS = 0.5
"""How long ``background: true`` waits for the first output (or the end) before returning."""
FIRST_OUTPUT_LINES = 20


@dataclass(frozen=True, slots=True)
class BashSandbox:
    """Run every command inside ``runner`` (bubblewrap)."""

    runner: Bubblewrap
    network: bool = False


@dataclass(frozen=True, slots=True)
class BashOptions:
    shell: str | None = None
    """Shell binary; default ``/bin/bash``, else ``bash`` on PATH, else ``sh``."""
    env_allow: frozenset[str] = frozenset()
    """Secret-looking variables the user allows through to commands."""
    extra_secret_env: frozenset[str] = frozenset()
    """More variables to remove (e.g. the configured ``apiKeyEnv``)."""
    command_prefix: str | None = None
    """Prepended as ``prefix\\ncommand`` (Pi's ``shellCommandPrefix``)."""
    process_registry: ProcessRegistry = field(default_factory=default_registry)
    sandbox: BashSandbox | None = None
    """Run commands in the OS sandbox (``permissions.bash = "sandbox"``)."""
    jobs: BackgroundJobs = field(default_factory=BackgroundJobs)
    """The session's background processes (shared with ``bash_output`` / ``bash_kill``)."""
    auto_background_after: float | None = AUTO_BACKGROUND_SECONDS
    """A foreground command without a timeout still running after this long is moved to
    the background (``None``: never)."""
    first_output_wait: float = FIRST_OUTPUT_SECONDS


class BashParams(ToolParams):
    command: str = Field(description="Bash command to execute")
    timeout: float | SkipJsonSchema[None] = Field(
        default=None, description="Timeout in seconds (optional, no default timeout)"
    )
    background: bool | SkipJsonSchema[None] = Field(
        default=None,
        description=(
            "Run in the background (dev servers, watchers): returns at once with a process "
            "id; read its output with bash_output, stop it with bash_kill"
        ),
    )


def resolve_shell(configured: str | None) -> str:
    if configured:
        return configured
    if os.access("/bin/bash", os.X_OK):
        return "/bin/bash"
    return shutil.which("bash") or "sh"


class BashTool(AgentTool[BashParams]):
    name: ClassVar[str] = "bash"
    label: ClassVar[str] = "bash"
    description: ClassVar[str] = (
        "Execute a bash command in the current working directory. Returns stdout and stderr. "
        f"Output is truncated to last {DEFAULT_MAX_LINES} lines or "
        f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). If truncated, full output is "
        "saved to a temp file. Optionally provide a timeout in seconds. Use background: true "
        "for commands that do not end by themselves (dev servers, watchers); a command "
        f"without a timeout still running after {int(AUTO_BACKGROUND_SECONDS)}s is moved to "
        "the background."
    )
    parameters: ClassVar[type[BashParams]] = BashParams
    prompt_snippet: ClassVar[str] = "Execute bash commands (ls, grep, find, etc.)"
    prompt_guidelines: ClassVar[tuple[str, ...]] = ()

    def __init__(self, workspace: Workspace, options: BashOptions | None = None):
        self.workspace = workspace
        self.options = options or BashOptions()

    def environment(self) -> dict[str, str]:
        return scrub_env(
            vault.environ(),
            allow=self.options.env_allow,
            extra_secrets={*self.options.extra_secret_env, *vault.secret_names()},
        )

    async def argv(self, command: str, cwd: Path) -> list[str]:
        argv = [resolve_shell(self.options.shell), "-c", command]
        sandbox = self.options.sandbox
        if sandbox is None:
            return argv
        problem = await asyncio.to_thread(sandbox.runner.problem)  # probed once, at start-up
        if problem is not None:
            raise ToolError(f"Not run: the sandbox is unavailable ({problem}).")
        roots = tuple(r for r in self.workspace.roots if r.is_dir())  # bwrap needs them
        env, allowed = vault.environ(), self.options.env_allow
        hidden = await asyncio.to_thread(hidden_files, env, None, allowed)
        policy = SandboxPolicy(roots, network=sandbox.network, hidden=hidden)
        return sandbox.runner.wrap(argv, cwd=cwd, policy=policy)

    async def execute(
        self,
        tool_call_id: str,
        params: BashParams,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        timeout = params.timeout
        if timeout is not None:
            if not math.isfinite(timeout) or timeout <= 0:
                raise ToolError("Invalid timeout: must be a finite number of seconds")
            if timeout > MAX_TIMEOUT_SECONDS:
                raise ToolError(
                    f"Invalid timeout: maximum is {format_number(MAX_TIMEOUT_SECONDS)} seconds"
                )
        prefix = self.options.command_prefix
        command = f"{prefix}\n{params.command}" if prefix else params.command
        cwd = self.workspace.cwd
        output = OutputAccumulator()
        if signal is not None and signal.aborted:
            raise ToolError("Command aborted")
        if not cwd.is_dir():
            raise ToolError(
                f"Working directory does not exist: {cwd}\nCannot execute bash commands."
            )
        jobs = self.options.jobs
        if params.background:
            try:
                jobs.check_room()
            except BackgroundLimitError as exc:
                raise ToolError(str(exc)) from None
        argv = await self.argv(command, cwd)
        detach_after = None if timeout is not None else self.options.auto_background_after
        if params.background:  # (a foreground command gets its guard if it is moved there)
            argv = guarded(argv)
        if not params.background:
            await emit_update(on_update, AgentToolResult(content=[], details=None))
        try:
            process = ShellProcess(
                argv,
                cwd=cwd,
                env=self.environment(),
                registry=self.options.process_registry,
            )
        except OSError as exc:
            raise ToolError(f"Could not start the shell: {exc}") from exc
        if params.background:
            job = jobs.start(params.command, process, tool_call_id=tool_call_id)
            return await self._started(job)
        run = _Run(process, output, on_update, timeout)
        try:
            code = await run.wait(signal, detach_after)
        except BaseException:  # cancelled: the group is already killed by ``stream``
            run.cancel_updates()
            output.close()
            raise
        if code is None:  # still running: the session's background process from now on
            await run.flush_updates()
            return self._detached(run, output, params.command, tool_call_id)
        output.finish()
        await run.flush_updates()
        snapshot = output.snapshot(persist_if_truncated=True)
        output.close()
        if run.aborted:
            raise ToolError(_with_status(_format(snapshot, output, ""), "Command aborted"))
        if run.timed_out:
            assert timeout is not None
            raise ToolError(
                _with_status(
                    _format(snapshot, output, ""),
                    f"Command timed out after {format_number(timeout)} seconds",
                )
            )
        text = _format(snapshot, output, "(no output)")
        note = await self.workspace.disk_note()
        if note:
            text = f"{text}\n\n[{note}]"
        if code > 0:
            raise ToolError(_with_status(text, f"Command exited with code {code}"))
        return text_result(text, _details(snapshot))

    async def _started(self, job: BackgroundProcess) -> AgentToolResult:
        """The result of ``background: true``: the id, the first output, the state."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(job.exited.wait(), self.options.first_output_wait)
        data, _ = job.ring.read(0)
        job.cursor = job.ring.end
        first = truncate_tail(
            data.decode("utf-8", "replace"), max_lines=FIRST_OUTPUT_LINES, max_bytes=8192
        ).content
        job.report_end()  # it ended at once: the result says so
        lines = [f"Started in the background as {job.id}: {job.status_text()}."]
        lines.append(f"Output so far:\n{first}" if first.strip() else "No output yet.")
        return text_result("\n".join([*lines, _job_hint(job)]), background_details(job))

    def _detached(
        self, run: _Run, output: OutputAccumulator, command: str, tool_call_id: str
    ) -> AgentToolResult:
        """A foreground command ran past ``auto_background_after``: hand it to the jobs."""
        assert run.stream is not None
        snapshot = output.snapshot(persist_if_truncated=False)
        output.close()
        job = self.options.jobs.adopt(
            command,
            run.process,
            run.stream,
            run.switch_sink,
            earlier=snapshot.content.encode("utf-8"),
            tool_call_id=tool_call_id,
        )
        job.cursor = job.ring.end
        job.watcher = watch_group(run.process.pgid)
        after = format_number(self.options.auto_background_after or 0)
        text = (
            f"The command was still running after {after} seconds, so it was moved to the "
            f"background as {job.id}.\n"
            + (f"Output so far:\n{snapshot.content}\n" if snapshot.content.strip() else "")
            + _job_hint(job)
        )
        return text_result(text, background_details(job))


def background_details(job: BackgroundProcess) -> dict[str, Any]:
    """The ``details.background`` of a result about ``job`` (clients show the process)."""
    return {
        "background": {
            "id": job.id,
            "command": job.command,
            "running": job.running,
            "exitCode": job.exit_code,
            "logPath": job.log_path,
        }
    }


def _job_hint(job: BackgroundProcess) -> str:
    log = f"Full log: {job.log_path}. " if job.log_path else ""
    return (
        f'{log}Read new output with bash_output {{"id": "{job.id}"}}; stop it with '
        f'bash_kill {{"id": "{job.id}"}}.'
    )


class _Run:
    """One running command: output pumping, throttled updates, timeout and abort."""

    def __init__(
        self,
        process: ShellProcess,
        output: OutputAccumulator,
        on_update: ToolUpdateCallback | None,
        timeout: float | None,
    ) -> None:
        self.process = process
        self.output = output
        self.on_update = on_update
        self.timeout = timeout
        self.aborted = False
        self.timed_out = False
        self._dirty = False
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()
        self._last_emit = -math.inf
        self._pump: asyncio.Task[None] | None = None
        self._sink: Callable[[bytes], None] = self._on_data
        self.stream: asyncio.Task[int] | None = None

    def switch_sink(self, sink: Callable[[bytes], None]) -> None:
        """Send the command's further output to ``sink`` (it moved to the background)."""
        self._sink = sink

    def _on_data(self, data: bytes) -> None:
        self.output.append(data)
        self._dirty = True
        self._wake.set()

    def _on_abort(self) -> None:
        self.aborted = True
        self.process.kill()

    def _on_timeout(self) -> None:
        self.timed_out = True
        self.process.kill()

    async def wait(
        self, signal: AbortSignal | None, detach_after: float | None = None
    ) -> int | None:
        """The exit code; ``None`` when the command still runs after ``detach_after``
        seconds (``self.stream`` then still pumps its output)."""
        loop = asyncio.get_running_loop()
        timer = loop.call_later(self.timeout, self._on_timeout) if self.timeout else None
        remove = signal.add_callback(self._on_abort) if signal is not None else None
        if self.on_update is not None:
            self._pump = asyncio.create_task(self._pump_updates())
        stream = self.stream = asyncio.ensure_future(
            self.process.stream(lambda data: self._sink(data))
        )
        try:
            if detach_after is None:
                return await stream
            done, _ = await asyncio.wait({stream}, timeout=detach_after)
            if stream in done or self.aborted:
                return await stream
            return None
        except asyncio.CancelledError:
            stream.cancel()  # ``stream`` kills the group
            raise
        finally:
            if timer is not None:
                timer.cancel()
            if remove is not None:
                remove()

    async def _pump_updates(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._stop.is_set():
                return
            delay = self._last_emit + UPDATE_INTERVAL_SECONDS - loop.time()
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), delay)
                if self._stop.is_set():
                    return
            await self._emit()

    async def _emit(self) -> None:
        self._dirty = False
        self._last_emit = asyncio.get_running_loop().time()
        snapshot = self.output.snapshot(persist_if_truncated=True)
        details: dict[str, Any] = {"fullOutputPath": snapshot.full_output_path}
        if snapshot.truncation.truncated:
            details["truncation"] = snapshot.truncation.to_dict()
        await emit_update(
            self.on_update,
            AgentToolResult(content=[TextContent(text=snapshot.content)], details=details),
        )

    def cancel_updates(self) -> None:
        if self._pump is not None:
            self._pump.cancel()

    async def flush_updates(self) -> None:
        """Stop the update pump; send the last accumulated output if it was not sent yet."""
        if self._pump is None:
            return
        self._stop.set()
        self._wake.set()
        await self._pump
        if self._dirty:
            await self._emit()


def _format(snapshot: OutputSnapshot, output: OutputAccumulator, empty: str) -> str:
    text = snapshot.content or empty
    t = snapshot.truncation
    if not t.truncated:
        return text
    start = t.total_lines - t.output_lines + 1
    end = t.total_lines
    where = snapshot.full_output_path
    if where is not None and output.spill_capped:
        where += f" (its first {format_size(output.max_spill_bytes)} only)"
    if t.last_line_partial:
        return (
            f"{text}\n\n[Showing last {format_size(t.output_bytes)} of line {end} "
            f"(line is {format_size(output.last_line_bytes)}). Full output: {where}]"
        )
    if t.truncated_by == "lines":
        return f"{text}\n\n[Showing lines {start}-{end} of {t.total_lines}. Full output: {where}]"
    return (
        f"{text}\n\n[Showing lines {start}-{end} of {t.total_lines} "
        f"({format_size(DEFAULT_MAX_BYTES)} limit). Full output: {where}]"
    )


def _details(snapshot: OutputSnapshot) -> dict[str, Any] | None:
    if not snapshot.truncation.truncated:
        return None
    return {
        "truncation": snapshot.truncation.to_dict(),
        "fullOutputPath": snapshot.full_output_path,
    }


def _with_status(text: str, status: str) -> str:
    return f"{text}\n\n{status}" if text else status
