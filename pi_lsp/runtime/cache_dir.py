"""Where pi-lsp keeps what it can rebuild: ``$XDG_CACHE_HOME/pi-lsp`` (``~/.cache/pi-lsp``).

Used by the language server's code cache for lsprotocol's import and by ``pi-lsp run``'s
prepared first requests. Nothing in it is a secret or user data. Standard library only.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "pi-lsp"
