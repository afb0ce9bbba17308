"""The runtime every front end shares: what an agent session is made of.

``pi-lsp run`` (``cli``) and the language server (``lsp/``) are adapters over it; a third
front end (an Agent Client Protocol adapter, an HTTP API) builds its agents here too.

- ``assemble.build_agent`` is the one function that constructs an ``Agent`` for a front end:
  the coding tools over a workspace, the bash tool's process registry and secret-free
  environment, and the system prompt.
- ``providers`` picks the provider when none is configured and names its key variable.

The runtime imports the layers below it (``agent``, ``ai``, ``tools``, ``sessions``,
``security``), never a front end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .providers import api_key_variable, default_provider

if TYPE_CHECKING:
    from .assemble import build_agent

__all__ = ["api_key_variable", "build_agent", "default_provider"]


def __getattr__(name: str) -> Any:
    # ``build_agent`` pulls in the tools: loaded on first use, so ``pi-lsp run --help`` and a
    # usage error stay fast
    if name == "build_agent":
        from .assemble import build_agent

        return build_agent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
