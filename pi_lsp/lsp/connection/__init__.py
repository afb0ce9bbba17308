"""The connection to one editor: framing, the JSON-RPC dispatch loop, the outbox and the
converter (the entry points that use them live in ``lsp/serve/``)."""
