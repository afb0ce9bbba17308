"""A throwaway CA and a ``localhost`` / ``127.0.0.1`` server certificate it signed (openssl)."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from pathlib import Path

HAVE_OPENSSL = shutil.which("openssl") is not None


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certs(directory: Path) -> Path:
    """Writes ``ca.pem`` (trust this) and ``server.pem`` / ``server.key``; returns the folder."""
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
             "/CN=pi-lsp test CA", "-keyout", "ca.key", "-out", "ca.pem",
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=directory)  # fmt: skip
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
             "-keyout", "server.key", "-out", "server.csr", cwd=directory)  # fmt: skip
    (directory / "ext.cnf").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-days", "2", "-out", "server.pem", "-extfile", "ext.cnf",
             cwd=directory)  # fmt: skip
    return directory


def server_context(certs: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certs / "server.pem", certs / "server.key")
    return context
