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
    add_resource_arguments(p)
    return p


def add_resource_arguments(p: argparse.ArgumentParser) -> None:
    """Pi's flags for the project's context, skills and templates (docs/context.md)."""
    g = p.add_argument_group("project context, skills and prompt templates (docs/context.md)")
    g.add_argument(
        "--no-context-files",
        action="store_true",
        help="do not load AGENTS.md / CLAUDE.md into the system prompt",
    )
    g.add_argument("--no-skills", action="store_true", help="do not discover skills")
    g.add_argument(
        "--no-prompt-templates", action="store_true", help="do not discover prompt templates"
    )
    g.add_argument(
        "--skill",
        action="append",
        default=[],
        metavar="PATH",
        help="a skill file or directory to load (repeatable; also with --no-skills)",
    )
    g.add_argument(
        "--prompt-template",
        action="append",
        default=[],
        metavar="PATH",
        help="a prompt template file or directory (repeatable; also with --no-prompt-templates)",
    )
    g.add_argument(
        "--system-prompt", metavar="TEXT|FILE", help="replace the system prompt (and SYSTEM.md)"
    )
    g.add_argument(
        "--append-system-prompt",
        metavar="TEXT|FILE",
        help="append to the system prompt (instead of APPEND_SYSTEM.md)",
    )
    g.add_argument(
        "--no-claude-compat",
        action="store_true",
        help="do not read .claude/skills, ~/.claude/skills and .claude/commands",
    )
    trust = g.add_mutually_exclusive_group()
    trust.add_argument(
        "--approve",
        action="store_true",
        help="trust the project's own .pi files, skills and templates for this run",
    )
    trust.add_argument(
        "--no-approve",
        action="store_true",
        help="do not load the project's own .pi files, skills and templates",
    )
    g.add_argument(
        "--show-context",
        action="store_true",
        help="print what would be loaded (JSON) and exit",
    )
    g.add_argument(
        "--list-commands",
        action="store_true",
        help="print the slash commands (JSON) and exit",
    )
