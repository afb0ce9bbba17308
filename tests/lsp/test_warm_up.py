"""The server runs ``runtime/warm.py`` once initialized (in-process tier)."""

from __future__ import annotations

import asyncio

from .conftest import Start


async def test_the_server_warms_up_once_initialized(pi_in_process: Start) -> None:
    h = await pi_in_process()
    assert h.local is not None
    server = h.local.server
    await asyncio.wait_for(server.warmed.wait(), 30)
    task = server._warm_up
    assert task is not None
    assert task.exception() is None
    assert (await h.call("pi/newSession", {}))["sessionId"]  # and the server goes on serving
