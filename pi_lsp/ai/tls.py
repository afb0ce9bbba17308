"""The providers' shared SSL context, which a host can start building at spawn.

The context is the one ``httpx.create_ssl_context()`` makes by default: ``SSL_CERT_FILE`` or
``SSL_CERT_DIR`` from the environment, else certifi's bundle. Building it takes ≈ 40 ms here,
nearly all of it OpenSSL parsing certificates with the GIL released. So a host calls
``warm_up()`` as soon as it knows a provider request may come (``pi-lsp run``, the language
server once ``initialize`` is answered): the imports happen in the caller's thread (no
import ever runs in two threads at once), a daemon thread builds the context while the
caller goes on importing the rest, and ``ssl_context()`` returns it, waiting if it is not
ready yet. Standard library only at import time. Must not import anything of ours above
``ai/``.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ssl

_lock = threading.Lock()
_context: ssl.SSLContext | None = None


def _where() -> tuple[str | None, str | None]:
    """``(cafile, capath)`` as httpx picks them (``trust_env``)."""
    if os.environ.get("SSL_CERT_FILE"):
        return os.environ["SSL_CERT_FILE"], None
    if os.environ.get("SSL_CERT_DIR"):
        return None, os.environ["SSL_CERT_DIR"]
    import certifi

    return certifi.where(), None


def _build(cafile: str | None, capath: str | None) -> ssl.SSLContext:
    global _context
    import ssl

    with _lock:  # a warm-up in progress holds it: wait for its context
        if _context is None:
            _context = ssl.create_default_context(cafile=cafile, capath=capath)
        return _context


def ssl_context() -> ssl.SSLContext:
    """The shared context, built once (by the warm-up thread or here)."""
    if _context is not None:
        return _context
    return _build(*_where())


def _build_quietly(cafile: str | None, capath: str | None) -> None:
    with contextlib.suppress(Exception):  # the first real use builds it again and reports
        _build(cafile, capath)


def warm_up() -> None:
    """Start building the context in a daemon thread (no-op once it exists)."""
    if _context is not None:
        return
    import ssl  # noqa: F401 - imported here, in the caller's thread, not in the worker

    threading.Thread(
        target=_build_quietly, args=_where(), name="pi-tls-warm-up", daemon=True
    ).start()
