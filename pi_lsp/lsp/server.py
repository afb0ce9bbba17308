"""The language server object and its start-up (stdio or TCP).

Orchestration only: feature handlers live in their own modules and are registered here.
"""

from __future__ import annotations

from pygls.lsp.server import LanguageServer

from .. import __version__
from .converter import dict_converter


def create_server() -> LanguageServer:
    return LanguageServer("pi-lsp", __version__, converter_factory=dict_converter)


def serve_stdio() -> None:
    create_server().start_io()


def serve_tcp(host: str, port: int) -> None:
    create_server().start_tcp(host, port)
