"""The providers' TLS context (``ai/tls.py``) really verifies: a local HTTPS server with a
certificate from a throwaway CA is trusted only when that CA is the trust source
(``SSL_CERT_FILE``), as ``httpx.create_ssl_context()`` decides, and refused otherwise."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from pi_lsp.ai import tls
from tests.support.tls_certs import HAVE_OPENSSL, make_certs, server_context

pytestmark = pytest.mark.skipif(not HAVE_OPENSSL, reason="needs openssl")


@pytest.fixture
def certs(tmp_path: Path) -> Path:
    return make_certs(tmp_path)


@pytest.fixture
async def https_url(certs: Path) -> AsyncIterator[str]:
    server_ctx = server_context(certs)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=server_ctx)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"https://localhost:{port}/"
    finally:
        server.close()
        await server.wait_closed()


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tls, "_context", None)  # built again from this test's environment


async def test_a_server_signed_by_the_configured_ca_is_trusted(
    https_url: str, certs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(certs / "ca.pem"))
    async with httpx.AsyncClient(verify=tls.ssl_context()) as client:
        response = await client.get(https_url)
    assert response.text == "ok"


async def test_a_server_from_an_unknown_ca_is_refused(
    https_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)  # certifi's bundle
    async with httpx.AsyncClient(verify=tls.ssl_context()) as client:
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            await client.get(https_url)
