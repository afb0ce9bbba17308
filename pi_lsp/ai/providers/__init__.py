"""Provider implementations, one module each; each registers itself with ``ai.registry``.

Imported lazily by ``pi_lsp.ai.registry`` so start-up pays only for what is used.
"""
