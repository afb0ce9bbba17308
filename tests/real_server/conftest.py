"""The real-model-server tier: llama.cpp's own HTTP server (the ``xllamacpp`` wheel) with a
135M model, so the providers meet a real server's wire behaviour (role and first token in
one segment, connection closed after each stream, its own error shapes).

The runtime lives in a venv cached outside the clone (``.ci/install-llama.sh``, run here when
the venv is missing). Tests skip, saying why, only when that install fails (no wheel for this
platform, no network). One server per module (``llama`` fixture): 1 thread, 4096-token
context (pi-lsp run's system prompt and tool list take ≈ 2.3k tokens), 24 tokens per
answer unless a request asks for fewer.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
INSTALLER = ROOT / ".ci" / "install-llama.sh"
CTX = 4096
"""The module server's context window (the overflow tests send more than this)."""
DEFAULT_PYTHON = Path.home() / ".cache" / "pi-lsp-ci" / "llama-venv" / "bin" / "python"
STARTUP_S = 120.0


def llama_python() -> Path:
    """The cached venv's Python, installing it first when missing (skip if impossible)."""
    override = os.environ.get("PI_LSP_LLAMA_PYTHON")
    if override:
        return Path(override)
    if sys.platform != "linux":
        pytest.skip("real-server tier: the xllamacpp wheel is only installed on Linux here")
    try:
        done = subprocess.run(["bash", str(INSTALLER)], capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"real-server tier: cannot run {INSTALLER.name}: {exc}")
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        pytest.skip(
            f"real-server tier: the llama.cpp wheel could not be installed here "
            f"({INSTALLER.name} exited {done.returncode}: {' / '.join(tail)})"
        )
    return Path(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else DEFAULT_PYTHON


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LlamaServer:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(30)


def start_server(log_dir: Path, *, n_predict: int = 24, ctx: int = CTX) -> LlamaServer:
    python = llama_python()
    port = free_port()
    log = log_dir / f"llama-{port}.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [
                str(python),
                str(HERE / "llama_serve.py"),
                str(port),
                "--template",
                str(HERE / "tools.jinja"),
                "--threads",
                "1",
                "--ctx",
                str(ctx),
                "--n-predict",
                str(n_predict),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    server = LlamaServer(process, port, log)
    deadline = time.monotonic() + STARTUP_S
    while True:  # /health answers 503 while the model loads
        if process.poll() is not None:
            raise RuntimeError(f"llama server exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            with urllib.request.urlopen(server.url + "/health", timeout=2) as resp:
                if resp.status == 200:
                    return server
        except OSError:
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"llama server did not become healthy in {STARTUP_S:g} s")
        time.sleep(0.1)


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    server = start_server(tmp_path_factory.mktemp("llama"))
    try:
        yield server
    finally:
        server.stop()
