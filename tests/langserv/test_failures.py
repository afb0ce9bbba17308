"""Servers that misbehave: a flood of stderr, no answer, an exit mid-request, and pi-lsp
itself killed with -9 — the tool answers with an error the model can act on, and no server
process is left behind."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.ai.abort import AbortSignal
from pi_lsp.langserv import ServerPool
from pi_lsp.tools.code_intel import CodeIntelError
from pi_lsp.tools.disk_workspace import DiskWorkspace

from .conftest import JEDI, config, server

SCRIPTED = Path(__file__).resolve().parent / "servers" / "scripted.py"


def definition_at(path: Path) -> dict[str, object]:
    return {"textDocument": {"uri": path.as_uri()}, "position": {"line": 4, "character": 17}}


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def gone(pgid: int, limit: float = 15.0) -> bool:
    deadline = time.monotonic() + limit
    while group_alive(pgid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def test_a_server_flooding_stderr_does_not_stall(ws: DiskWorkspace, project: Path) -> None:
    flood = f"head -c 1048576 /dev/zero | tr '\\0' x >&2; echo >&2; exec {JEDI}"
    flooding = server(command="sh", args=["-c", flood], startupTimeout=15000)
    pool = ServerPool(config(flooding), ws, timeout=30)
    try:
        main = project / "app" / "main.py"
        answer = await pool.query("textDocument/definition", definition_at(main), path=main)
        assert answer.result[0]["uri"].endswith("app/config.py")
    finally:
        await pool.aclose()


async def test_a_server_that_never_answers_times_out_is_cancelled_and_killed(
    ws: DiskWorkspace, project: Path, tmp_path: Path
) -> None:
    cancels = tmp_path / "cancels.txt"
    silent = server(
        command=sys.executable,
        args=[str(SCRIPTED), "silent", str(cancels)],
        shutdownTimeout=500,
    )
    pool = ServerPool(config(silent), ws, timeout=1)
    main = project / "app" / "main.py"
    try:
        with pytest.raises(
            CodeIntelError, match="did not answer textDocument/definition within 1 s"
        ):
            await pool.query("textDocument/definition", definition_at(main), path=main)
        # the run is aborted while waiting: cancelled too, at once
        abort = AbortSignal()
        asyncio.get_running_loop().call_soon(abort.abort)
        with pytest.raises(CodeIntelError, match="aborted"):
            await pool.query(
                "textDocument/definition", definition_at(main), path=main, signal=abort
            )
        deadline = time.monotonic() + 10
        while cancels.read_text().count("cancel") < 2 if cancels.exists() else True:
            assert time.monotonic() < deadline, "no $/cancelRequest reached the server"
            await asyncio.sleep(0.02)
        pgid = next(iter(pool.servers.values())).pid
        assert pgid is not None
    finally:
        await pool.aclose()  # it ignores shutdown: its process group is killed
    assert await gone(pgid), "the silent server survived the pool"  # (its zombie reaped)


async def test_a_server_that_exits_mid_request_is_reported(
    ws: DiskWorkspace, project: Path
) -> None:
    crashing = server(command=sys.executable, args=[str(SCRIPTED), "exit"])
    pool = ServerPool(config(crashing), ws, timeout=10)
    main = project / "app" / "main.py"
    try:
        with pytest.raises(CodeIntelError, match="exited while answering") as caught:
            await pool.query("textDocument/definition", definition_at(main), path=main)
        assert "crashing on purpose" in str(caught.value)
        with pytest.raises(CodeIntelError, match="exited"):  # broken for the pool's life
            await pool.query("textDocument/definition", definition_at(main), path=main)
    finally:
        await pool.aclose()


async def test_a_server_that_ends_only_with_its_input_stops_by_itself(
    ws: DiskWorkspace, project: Path, tmp_path: Path
) -> None:
    """After ``shutdown`` and ``exit`` the pool closes the server's input: a server that ends
    only then (jedi-language-server: pygls reads stdin on a thread) stops by itself, instead
    of being killed when the grace period is over (2 s by default, for every server)."""
    marker = tmp_path / "eof.txt"
    waits = server(
        command=sys.executable, args=[str(SCRIPTED), "eof", str(marker)], shutdownTimeout=30000
    )
    pool = ServerPool(config(waits), ws, timeout=10)
    main = project / "app" / "main.py"
    try:
        await pool.query("textDocument/definition", definition_at(main), path=main)
        pgid = next(iter(pool.servers.values())).pid
        assert pgid is not None
    finally:
        await pool.aclose()
    assert marker.read_text() == "input ended\n"  # ended by itself, not killed
    assert await gone(pgid)


HOST = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from pi_lsp.langserv import ServerPool
    from pi_lsp.tools.disk_workspace import DiskWorkspace
    sys.path.insert(0, {tests!r})
    from langserv.conftest import config, server

    async def main():
        root = Path({root!r})
        pool = ServerPool(config(server()), DiskWorkspace([root]), timeout=30)
        main = root / "app" / "main.py"
        params = {{"textDocument": {{"uri": main.as_uri()}},
                  "position": {{"line": 4, "character": 17}}}}
        await pool.query("textDocument/definition", params, path=main)
        print(next(iter(pool.servers.values())).pid, flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())
    """
)


