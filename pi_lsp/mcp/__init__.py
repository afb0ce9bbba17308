"""MCP client: the user's MCP servers become the agent's tools (docs/tools.md#mcp-servers).

Beside ``tools/``: imported by ``runtime/`` and the front ends; imports ``agent/`` types,
``ai/``, ``tools/`` (truncation) and ``security/`` (rules). The official ``mcp`` SDK is an
optional extra (``pi-lsp[mcp]``), imported only when a server starts.

- ``config``: ``mcpServers`` from ``.mcp.json``, the user's file and settings → ``McpServerConfig``;
- ``trust``: the per-workspace allow/deny of project servers;
- ``server``: one server's connection, owned by one task; ``hub``: all of a process's servers;
- ``tools`` / ``results``: MCP tools as agent tools, the ``mcp`` proxy, results;
- ``permissions``: asking before a call; ``toolset``: one session's MCP tools.

Import from the modules (``pi_lsp.mcp.config`` …): this package file imports nothing, so
``runtime/config.py`` can use the config model without loading the rest.
"""
