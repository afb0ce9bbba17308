"""The connection to one editor: framing, the JSON-RPC dispatch loop, the outbox, stdio and TCP."""
