"""Issue 42: background processes — ``bash {background: true}``, ``bash_output``,
``bash_kill``, the live limit, the bounded ring, the move of a long foreground command to the
background, and no process left after the session, its registry or a ``kill -9`` of pi-lsp."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import textwrap
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.tools import BashOptions, BashTool, DiskWorkspace, ProcessRegistry, ToolError
from pi_lsp.tools.background import BackgroundJobs, BackgroundProcess, OutputRing
from pi_lsp.tools.bash_jobs import BashKillTool, BashOutputTool
from tests.mcp.support import processes_with

from .conftest import call, text, wait_group_gone

DEADLINE = 30.0


def make(ws: DiskWorkspace, **options: Any) -> tuple[BashTool, BashOutputTool, BashKillTool]:
    opts = BashOptions(process_registry=ProcessRegistry(), **options)
    return BashTool(ws, opts), BashOutputTool(opts.jobs), BashKillTool(opts.jobs)


async def output_contains(job: BackgroundProcess, pattern: str) -> str:
    """Wait for the job's output (the ring's ``output`` events) to match ``pattern``."""
    found = asyncio.Event()

    def check(_: BackgroundProcess, what: str) -> None:
        if re.search(pattern, job.ring.read(0)[0].decode("utf-8", "replace")):
            found.set()

    jobs_listeners = job._listeners
    jobs_listeners.append(check)
    try:
        check(job, "output")
        await asyncio.wait_for(found.wait(), DEADLINE)
    finally:
        jobs_listeners.remove(check)
    return job.ring.read(0)[0].decode()


def job_of(bash: BashTool, job_id: str) -> BackgroundProcess:
    job = bash.options.jobs.get(job_id)
    assert job is not None
    return job


def started_id(result_text: str) -> str:
    match = re.search(r"background as (bg\d+)", result_text)
    assert match, result_text
    return match.group(1)


async def test_dev_server_started_read_twice_and_killed(ws: DiskWorkspace) -> None:
    bash, output, kill = make(ws)
    started = await call(
        bash,
        {"command": f"{sys.executable} -u -m http.server 0 --bind 127.0.0.1", "background": True},
    )
    job_id = started_id(text(started))
    assert started.details is not None
    assert started.details["background"]["id"] == job_id
    job = job_of(bash, job_id)
    assert job.running
    served = await output_contains(job, r"port (\d+)")
    port = int(re.search(r"port (\d+)", served).group(1))  # type: ignore[union-attr]

    first = text(await call(output, {"id": job_id}))
    assert "still running" in first

    def fetch() -> int:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=DEADLINE) as r:
            return int(r.status)

    assert await asyncio.to_thread(fetch) == 200
    await output_contains(job, r'"GET / HTTP/1.1" 200')
    second = text(await call(output, {"id": job_id}))
    assert '"GET / HTTP/1.1" 200' in second
    assert "Serving HTTP" not in second  # only what is new since the first read
    again = text(await call(output, {"id": job_id, "since": 0}))
    assert "Serving HTTP" in again
    assert "GET /" in again

    killed = text(await call(kill, {"id": job_id}))
    assert "killed" in killed
    assert not job.running
    await wait_group_gone(job.process.pgid)
    after = text(await call(output, {"id": job_id}))
    assert "killed" in after


async def test_the_fifth_start_over_a_limit_of_four_is_refused(ws: DiskWorkspace) -> None:
    bash, _, _ = make(ws, jobs=BackgroundJobs(limit=4), first_output_wait=0.0)
    ids = [
        started_id(text(await call(bash, {"command": "sleep 60", "background": True})))
        for _ in range(4)
    ]
    assert ids == ["bg1", "bg2", "bg3", "bg4"]
    with pytest.raises(ToolError, match=r"already runs 4 background processes \(the limit is 4"):
        await call(bash, {"command": "sleep 60", "background": True})
    # one ends: there is room again
    await bash.options.jobs.kill("bg2")
    fifth = started_id(text(await call(bash, {"command": "sleep 60", "background": True})))
    assert fifth == "bg5"
    assert bash.options.jobs.kill_all() == 4


async def test_a_watcher_printing_forever_keeps_memory_bounded(ws: DiskWorkspace) -> None:
    bash, output, kill = make(ws)
    line = "x" * 99
    started = await call(bash, {"command": f"yes {line}", "background": True})
    job = job_of(bash, started_id(text(started)))
    reached = asyncio.Event()
    baseline: list[int] = []

    def watch(_: BackgroundProcess, what: str) -> None:
        if not baseline and job.ring.end > 8 << 20:
            baseline.append(rss())  # warmed up: the ring, the log file, the buffers
        if job.ring.end > 200 << 20:
            reached.set()

    job._listeners.append(watch)
    await asyncio.wait_for(reached.wait(), 120)
    grown = rss() - baseline[0]
    assert grown < 16 << 20, f"RSS grew by {grown} bytes over 190 MiB of output"
    assert job.ring.end - job.ring.start <= job.ring.capacity
    read = text(await call(output, {"id": job.id, "since": 0}))  # from the very start
    assert "earlier output no longer kept in memory" in read
    assert f"full log: {job.log_path}" in read
    assert job.log_capped  # the log file stops at its cap too
    assert text(await call(kill, {"id": job.id})).startswith(f"{job.id} (yes {line}): killed")


def rss() -> int:
    for row in Path("/proc/self/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1]) * 1024
    raise AssertionError("no VmRSS")


async def test_a_long_foreground_command_moves_to_the_background(ws: DiskWorkspace) -> None:
    bash, _output, kill = make(ws, auto_background_after=0.5)
    result = await call(bash, {"command": "echo begun; sleep 60"})
    body = text(result)
    assert "moved to the background as bg1" in body
    assert "begun" in body
    job = job_of(bash, "bg1")
    assert job.running
    assert result.details is not None
    assert result.details["background"]["running"] is True
    await call(kill, {"id": "bg1"})
    await wait_group_gone(job.process.pgid)
    # a command with a timeout is never moved
    with pytest.raises(ToolError, match="timed out"):
        await call(bash, {"command": "sleep 60", "timeout": 1})


async def test_a_quick_background_command_reports_its_exit(ws: DiskWorkspace) -> None:
    bash, output, _ = make(ws, first_output_wait=DEADLINE)
    started = text(await call(bash, {"command": "echo hi; exit 3", "background": True}))
    assert "exited with code 3" in started
    assert "hi" in started
    assert "exited with code 3" in text(await call(output, {"id": "bg1"}))
    with pytest.raises(ToolError, match="No background process 'bg9'"):
        await call(output, {"id": "bg9"})


async def test_the_registry_kills_background_processes(ws: DiskWorkspace) -> None:
    """What a session's close / abort does (``ConfiguredSession.kill_processes``)."""
    bash, _, _ = make(ws, first_output_wait=0.0)
    job = job_of(
        bash,
        started_id(text(await call(bash, {"command": "sleep 60 & sleep 60", "background": True}))),
    )
    bash.options.process_registry.kill_all()
    await asyncio.wait_for(job.exited.wait(), DEADLINE)
    await wait_group_gone(job.process.pgid)


