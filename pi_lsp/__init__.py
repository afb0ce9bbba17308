"""pi-lsp: a coding agent inside any LSP editor.

Layers (each imports only those below): ``ai`` -> ``agent`` / ``tools`` -> ``sessions`` ->
``lsp``; ``cli`` on top. See docs/architecture.md.
"""

__version__ = "0.1.0"
