"""``pi-lsp acp``'s arguments: the provider flags of ``pi-lsp run`` (``runtime``) plus the
permission and logging switches. Standard library only."""

from __future__ import annotations

import argparse

from ..runtime.provider_args import add_provider_arguments


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pi-lsp acp",
        description=(
            "Serve the agent over the Agent Client Protocol (v1) on stdin/stdout, for Zed, "
            "JetBrains IDEs, Neovim (CodeCompanion, avante), Emacs (agent-shell), acpx…"
        ),
    )
    add_provider_arguments(p)
    p.add_argument("-y", "--yes", action="store_true", help="run shell commands without asking")
    p.add_argument("--no-save", action="store_true", help="do not save sessions")
    p.add_argument("--log-file", metavar="PATH", help="write logs here (default: stderr)")
    p.add_argument(
        "--log-level",
        default="WARNING",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="log verbosity (default: WARNING)",
    )
    return p
