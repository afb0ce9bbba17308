"""The Agent Client Protocol front end: ``pi-lsp acp`` (docs/editors.md#acp-editors).

A third front end beside ``lsp/`` and ``cli/``, importing neither: ``main`` (process),
``stdio`` (the line transport), ``server`` (the SDK agent's handlers), ``session`` (one
session's turns, queue and cancel), ``updates`` / ``tool_view`` / ``replay`` (events →
``session/update``), ``client_fs`` (the client's ``fs/*`` as the tools' workspace),
``permissions`` (``session/request_permission`` over our policy), ``config_options``,
``prompt_input``, ``mcp_servers`` (the client's MCP servers as runtime config), ``args``, and
``factory`` (flags → ``RunConfig``; the one place an agent session is made).
It imports ``runtime/``, ``sessions/``, ``wire.py``-level types and the ``acp`` SDK.
"""
