"""Issue 42 over the wire: background processes (``processes_update``, ``pi/processes`` list
and kill), ``pi/export``, and no background process left after ``kill -9`` of the server."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from tests.mcp.support import processes_with

from .conftest import Start
from .harness import text_reply, tool_reply, write_script

DEADLINE = 30.0


def faux(tmp_path: Path, *responses: dict[str, Any]) -> dict[str, Any]:
    script = write_script(tmp_path / f"script-{uuid.uuid4().hex[:6]}.json", list(responses))
    return {"provider": "faux", "fauxScript": str(script), "permissions": {"bash": "allow"}}


async def until(predicate: Any) -> None:
    """Poll the process table (the event we wait for) until ``predicate`` holds."""
    async with asyncio.timeout(DEADLINE):
        while not predicate():
            await asyncio.sleep(0.05)


async def test_list_kill_and_export(pi_in_process: Start, tmp_path: Path) -> None:
    marker = f"lsp-bg-{uuid.uuid4().hex[:8]}"
    h = await pi_in_process(
        pi=faux(
            tmp_path,
            tool_reply(
                "bash", {"command": f"sh -c 'echo up; sleep 600' {marker}", "background": True}
            ),
            text_reply("Started it."),
        )
    )
    sid = await h.run("start the watcher")
    update = await h.wait_event(sid, "processes_update")
    assert [(p["id"], p["running"]) for p in update["processes"]] == [("bg1", True)]
    listed = (await h.call("pi/processes", {"sessionId": sid}))["processes"]
    assert listed[0]["command"].startswith("sh -c 'echo up; sleep 600'")
    assert listed[0]["running"] is True
    assert listed[0]["logPath"]
    end = h.tool_ends(sid)[0]
    assert end["result"]["details"]["background"]["id"] == "bg1"

    killed = await h.call("pi/processes", {"sessionId": sid, "op": "kill", "id": "bg1"})
    assert killed["processes"][0]["running"] is False
    await h.wait_event(sid, "processes_update", 2)
    await until(lambda: not processes_with(marker))
    with pytest.raises(JsonRpcInvalidParams, match="no process 'bg9'"):
        await h.call("pi/processes", {"sessionId": sid, "op": "kill", "id": "bg9"})

    out = tmp_path / "export.html"
    result = await h.call("pi/export", {"sessionId": sid, "path": str(out)})
    assert result["path"] == str(out.resolve())
    page = out.read_text()
    assert "start the watcher" in page
    assert "sleep 600" in page


async def test_abort_kills_the_background_processes(pi_in_process: Start, tmp_path: Path) -> None:
    marker = f"lsp-abort-{uuid.uuid4().hex[:8]}"
    h = await pi_in_process(
        pi=faux(
            tmp_path,
            tool_reply("bash", {"command": f"sh -c 'sleep 600' {marker}", "background": True}),
            text_reply("Started."),
        )
    )
    sid = await h.run("start it")
    await until(lambda: processes_with(marker))
    await h.call("pi/abort", {"sessionId": sid})
    await until(lambda: not processes_with(marker))


async def test_kill_9_of_the_server_leaves_no_background_process(pi: Start, tmp_path: Path) -> None:
    marker = f"lsp-k9-{uuid.uuid4().hex[:8]}"
    h = await pi(
        pi=faux(
            tmp_path,
            tool_reply(
                "bash", {"command": f"sh -c 'sleep 600 & sleep 601' {marker}", "background": True}
            ),
            text_reply("Started."),
        )
    )
    await h.run("start it")
    await until(lambda: len(processes_with(marker)) >= 2)
    proc = h.client._server  # type: ignore[attr-defined]
    proc.kill()
    await asyncio.wait_for(proc.wait(), DEADLINE)
    await until(lambda: not processes_with(marker))
