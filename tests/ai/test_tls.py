"""The providers' SSL context (``ai/tls.py``): the one httpx makes, built once, and the same
whether a warm-up thread built it or the first request did."""

from __future__ import annotations

import ssl

import httpx
import pytest

from pi_lsp.ai import tls
from pi_lsp.ai.http import new_http_client


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tls, "_context", None)


def _same(ours: ssl.SSLContext, theirs: ssl.SSLContext) -> None:
    assert ours.cert_store_stats() == theirs.cert_store_stats()
    assert ours.verify_mode == theirs.verify_mode == ssl.CERT_REQUIRED
    assert ours.check_hostname is theirs.check_hostname is True
    assert ours.options == theirs.options
    assert ours.minimum_version == theirs.minimum_version


def test_the_context_is_the_one_httpx_makes() -> None:
    _same(tls.ssl_context(), httpx.create_ssl_context())


def test_it_honours_ssl_cert_file(monkeypatch: pytest.MonkeyPatch) -> None:
    import certifi

    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    assert tls._where() == (certifi.where(), None)
    _same(tls.ssl_context(), httpx.create_ssl_context())


async def test_a_warm_up_builds_the_context_the_client_then_uses() -> None:
    tls.warm_up()
    first = tls.ssl_context()  # waits for the warm-up thread if it is still building
    assert tls.ssl_context() is first
    tls.warm_up()  # no-op once built
    assert tls.ssl_context() is first
    client = new_http_client()
    assert isinstance(client, httpx.AsyncClient)
    await client.aclose()
