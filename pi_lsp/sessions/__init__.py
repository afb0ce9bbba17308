"""pi_lsp.sessions: append-only JSONL session files, the session tree, and compaction.

Must not import pygls/lsprotocol, nor ``pi_lsp.lsp``.
"""
