"""Fixtures for the model-layer tests: a scripted HTTP server per test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.http_server import ScriptedHTTPServer


@pytest.fixture
async def srv() -> AsyncIterator[ScriptedHTTPServer]:
    async with ScriptedHTTPServer() as server:
        yield server
