"""Fixtures for the language-server tests: a workspace, an isolated data dir, and a factory
that starts ``python -m pi_lsp`` under a pytest-lsp client (stopped at teardown)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.http_server import ScriptedHTTPServer

from .harness import Harness, start, stop

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
