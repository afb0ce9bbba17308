"""``pi-lsp run``'s arguments: the one parser, standard library only.

``cli.prefetch`` reads the same arguments before anything heavy is imported (see there), and
``cli.run`` parses them for the run itself.
"""

from __future__ import annotations

import argparse

from ..ai.thinking_levels import THINKING_LEVELS


def build_parser(
    parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
) -> argparse.ArgumentParser:
    p = parser_class(
        prog="pi-lsp run",
        description="Run one agent trace headless in a directory and print it as it streams.",
    )
    p.add_argument("prompt", nargs="?", help="what the agent should do (optional with --demo)")
    p.add_argument("--cwd", default=".", help="the project directory (default: the current one)")
    p.add_argument(
        "--provider", help="openai, anthropic, google, openai-compatible, ollama, … or faux"
    )
    p.add_argument(
        "--api",
        choices=(
            "openai-completions",
            "openai-responses",
            "anthropic-messages",
            "google-generative-ai",
        ),
        help="the wire API to speak (default: the provider's or model's own)",
    )
    p.add_argument("--model", help="model id (default: the provider's default model)")
    p.add_argument("--base-url", help="server URL, e.g. http://127.0.0.1:8080/v1")
    p.add_argument("--api-key-env", metavar="NAME", help="environment variable holding the key")
    p.add_argument("--thinking", choices=THINKING_LEVELS, help="thinking level (default: off)")
    p.add_argument("-y", "--yes", action="store_true", help="run shell commands without asking")
    p.add_argument("--json", action="store_true", help="print the pi/event stream as JSON lines")
    p.add_argument("--demo", action="store_true", help="the scripted offline demo (no key needed)")
    p.add_argument("--faux-script", metavar="FILE", help="play a scripted faux model (JSON)")
    p.add_argument("--resume", metavar="SESSION_ID", help="continue a saved session of --cwd")
    p.add_argument(
        "--context-window",
        type=int,
        metavar="TOKENS",
        help="the model's context window (default: known models' own, else 128000)",
    )
    p.add_argument(
        "--max-tokens", type=int, metavar="TOKENS", help="cap on the tokens of one answer"
    )
    p.add_argument(
        "--read-timeout",
        type=float,
        metavar="SECONDS",
        help="fail a request after this long without data (default 600)",
    )
    p.add_argument("--no-save", action="store_true", help="do not save the session")
    return p
