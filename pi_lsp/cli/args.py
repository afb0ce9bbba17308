"""``pi-lsp run``'s arguments: the one parser, standard library only.

``cli.prefetch`` reads the same arguments before anything heavy is imported (see there), and
``cli.run`` parses them for the run itself.
"""

from __future__ import annotations

import argparse

from ..runtime.provider_args import add_provider_arguments


def build_parser(
    parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
) -> argparse.ArgumentParser:
    p = parser_class(
        prog="pi-lsp run",
        description="Run one agent trace headless in a directory and print it as it streams.",
    )
    p.add_argument("prompt", nargs="?", help="what the agent should do (optional with --demo)")
    p.add_argument("--cwd", default=".", help="the project directory (default: the current one)")
    add_provider_arguments(p)  # the same as pi-lsp acp's
    p.add_argument("-y", "--yes", action="store_true", help="run shell commands without asking")
    p.add_argument("--json", action="store_true", help="print the pi/event stream as JSON lines")
    p.add_argument("--demo", action="store_true", help="the scripted offline demo (no key needed)")
    p.add_argument("--resume", metavar="SESSION_ID", help="continue a saved session of --cwd")
    p.add_argument(
        "--plan",
        action="store_true",
        help="plan mode: the agent can only read (no write/edit, read-only shell commands)",
    )
    p.add_argument("--no-save", action="store_true", help="do not save the session")
    p.add_argument(
        "--no-terminal-status",
        action="store_true",
        help="no terminal title or bell when a question waits or the run ends",
    )
    p.add_argument(
        "--mcp-config",
        metavar="FILE",
        help='MCP servers ({"mcpServers": …}) besides .mcp.json and ~/.config/mcp/mcp.json',
    )
    return p
