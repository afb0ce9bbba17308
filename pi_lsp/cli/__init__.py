"""``pi-lsp run``: the headless front end — argument parsing (``run.py``) and the terminal
and ``--json`` printers (``output.py``) over the shared runtime (``pi_lsp/runtime``). Never
imports the language server (``lsp/``)."""
