"""pi_lsp.lsp: the pygls language server hosting the agent (the wire contract in docs/protocol.md).

The top layer: orchestration only; mapping, edits, permissions and queues live in their own
modules.
"""
