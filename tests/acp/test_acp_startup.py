"""``pi-lsp acp`` answers ``initialize`` before the heavy imports (issue 38): the early answer
(``acp/early.py``, standard library only) is the agent's own, the SDK's duplicate is dropped,
and the order is visible without timing anything: with a flag error, which only the heavy
part can find, the answer still comes first. The time itself is measured in
``bench/startup_bench.py`` (docs/performance.md), never asserted here."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import ClientCapabilities, FileSystemCapabilities

from pi_lsp.acp import early
from tests.cli.helpers import ROOT, clean_env

from .harness import model_args


def _initialize(msg_id: int = 0) -> dict[str, Any]:
    caps = {"fs": {"readTextFile": True, "writeTextFile": False}}
    return {
        "jsonrpc": "2.0",
        "id": msg_id,
        "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": caps},
    }


def _spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "pi_lsp", "acp", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )


async def test_the_early_answer_is_the_agents_own(tmp_path: Path, monkeypatch: Any) -> None:
    from pi_lsp.acp.args import build_parser
    from pi_lsp.acp.factory import provision
    from pi_lsp.acp.server import PiAcpAgent

    monkeypatch.setenv("PI_LSP_DATA_DIR", str(tmp_path / "data"))
    agent = PiAcpAgent(provision(build_parser().parse_args(model_args("http://127.0.0.1:9"))))
    caps = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True))
    answer = await agent.initialize(protocol_version=1, client_capabilities=caps)
    # serialised as the SDK's connection does it
    wire = answer.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_unset=True)
    assert early.initialize_result() == wire
    assert early.PROTOCOL_VERSION == acp.PROTOCOL_VERSION


def test_initialize_is_answered_once_and_the_session_goes_on(tmp_path: Path) -> None:
    """``initialize`` and ``session/new`` written at once, as editors do."""
    work = tmp_path / "work"
    work.mkdir()
    proc = _spawn(model_args("http://127.0.0.1:9"), clean_env(tmp_path))
    assert proc.stdin is not None
    assert proc.stdout is not None
    new = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "session/new",
        "params": {"cwd": str(work), "mcpServers": []},
    }
    proc.stdin.write((json.dumps(_initialize()) + "\n" + json.dumps(new) + "\n").encode())
    proc.stdin.flush()
    first = json.loads(proc.stdout.readline())
    second = json.loads(proc.stdout.readline())
    proc.stdin.close()  # the client leaves
    rest = proc.stdout.read()
    assert proc.wait(timeout=60) == 0
    assert first == {"jsonrpc": "2.0", "id": 0, "result": early.initialize_result()}
    assert second["id"] == 1
    assert second["result"]["sessionId"]
    # no second initialize answer: only session notifications may follow
    assert all("id" not in json.loads(line) for line in rest.splitlines() if line.strip())


def test_a_flag_error_comes_after_the_initialize_answer(tmp_path: Path) -> None:
    """The provider check is part of the heavy start: an editor gets its answer first, then
    the reason on stderr and exit status 2."""
    env = clean_env(tmp_path)  # no key at all
    proc = _spawn(["--provider", "openai", "--model", "o4-mini"], env)
    out, err = proc.communicate((json.dumps(_initialize(7)) + "\n").encode(), timeout=60)
    assert proc.returncode == 2
    assert json.loads(out.splitlines()[0]) == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": early.initialize_result(),
    }
    assert b"OPENAI_API_KEY" in err


def test_something_else_first_is_left_to_the_sdk(tmp_path: Path) -> None:
    proc = _spawn(model_args("http://127.0.0.1:9"), clean_env(tmp_path))
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write(b"this is not json\n" + (json.dumps(_initialize(3)) + "\n").encode())
    proc.stdin.flush()
    answers = [json.loads(proc.stdout.readline()) for _ in range(2)]
    proc.stdin.close()
    rest = proc.stdout.read()
    assert proc.wait(timeout=60) == 0
    assert answers[0]["error"]["code"] == -32700
    assert answers[1] == {"jsonrpc": "2.0", "id": 3, "result": early.initialize_result()}
    assert rest == b""


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_on_a_terminal_a_flag_error_needs_no_input(tmp_path: Path) -> None:
    """Someone trying the command by hand sees the error at once, not after typing a line."""
    main_fd, tty_fd = pty.openpty()
    try:
        res = subprocess.run(
            [sys.executable, "-m", "pi_lsp", "acp", "--provider", "openai"],
            stdin=tty_fd,
            capture_output=True,
            env=clean_env(tmp_path),
            cwd=ROOT,
            timeout=60,
        )
    finally:
        os.close(tty_fd)
        os.close(main_fd)
    assert res.returncode == 2
    assert b"OPENAI_API_KEY" in res.stderr
    assert res.stdout == b""
