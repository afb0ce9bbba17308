"""The in-process client/server tier: the real server, served over a pipe pair in the test's
own event loop, driven by a real LSP client (pygls style).

``serve_in_process(client)`` builds the server with the public ``create_server()`` (the same
object ``pi-lsp`` serves on stdio and TCP), connects it to ``client`` over two ``os.pipe()``s
and runs the server's own dispatch loop (``run_loop`` + ``stream_frames``, the TCP path's
reader) as a task. Everything above the byte stream is the production code: framing, JSON-RPC
dispatch, error answers, every handler. What is not covered here — and stays in the ``e2e``
tier — is the process itself: start-up on stdio (``stdio.serve_stdio``), the environment and
secrets a process starts with, signals, ``kill -9``.

A test costs milliseconds instead of the ~1.2 s of a subprocess start. Use it through the
``pi_in_process`` fixture (``tests/lsp/conftest.py``), which has the ``pi`` fixture's
signature.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from dataclasses import dataclass, field
from typing import Any

from pygls.client import JsonRPCClient
from pygls.io_ import run_async

from pi_lsp.lsp.connection.transport import PiProtocol, StreamWriterAdapter, run_loop, stream_frames
from pi_lsp.lsp.server import PiLanguageServer, create_server

log = logging.getLogger(__name__)

STOP_TIMEOUT = 10.0


async def _pipe_pair() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """An asyncio reader and writer over the two ends of one ``os.pipe()``."""
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0)
    )
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(write_fd, "wb", buffering=0)
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return reader, writer


@dataclass
class InProcessServer:
    """A served server: ``server`` is the live ``PiLanguageServer`` (inspect it if a test
    must), ``task`` its dispatch loop; ``close()`` ends both ends of the connection."""

    server: PiLanguageServer
    task: asyncio.Task[int]
    to_server: asyncio.StreamWriter
    to_client: asyncio.StreamWriter
    client_task: asyncio.Task[Any]
    _closed: bool = field(default=False)

    async def close(self) -> None:
        """After the client's ``shutdown`` / ``exit`` the loop has ended by itself; otherwise
        (a failed test) end the client's input, which ends the loop like a closed stdin."""
        if self._closed:
            return
        self._closed = True
        self.to_server.close()
        try:
            await asyncio.wait_for(asyncio.shield(self.task), STOP_TIMEOUT)
        except TimeoutError:
            log.warning("the in-process server did not stop; cancelling it")
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        self.to_client.close()
        with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
            await asyncio.wait_for(asyncio.shield(self.client_task), STOP_TIMEOUT)


async def serve_in_process(client: JsonRPCClient) -> InProcessServer:
    """Start a fresh server in this event loop and connect ``client`` to it; the client is
    used as after ``start_io`` (its ``stop()`` waits for the connection to end)."""
    server = create_server()
    protocol = server.protocol
    assert isinstance(protocol, PiProtocol)
    server_in, client_out = await _pipe_pair()
    client_in, server_out = await _pipe_pair()
    protocol.set_writer(StreamWriterAdapter(server_out))

    async def serve() -> int:
        try:
            return await run_loop(protocol, stream_frames(server_in), server.stop)
        finally:
            server_out.close()  # the client's reader sees the end of input

    task = asyncio.create_task(serve(), name="pi-lsp in-process server")
    client.protocol.set_writer(client_out)
    client_task = asyncio.create_task(
        run_async(
            stop_event=client._stop_event,
            reader=client_in,
            protocol=client.protocol,
            logger=log,
            error_handler=client.report_server_error,
        ),
        name="in-process client reader",
    )
    client._async_tasks.append(client_task)
    return InProcessServer(server, task, client_out, server_out, client_task)
