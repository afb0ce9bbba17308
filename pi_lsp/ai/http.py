"""The public way for a long-lived host to get an HTTP client for the providers.

Kept out of ``pi_lsp.ai``'s ``__init__`` so importing the package does not import httpx.
Must not import anything of ours above ``ai/``.
"""

from .providers._http import new_client as new_http_client

__all__ = ["new_http_client"]
