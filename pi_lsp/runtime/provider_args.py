"""The provider flags every front end takes (``pi-lsp run``, ``pi-lsp acp``): one definition,
and one mapping of them into ``RunConfig`` fields (``provider_fields``).

Standard library only, so a front end can parse its arguments before anything heavy loads.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..ai.thinking_levels import THINKING_LEVELS


def add_provider_arguments(p: argparse.ArgumentParser) -> None:
    """``--provider --api --model --base-url --api-key-env --thinking --faux-script
    --context-window --max-tokens --read-timeout``."""
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
    p.add_argument("--faux-script", metavar="FILE", help="play a scripted faux model (JSON)")
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


def provider_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The flags of ``add_provider_arguments`` as ``RunConfig`` fields (a faux script is the
    model, whatever ``--provider`` says)."""
    return {
        "provider": "faux" if args.faux_script else args.provider,
        "api": args.api,
        "model": args.model,
        "base_url": args.base_url,
        "api_key_env": args.api_key_env,
        "thinking": args.thinking,
        "context_window": args.context_window,
        "max_tokens": args.max_tokens,
        "read_timeout": args.read_timeout,
        "faux_script": args.faux_script,
    }
