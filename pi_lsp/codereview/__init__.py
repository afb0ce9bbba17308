"""Code review (docs/review.md): a read-only agent run over a diff whose findings every front
end shows — diagnostics and code actions in an editor (``lsp/``), a message with locations
and a plan in an ACP client (``acp/``), text / JSON lines / SARIF on the command line
(``cli/``).

- ``diff.py``: the target (working tree, merge base, commit) → the files to review and the
  files skipped;
- ``tool.py``: ``report_finding``, validated against the diff;
- ``prompt.py``: the built-in instructions, or the ``review`` prompt template;
- ``run.py``: ``run_review`` → ``ReviewReport``;
- ``findings.py``: ``Finding``, deduplication, ``--fail-on``;
- ``sarif.py``: the report as SARIF 2.1.0.

A runtime-level package: it imports the runtime and the layers below, never a front end.
"""

from __future__ import annotations

from .diff import (
    ReviewDiff,
    ReviewError,
    ReviewTarget,
    SkippedFile,
    collect_diff,
    parse_review_command,
)
from .findings import Finding, FindingSet, Severity, at_or_above
from .run import EMPTY_DIFF, ReviewReport, run_review

__all__ = [
    "EMPTY_DIFF",
    "Finding",
    "FindingSet",
    "ReviewDiff",
    "ReviewError",
    "ReviewReport",
    "ReviewTarget",
    "Severity",
    "SkippedFile",
    "at_or_above",
    "collect_diff",
    "parse_review_command",
    "run_review",
]
