"""The runtime every front end shares: the one way to get an agent session.

A front end (``pi-lsp run`` in ``cli/``, the language server in ``lsp/``, an Agent Client
Protocol adapter) maps its own input to a ``RunConfig`` (``config.py``) and calls
``create_agent_session(config, workspace, file=…, options=SessionOptions(…))``
(``session_factory.py``), which resolves the config (``resolve.py``: provider, model, key
variable, faux script, timeouts), builds the agent (``assemble.py``: tools over the
workspace, the bash tool's process registry and secret-free environment, the system prompt)
and returns a ``ConfiguredSession`` that owns and closes what it was built with.

The runtime imports the layers below it (``agent``, ``ai``, ``tools``, ``sessions``,
``security``), never a front end. Heavy modules load on first use, so ``pi-lsp run --help``
and a usage error stay fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .providers import api_key_variable, default_provider

if TYPE_CHECKING:
    from .assemble import build_agent
    from .children import ChildEvent, Subagents
    from .config import (
        CustomModelConfig,
        McpServerConfig,
        PermissionsConfig,
        ResourceOptions,
        RunConfig,
    )
    from .lsp_servers import language_servers
    from .project_context import (
        TrustOutcome,
        ask_project_trust,
        load_project_resources,
        saved_trust,
        settle_project_trust,
    )
    from .resolve import (
        ConfigError,
        FauxScriptError,
        MissingKeyError,
        ModelChoice,
        NoProviderError,
        UnknownModelError,
        check_config,
        configured_model,
        offered_models,
    )
    from .session_factory import (
        ConfiguredSession,
        SessionHooks,
        SessionOptions,
        create_agent_session,
        new_session_id,
    )

_LAZY = {
    "ChildEvent": ".children",
    "Subagents": ".children",
    "build_agent": ".assemble",
    "CustomModelConfig": ".config",
    "McpServerConfig": ".config",
    "PermissionsConfig": ".config",
    "RunConfig": ".config",
    "ResourceOptions": ".config",
    "language_servers": ".lsp_servers",
    "TrustOutcome": ".project_context",
    "ask_project_trust": ".project_context",
    "load_project_resources": ".project_context",
    "saved_trust": ".project_context",
    "settle_project_trust": ".project_context",
    "ConfigError": ".resolve",
    "FauxScriptError": ".resolve",
    "MissingKeyError": ".resolve",
    "ModelChoice": ".resolve",
    "NoProviderError": ".resolve",
    "UnknownModelError": ".resolve",
    "configured_model": ".resolve",
    "offered_models": ".resolve",
    "ConfiguredSession": ".session_factory",
    "SessionHooks": ".session_factory",
    "SessionOptions": ".session_factory",
    "new_session_id": ".session_factory",
    "check_config": ".resolve",
    "create_agent_session": ".session_factory",
}

__all__ = [
    "ChildEvent",
    "ConfigError",
    "ConfiguredSession",
    "CustomModelConfig",
    "FauxScriptError",
    "McpServerConfig",
    "MissingKeyError",
    "ModelChoice",
    "NoProviderError",
    "PermissionsConfig",
    "ResourceOptions",
    "RunConfig",
    "SessionHooks",
    "SessionOptions",
    "Subagents",
    "TrustOutcome",
    "UnknownModelError",
    "api_key_variable",
    "ask_project_trust",
    "build_agent",
    "check_config",
    "configured_model",
    "create_agent_session",
    "default_provider",
    "language_servers",
    "load_project_resources",
    "new_session_id",
    "offered_models",
    "saved_trust",
    "settle_project_trust",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)
