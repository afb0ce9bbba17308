"""The wire contract: the ``pi/*`` method names, their pydantic params/result models and what
an LSP position means (encodings). Imports nothing else of ``lsp/``."""
