"""``pi-lsp review``: a code review of a git diff, headless (docs/review.md, docs/ci.md).

``pi-lsp review [--base REF | --commit SHA] [--format text|json|sarif]
[--fail-on error|warning|never] [-o FILE] [--cwd DIR] [provider flags]``

Exit status: 0 no finding at or above ``--fail-on``, 1 one exists, 2 an error (bad usage or
configuration, not a git repository, an unknown ref, the model request failed — what was
found before the failure is still written).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..runtime.provider_args import add_provider_arguments

if TYPE_CHECKING:
    from ..codereview import ReviewReport, ReviewTarget
    from ..runtime import RunConfig

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pi-lsp review",
        description="Review a git diff with the model; findings as text, JSON lines or SARIF.",
    )
    target = p.add_mutually_exclusive_group()
    target.add_argument(
        "--base", metavar="REF", help="review HEAD against its merge base with REF (a branch)"
    )
    target.add_argument("--commit", metavar="SHA", help="review one commit against its parent")
    p.add_argument(
        "--format", choices=("text", "json", "sarif"), default="text", help="(default: text)"
    )
    p.add_argument(
        "--fail-on",
        choices=("error", "warning", "never"),
        default="error",
        help="exit 1 when a finding of this severity or worse exists (default: error)",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write the report here (default: stdout)")
    p.add_argument("--cwd", default=".", help="the repository (default: the current directory)")
    add_provider_arguments(p)
    trust = p.add_mutually_exclusive_group()
    trust.add_argument(
        "--approve",
        action="store_true",
        help="trust the project's own .pi files (a project 'review' prompt template)",
    )
    trust.add_argument(
        "--no-approve", action="store_true", help="do not load the project's own .pi files"
    )
    return p


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    logging.basicConfig(level=logging.WARNING, format="pi-lsp: %(levelname)s: %(message)s")
    from ..codereview import ReviewError, ReviewTarget, at_or_above
    from ..codereview.formats import counts, render
    from ..runtime import ConfigError, ResourceOptions, RunConfig, check_config
    from ..runtime.event_loop import run as run_event_loop
    from ..runtime.provider_args import provider_fields
    from .run import usage_text

    cwd = Path(args.cwd).expanduser().resolve()
    if not cwd.is_dir():
        return _fail(f"--cwd {args.cwd}: not a directory")
    trust = "always" if args.approve else "never" if args.no_approve else "ask"
    config = RunConfig(**provider_fields(args), resources=ResourceOptions(trust=trust))
    try:
        check_config(config, need_key=True)
    except ConfigError as exc:
        return _fail(usage_text(exc))
    if args.base:
        target = ReviewTarget("base", args.base)
    elif args.commit:
        target = ReviewTarget("commit", args.commit)
    else:
        target = ReviewTarget()
    try:
        report = run_event_loop(_review(config, cwd, target))
    except ReviewError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return 130
    out = render(report, args.format)
    if args.output:
        try:
            Path(args.output).write_text(out, encoding="utf-8")
        except OSError as exc:
            return _fail(f"-o {args.output}: {exc.strerror or exc}")
        print(
            f"pi-lsp review: {counts(report.findings)}; written to {args.output}", file=sys.stderr
        )
    else:
        sys.stdout.write(out)
        sys.stdout.flush()
    if report.error is not None:
        print(f"pi-lsp review: the review is incomplete: {report.error}", file=sys.stderr)
        return EXIT_ERROR
    if args.fail_on != "never" and at_or_above(report.findings, args.fail_on):
        return EXIT_FINDINGS
    return EXIT_OK


def _fail(message: str) -> int:
    print(f"pi-lsp review: {message}", file=sys.stderr)
    return EXIT_ERROR


async def _review(config: RunConfig, cwd: Path, target: ReviewTarget) -> ReviewReport:
    from ..codereview import run_review

    return await run_review(config, cwd, target)
