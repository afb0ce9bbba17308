"""pi_lsp.langserv: language servers pi-lsp starts itself, answering the ``lsp`` tool where no
editor does (ACP, ``pi-lsp run``, an LSP client without ``pi/lspQuery``).

``config.py`` reads ``lspServers`` (Claude Code's ``.lsp.json`` shape) from the user's
settings and — in a trusted project only — ``.pi/lsp.json`` / ``.lsp.json``; ``server.py``
holds one server process (pygls' ``LanguageClient``) in one owner task; ``pool.py`` is the
``CodeIntel`` over them, keyed by (server, root), started lazily, stopped when idle.
Standard library and pydantic at import time: pygls is imported when a server starts.
"""

from .config import LoadedLspConfig, LspServerConfig, load_lsp_config
from .pool import ServerPool

__all__ = ["LoadedLspConfig", "LspServerConfig", "ServerPool", "load_lsp_config"]
