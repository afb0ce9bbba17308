"""Which hosts are this machine, and how long to wait for a connection: standard library only,
so ``pi-lsp run``'s early request (``cli/prefetch.py``) and the providers (``providers/_http``)
share one rule. Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

DEFAULT_CONNECT_TIMEOUT_S = 30.0
LOOPBACK_CONNECT_TIMEOUT_S = 5.0
"""A server on this machine accepts at once or never (a TLS handshake with a plain-HTTP port
never completes): waiting 30 s four times (128 s) to say so helped nobody."""
_LOOPBACK_HOSTS = frozenset(("localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0"))


def is_loopback_host(host: str) -> bool:
    return host in _LOOPBACK_HOSTS or host.startswith("127.")


def connect_timeout_for_host(host: str) -> float:
    return LOOPBACK_CONNECT_TIMEOUT_S if is_loopback_host(host) else DEFAULT_CONNECT_TIMEOUT_S
