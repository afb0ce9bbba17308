"""``python -m pi_lsp``: same as the ``pi-lsp`` console script."""

from .main import main

if __name__ == "__main__":
    raise SystemExit(main())