async def test_kill_9_of_pi_lsp_leaves_no_server_process(project: Path) -> None:
    tests = str(Path(__file__).resolve().parent.parent)
    host = subprocess.Popen(
        [sys.executable, "-c", HOST.format(tests=tests, root=str(project))],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert host.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(host.stdout.readline), 60)
        pgid = int(line)
        assert group_alive(pgid)
        host.send_signal(signal.SIGKILL)
        host.wait()
        assert await gone(pgid), "the language server outlived pi-lsp"
    finally:
        if host.poll() is None:
            host.kill()


async def test_an_idle_server_is_stopped_and_started_again_on_use(
    ws: DiskWorkspace, project: Path
) -> None:
    pool = ServerPool(config(server()), ws, timeout=30, idle_s=0.3)
    main = project / "app" / "main.py"
    try:
        first = pool.process(pool.configs_for(main)[0], project)
        # the first answer takes longer than idle_s: a request in flight is never stopped
        await pool.query("textDocument/definition", definition_at(main), path=main)
        assert first.pid is not None
        assert await gone(first.pid), "the idle server was not stopped"
        assert pool.servers == {}
        # taken before the question: the reaper may stop it again as soon as it answered
        second = pool.process(pool.configs_for(main)[0], project)
        answer = await pool.query("textDocument/definition", definition_at(main), path=main)
        assert answer.result[0]["uri"].endswith("app/config.py")
        assert second is not first
        assert second.pid is not None
        assert second.pid != first.pid
    finally:
        await pool.aclose()


async def test_closing_the_pool_while_the_reaper_stops_a_server_ends_and_kills_it(
    project: Path,
) -> None:
    """aclose() while the idle reaper waits in stop() for a server that does not answer
    ``shutdown``: the reaper's cancellation must end it (it was swallowed: aclose waited for
    ever), and the stop it began still kills the server's group."""
    told = asyncio.Event()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if await reader.readline() == b"shutdown\n":
            told.set()
        writer.close()

    listener = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    stuck = server(
        command=sys.executable, args=[str(SCRIPTED), "stuck", str(port)], shutdownTimeout=1000
    )
    pool = ServerPool(config(stuck), DiskWorkspace([project]), timeout=30, idle_s=0.1)
    main = project / "app" / "main.py"
    pgid: int | None = None
    closing: asyncio.Task[None] | None = None
    try:
        proc = pool.process(pool.configs_for(main)[0], project)
        await pool.query("textDocument/definition", definition_at(main), path=main)
        pgid = proc.pid
        assert pgid is not None
        # the reaper stopped it: it is inside stop(), the server holding its shutdown answer
        await asyncio.wait_for(told.wait(), 30)
        assert pool.servers == {}
        closing = asyncio.ensure_future(pool.aclose())
        done, _ = await asyncio.wait({closing}, timeout=20)  # bounded: a hang fails here
        assert closing in done, "aclose() did not end while the reaper was stopping a server"
        closing.result()
        assert proc.state == "stopped", "aclose() returned before the reaper's stop ended"
        assert await gone(pgid), "the server the reaper was stopping outlived its pool"
    finally:
        if closing is not None and not closing.done():
            closing.cancel()
            await asyncio.wait({closing})
        if pgid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
        listener.close()
        await pool.aclose()


class GatedWorkspace(DiskWorkspace):
    """Reads wait for ``gate``: a question held between its server's start and its request."""

    def __init__(self, roots: list[Path]) -> None:
        super().__init__(roots)
        self.gate = asyncio.Event()
        self.reading = asyncio.Event()

    async def read_document(self, path: Path) -> Any:
        self.reading.set()
        await self.gate.wait()
        return await super().read_document(path)


async def test_a_question_in_progress_keeps_its_server_from_the_idle_stop(project: Path) -> None:
    ws = GatedWorkspace([project])
    pool = ServerPool(config(server()), ws, timeout=30, idle_s=0.2)
    main = project / "app" / "main.py"
    try:
        asking = asyncio.ensure_future(
            pool.query("textDocument/definition", definition_at(main), path=main)
        )
        await ws.reading.wait()  # started (seconds ago, for a 0.2 s idle limit), now syncing
        proc = next(iter(pool.servers.values()))
        assert proc.state == "ready"
        for _ in range(10):  # reaper passes (every 0.05 s): none may stop it
            await asyncio.sleep(0.05)
            assert pool.servers, "the server was stopped under a question in progress"
        ws.gate.set()
        answer = await asking
        assert answer.result[0]["uri"].endswith("app/config.py")
        pgid = proc.pid
        assert pgid is not None
    finally:
        ws.gate.set()
        await pool.aclose()
    assert await gone(pgid), "the language server outlived its pool"
