"""``pi-lsp --socket PATH --idle-timeout S``: the per-workspace background server an editor
starts (``server.tcp = "auto"`` in the Neovim plugin). Only its user may connect (the socket
is 0600 in a 0700 directory), a client is served like over TCP, and once no client is
connected and no run is going for the timeout the server exits and removes its socket."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # the server as a process, on its socket (docs/testing.md)


def start(path: Path, idle: float, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PI_LSP_DATA_DIR": str(path.parent.parent / "data")}
    cmd = [sys.executable, "-m", "pi_lsp", "--socket", str(path), "--idle-timeout", str(idle)]
    return subprocess.Popen([*cmd, *extra], env=env, stderr=subprocess.PIPE, text=True)


def wait_log(proc: subprocess.Popen[str], text: str) -> None:
    """Read the server's log up to a line holding ``text`` (an event: no sleeps)."""
    assert proc.stderr is not None
    for line in proc.stderr:
        if text in line:
            return
    raise AssertionError(f"the server exited before logging {text!r} (code {proc.wait()})")


def wait_listening(proc: subprocess.Popen[str]) -> None:
    wait_log(proc, "listening on")


def frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


@pytest.mark.timeout(60)
def test_socket_is_private_and_idle_server_exits(tmp_path: Path) -> None:
    path = tmp_path / "run" / "ws.sock"
    proc = start(path, 1.0, "--log-level", "DEBUG")
    try:
        wait_listening(proc)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        with socket.socket(socket.AF_UNIX) as s:  # a client keeps it alive while connected
            s.connect(str(path))
            init = {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}
            s.sendall(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
            reply = s.recv(65536)
            assert b'"id":1' in reply.replace(b" ", b"")
            assert b"capabilities" in reply
            # the idle watch has seen a whole timeout pass with the client connected ...
            wait_log(proc, "busy for the idle timeout")
            assert proc.poll() is None  # ... and stayed
        proc.communicate(timeout=30)  # no client, no run: it exits (its debug log drained)
        assert proc.returncode == 0
        assert not path.exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.timeout(60)
def test_stale_socket_file_is_replaced_and_live_one_refused(tmp_path: Path) -> None:
    path = tmp_path / "run" / "ws.sock"
    path.parent.mkdir(mode=0o700)
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(path))
    stale.close()  # a file nobody listens on: a server that died
    proc = start(path, 30.0)
    try:
        wait_listening(proc)
        second = start(path, 30.0)
        assert second.wait(timeout=30) != 0
        assert second.stderr is not None
        assert "already listens" in second.stderr.read()
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) == 0
