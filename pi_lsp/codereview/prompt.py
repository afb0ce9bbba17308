"""The review's instructions: built in, or the project's / user's ``review`` prompt template
(docs/context.md) in their place. The template gets the target's description as ``$1`` /
``$ARGUMENTS``; the diff always follows the instructions."""

from __future__ import annotations

from ..resources import Resources, substitute_args
from .diff import FileChange, ReviewDiff

TEMPLATE_NAME = "review"

BUILTIN_PROMPT = """\
Review $ARGUMENTS as a careful senior engineer would review a pull request.

Look for real problems introduced or exposed by this diff: bugs, wrong logic, unhandled \
errors or edge cases, security holes (injection, secrets, unsafe input), data loss, race \
conditions, resource leaks, and misleading names or comments. Ignore style nits a formatter \
or linter would fix, and do not praise.

You may read files and run read-only commands (git log/show/blame, grep) to understand the \
context; you cannot change anything.

Report EACH finding by calling the report_finding tool once, with the file path as shown in \
the diff, the line in the NEW version of the file (1-based), a severity (error: a bug or a \
security hole; warning: likely wrong or risky; info: minor), a one-line title, a body that \
explains why, and a suggestion when the fix is clear. Do not list findings in your reply. \
When you are done, reply with one short sentence summing up the review (or "No findings." \
when there are none)."""

CORRECTION = (
    "You wrote your findings as text, but a review's findings count only when reported "
    "through the report_finding tool. Call report_finding once for each finding you wrote "
    "(path, line, severity, title, body). If there are none, reply exactly: No findings."
)


def instructions(resources: Resources | None, diff: ReviewDiff) -> str:
    template = None
    if resources is not None:
        template = next((t for t in resources.templates if t.name == TEMPLATE_NAME), None)
    text = template.content if template is not None else BUILTIN_PROMPT
    return substitute_args(text, [diff.target.describe()])


def review_prompt(resources: Resources | None, diff: ReviewDiff, files: list[FileChange]) -> str:
    """The user message of one review call: the instructions, then the diff of ``files``."""
    patch = "".join(f.patch for f in files)
    names = ", ".join(f.path for f in files)
    return (
        f"{instructions(resources, diff)}\n\nFiles under review: {names}\n\n<diff>\n{patch}</diff>"
    )
