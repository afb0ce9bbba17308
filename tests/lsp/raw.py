"""A raw JSON-RPC client over the server's stdio: exact bytes in, frames out, and the power
to stop reading (the outbox tests) — what pytest-lsp's typed client cannot do."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from lsprotocol.converters import get_converter
from pytest_lsp import client_capabilities

from .harness import VSCODE, uri_of

_converter = get_converter()


async def read_message(stream: asyncio.StreamReader) -> dict[str, Any] | None:
    """One Content-Length framed JSON message (``None`` at EOF)."""
    length = None
    while True:
        line = await stream.readline()
        if not line:
            return None
        if line == b"\r\n":
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    assert length is not None
    message: dict[str, Any] = json.loads(await stream.readexactly(length))
    return message


class RawClient:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.messages: list[dict[str, Any]] = []
        self.reading = asyncio.Event()
        self.reading.set()
        self._changed = asyncio.Event()
        self._next_id = 0
        self._task = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls, data_dir: Path, **env: str) -> RawClient:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "pi_lsp",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env={**os.environ, "PI_LSP_DATA_DIR": str(data_dir), **env},
        )
        return cls(proc)

    async def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        while True:
            await self.reading.wait()
            message = await read_message(stdout)
            if message is None:
                return
            self.messages.append(message)
            old, self._changed = self._changed, asyncio.Event()
            old.set()

    def send_bytes(self, body: bytes) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send(self, message: dict[str, Any]) -> None:
        self.send_bytes(json.dumps(message).encode())

    def request(self, method: str, params: Any = None) -> int:
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        return self._next_id

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def wait_for(self, predicate: Any, timeout: float = 30) -> Any:
        async def loop() -> Any:
            while not (value := predicate()):
                await self._changed.wait()
            return value

        return await asyncio.wait_for(loop(), timeout)

    async def response(self, msg_id: Any) -> dict[str, Any]:
        found: dict[str, Any] = await self.wait_for(
            lambda: next(
                (m for m in self.messages if m.get("id") == msg_id and "method" not in m), None
            )
        )
        return found

    async def call(self, method: str, params: Any = None) -> dict[str, Any]:
        return await self.response(self.request(method, params))

    async def initialize(self, root: Path, pi: dict[str, Any] | None = None) -> dict[str, Any]:
        caps = _converter.unstructure(client_capabilities(VSCODE))
        result = await self.call(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": uri_of(root),
                "capabilities": caps,
                "initializationOptions": {"pi": pi or {}},
            },
        )
        self.notify("initialized", {})
        return result

    def events(self, session_id: str | None = None) -> list[dict[str, Any]]:
        return [
            m["params"]
            for m in self.messages
            if m.get("method") == "pi/event"
            and (session_id is None or m["params"]["sessionId"] == session_id)
        ]

    async def close(self) -> int:
        if self.proc.returncode is None:
            try:
                await asyncio.wait_for(self.call("shutdown"), 10)
                self.notify("exit")
                await asyncio.wait_for(self.proc.wait(), 10)
            except (TimeoutError, ConnectionError):
                self.proc.kill()
                await self.proc.wait()
        self._task.cancel()
        return self.proc.returncode or 0
