"""The console entry point: version, bad flags, and a real server answering initialize."""

from __future__ import annotations

import subprocess
import sys

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from pi_lsp import __version__
from pi_lsp.lsp.connection.converter import dict_converter


def test_version_flag() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "pi_lsp", "--version"], capture_output=True, text=True, timeout=60
    )
    assert res.returncode == 0
    assert res.stdout.strip() == f"pi-lsp {__version__}"


def test_bad_tcp_flag_is_a_clear_error() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "pi_lsp", "--tcp", "nonsense"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode != 0
    assert "HOST:PORT" in res.stderr


def _client() -> LanguageClient:
    client = LanguageClient(converter_factory=dict_converter)
    pytest_lsp.client.register_lsp_features(client)  # type: ignore[attr-defined]
    return client


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "pi_lsp", "--stdio"], client_factory=_client
    )
)
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    yield
    await lsp_client.shutdown_session()


async def test_server_answers_initialize(client: LanguageClient) -> None:
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("neovim@v0.11.0"), process_id=None, root_uri=None
        )
    )
    assert result.server_info is not None
    assert result.server_info.name == "pi-lsp"
    assert result.server_info.version == __version__
