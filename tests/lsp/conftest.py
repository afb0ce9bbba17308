"""Fixtures for the language-server tests: a workspace, an isolated data dir, and two
factories with one signature that start the server under a pytest-lsp client (stopped at
teardown): ``pi`` as a process (``python -m pi_lsp``, the ``e2e`` tier) and ``pi_in_process``
in the test's own event loop over a pipe pair (tests/support/inprocess.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.security import sandbox, vault
from tests.support.http_server import ScriptedHTTPServer

from .harness import Harness, start, start_in_process, stop

Start = Callable[..., Awaitable[Harness]]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    return root


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    path.mkdir()
    return path


@pytest.fixture
async def pi(workspace: Path, data_dir: Path) -> AsyncIterator[Start]:
    started: list[Harness] = []

    async def factory(**kwargs: Any) -> Harness:
        harness = await start(workspace, data_dir, **kwargs)
        started.append(harness)
        return harness

    yield factory
    for harness in started:
        await stop(harness)


@pytest.fixture
async def pi_in_process(
    workspace: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Start]:
    """``pi``'s factory, with the server served in this process: the protocol tier. ``env``
    is applied to this process for the test (``monkeypatch``). What a process holds for its
    lifetime starts afresh as in a new process: the sandbox probe (``PI_LSP_BWRAP`` may differ
    per test), and the secrets held by ``security.vault`` are given back at the end."""
    started: list[Harness] = []
    monkeypatch.setenv("PI_LSP_DATA_DIR", str(data_dir))
    monkeypatch.setattr(sandbox, "_DEFAULT", None)

    async def factory(*, env: dict[str, str] | None = None, **kwargs: Any) -> Harness:
        for name, value in (env or {}).items():
            monkeypatch.setenv(name, value)
        harness = await start_in_process(workspace, **kwargs)
        started.append(harness)
        return harness

    try:
        yield factory
        for harness in started:
            await stop(harness)
    finally:
        vault.reset_for_tests()  # before monkeypatch restores the environment


@pytest.fixture
async def srv() -> AsyncIterator[ScriptedHTTPServer]:
    async with ScriptedHTTPServer() as server:
        yield server


def http_settings(server: ScriptedHTTPServer, **extra: Any) -> dict[str, Any]:
    return {
        "provider": "openai-compatible",
        "baseUrl": server.url + "/v1",
        "model": "test-model",
        **extra,
    }