async def test_kill_since_a_mark_spares_older_processes(ws: DiskWorkspace) -> None:
    bash, _, _ = make(ws, first_output_wait=0.0)
    jobs = bash.options.jobs
    await call(bash, {"command": "sleep 60", "background": True})
    mark = jobs.mark()
    await call(bash, {"command": "sleep 60", "background": True})
    assert jobs.kill_started_since(mark) == 1
    second = jobs.get("bg2")
    assert second is not None
    await asyncio.wait_for(second.exited.wait(), DEADLINE)
    assert [j.id for j in jobs.live()] == ["bg1"]
    jobs.kill_all()


def test_the_ring_keeps_the_last_bytes_with_offsets() -> None:
    ring = OutputRing(8)
    ring.append(b"abcdef")
    assert ring.read(0) == (b"abcdef", 0)
    ring.append(b"ghij")
    assert (ring.start, ring.end) == (2, 10)
    assert ring.read(0) == (b"cdefghij", 2)
    assert ring.read(7) == (b"hij", 0)
    ring.append(b"0123456789AB")
    assert ring.read(10) == (b"456789AB", 4)
    assert ring.read(99) == (b"", 0)


GUARDED = """
import asyncio, sys
from pathlib import Path
from pi_lsp.tools import BashOptions, BashTool, DiskWorkspace, ProcessRegistry
from pi_lsp.tools.bash import BashParams

async def main() -> None:
    options = BashOptions(process_registry=ProcessRegistry(), auto_background_after=0.5)
    tool = BashTool(DiskWorkspace([Path.cwd()]), options)
    await tool.execute("c1", BashParams(command=sys.argv[1], background=True))
    # a foreground command that runs too long: moved to the background (and guarded then)
    moved = await tool.execute("c2", BashParams(command=sys.argv[2]))
    assert "moved to the background" in moved.content[0].text
    print("ready", flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


async def test_kill_9_of_pi_lsp_leaves_no_process(tmp_path: Path) -> None:
    """The process table after ``kill -9`` of the process that ran ``bash``: nothing left of
    a background command nor of a foreground one moved to the background (nor of what they
    started)."""
    marker = f"pi-bg-{uuid.uuid4().hex[:10]}"
    script = tmp_path / "host.py"
    script.write_text(textwrap.dedent(GUARDED))
    bg = f"sh -c 'sleep 600 & exec sleep 601' {marker}-bg; echo"
    fg = f"sh -c 'sleep 602 & sleep 603' {marker}-fg"
    proc = subprocess.Popen(
        [sys.executable, str(script), bg, fg],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    try:
        assert proc.stdout is not None
        assert await asyncio.to_thread(proc.stdout.readline) == b"ready\n"
        await until(lambda: len(processes_with(marker)) >= 2)
        await until(lambda: processes_with("process_guard.py --watch"))  # the moved command's guard
        proc.send_signal(signal.SIGKILL)
        await asyncio.to_thread(proc.wait)
        await until(lambda: not processes_with(marker))
    finally:
        if proc.poll() is None:
            proc.kill()


async def until(predicate: Any) -> None:
    """Poll the process table (the event we wait for) until ``predicate`` holds."""
    async with asyncio.timeout(DEADLINE):
        while not predicate():
            await asyncio.sleep(0.05)


async def test_an_ended_process_dropped_from_the_list_takes_its_log_along(
    ws: DiskWorkspace,
) -> None:
    bash, _, _ = make(ws, jobs=BackgroundJobs(keep_finished=1), first_output_wait=DEADLINE)
    await call(bash, {"command": "echo one", "background": True})
    first = job_of(bash, "bg1")
    assert first.log_path is not None
    assert Path(first.log_path).read_text() == "one\n"
    await call(bash, {"command": "echo two", "background": True})
    await call(bash, {"command": "echo three", "background": True})  # bg1 is dropped now
    assert bash.options.jobs.get("bg1") is None
    assert not Path(first.log_path).exists()
    assert bash.options.jobs.get("bg2") is not None  # the newest ended ones stay


async def test_a_watcher_whose_owner_died_before_it_started_still_kills_the_group() -> None:
    """``--watch PGID OWNER``: the watcher knows its owner from the command line, so an owner
    killed before the watcher's first look (the watcher then has another parent) still gets
    the group killed — the race behind a moved command that outlived ``kill -9``."""
    from pi_lsp.security.process_guard import GUARD_SCRIPT

    group = subprocess.Popen(["sleep", "600"], start_new_session=True)
    gone = subprocess.Popen(["true"])
    gone.wait()  # an owner that died before the watcher started
    watcher = [sys.executable, "-I", "-S", str(GUARD_SCRIPT), "--watch"]
    guard = subprocess.Popen([*watcher, str(group.pid), str(gone.pid)])
    try:
        async with asyncio.timeout(DEADLINE):
            await asyncio.to_thread(group.wait)
            await asyncio.to_thread(guard.wait)
    finally:
        for p in (group, guard):
            if p.poll() is None:
                p.kill()
                p.wait()


async def test_the_end_is_reported_once_the_model_was_told_it(
    ws: DiskWorkspace, root: Path
) -> None:
    """``end_reported`` (what ends an ACP client's tool call): a read while it runs does not
    set it; the process's exit alone does not; a ``bash_output`` after the exit does, once."""
    bash, output, kill = make(ws)
    gate = root / f"go-{uuid.uuid4().hex[:6]}"
    command = f"sh -c 'until [ -f {gate} ]; do sleep 0.05; done; echo done'"
    job_id = started_id(text(await call(bash, {"command": command, "background": True})))
    job = job_of(bash, job_id)
    heard: list[str] = []
    bash.options.jobs.subscribe(lambda _, what: heard.append(what))
    await call(output, {"id": job_id})
    assert not job.end_reported
    gate.write_text("")
    await asyncio.wait_for(job.exited.wait(), DEADLINE)
    assert not job.end_reported
    assert "exited with code 0" in text(await call(output, {"id": job_id}))
    assert job.end_reported
    await call(kill, {"id": job_id})  # already ended: nothing more to report
    assert heard.count("reported") == 1


async def test_a_start_that_ended_at_once_is_reported(ws: DiskWorkspace) -> None:
    bash, _, _ = make(ws, first_output_wait=DEADLINE)  # (the start waits for the end)
    job_id = started_id(text(await call(bash, {"command": "exit 0", "background": True})))
    job = job_of(bash, job_id)
    assert not job.running
    assert job.end_reported
