"""One review run: the diff of a target, read-only agent sessions, the findings.

``run_review(config, cwd, target)``:

1. reads the diff (``diff.collect_diff``); binary, generated and deleted files are skipped
   and listed; an empty diff ends here, said so, without a model call;
2. when the diff is over the context budget (half the model's window), splits it per file:
   each file is reviewed in its own call (a file over the budget on its own is skipped and
   listed), findings merged, the user told;
3. each call is a fresh session (``runtime.create_agent_session``, no file) whose tools are
   plan mode's read-only list (``tools.plan_mode.plan_mode_tools``: no write/edit, read-only
   ``bash`` only) plus ``report_finding``; the prompt is the built-in one or the ``review``
   template (``prompt.py``); its ``bash`` goes through the one permission path
   (``runtime.permissions.read_only_run_rules``): ``permissions.bash: deny`` blocks it;
4. a model that reported nothing through the tool but wrote findings as text gets one
   correction turn;
5. findings are deduplicated by (path, range, title) and sorted by file and line.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..ai import AssistantMessage
from ..ai.types import text_of
from ..runtime.config import RunConfig
from ..runtime.permissions import read_only_run_rules
from ..runtime.session_factory import ConfiguredSession, SessionOptions, create_agent_session
from ..sessions.events import SessionEvent
from ..tools.disk_workspace import DiskWorkspace
from ..tools.plan_mode import plan_mode_tools
from ..tools.workspace import Workspace
from .diff import FileChange, ReviewDiff, ReviewTarget, SkippedFile, collect_diff
from .findings import Finding, FindingSet
from .prompt import CORRECTION, review_prompt
from .tool import ReportFindingTool

BUDGET_SHARE = 0.5
"""The share of the model's context window one review call's diff may take."""
REVIEW_EXCLUDED_TOOLS = frozenset({"todo", "ask"})
EMPTY_DIFF = "Nothing to review: the diff is empty."
_NO_FINDINGS = re.compile(r"\bno (findings|issues|problems)\b", re.IGNORECASE)
_LISTED = re.compile(r"(?m)^\s*(?:[-*•]|\d+[.)])\s+\S")

Listener = Callable[[SessionEvent], Any]


@dataclass(slots=True)
class ReviewReport:
    """What a review found, and what it did not look at."""

    target: ReviewTarget
    findings: list[Finding] = field(default_factory=list)
    reviewed: list[str] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the user is told besides the findings (empty diff, the split per file, a
    correction turn)."""
    model_calls: int = 0
    """Review calls made (0: the diff was empty)."""
    summary: str = ""
    """The model's closing words."""
    error: str | None = None
    """The model request failed: the review is incomplete."""

    def wire(self) -> dict[str, Any]:
        return {
            "target": self.target.wire(),
            "findings": [f.wire() for f in self.findings],
            "reviewed": list(self.reviewed),
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped],
            "notes": list(self.notes),
            "summary": self.summary,
            "error": self.error,
        }


def estimate_tokens(text: str) -> int:
    return len(text) // 4 + 1


def looks_like_findings(text: str, files: Sequence[FileChange]) -> bool:
    """Whether a reply with no ``report_finding`` call lists findings as text."""
    if not text.strip() or _NO_FINDINGS.search(text):
        return False
    names = {f.path for f in files} | {f.path.rsplit("/", 1)[-1] for f in files}
    mentions_file = any(name in text for name in names)
    return mentions_file or len(_LISTED.findall(text)) >= 2


def plan_batches(
    diff: ReviewDiff, budget_tokens: int
) -> tuple[list[list[FileChange]], list[SkippedFile]]:
    """One batch with every file when the diff fits the budget, else one per file (a file
    over the budget alone is skipped)."""
    if estimate_tokens(diff.text) <= budget_tokens:
        return [list(diff.files)], []
    batches: list[list[FileChange]] = []
    skipped: list[SkippedFile] = []
    for change in diff.files:
        if estimate_tokens(change.patch) > budget_tokens:
            skipped.append(SkippedFile(change.path, "too large for the model's context"))
        else:
            batches.append([change])
    return batches, skipped


async def run_review(
    config: RunConfig,
    cwd: Path,
    target: ReviewTarget | None = None,
    *,
    workspace: Workspace | None = None,
    options: SessionOptions | None = None,
    listener: Listener | None = None,
    diff: ReviewDiff | None = None,
) -> ReviewReport:
    """Review ``target`` in the repository at ``cwd`` (see the module docstring).
    ``ReviewError`` when git cannot give the diff; a model failure is the report's ``error``."""
    if diff is None:  # git runs off the event loop (the language server keeps serving)
        diff = await asyncio.to_thread(collect_diff, cwd, target)
    report = ReviewReport(diff.target, skipped=list(diff.skipped))
    if not diff.files:
        report.notes.append(EMPTY_DIFF)
        return report
    workspace = workspace or DiskWorkspace([cwd])
    config = config.model_copy(update={"default_mode": "act"})  # the tool list is set below
    findings = FindingSet()
    first = _session(config, workspace, options)
    try:
        window = config.context_window or first.model.context_window
        batches, too_big = plan_batches(diff, int(window * BUDGET_SHARE))
        report.skipped.extend(too_big)
        if len(batches) > 1:
            report.notes.append(
                f"The diff is larger than the model's context budget: each of its "
                f"{len(batches)} files was reviewed in its own call and the findings merged."
            )
        for index, files in enumerate(batches):
            session = first if index == 0 else _session(config, workspace, options)
            try:
                await _review_batch(session, diff, files, findings, report, listener)
            finally:
                if session is not first:
                    await _close(session)
            report.reviewed.extend(f.path for f in files)
            if report.error is not None:
                break
    finally:
        await _close(first)
    report.findings = sorted(findings.items, key=lambda f: (f.path, f.line, f.end_line))
    return report


def _session(
    config: RunConfig, workspace: Workspace, options: SessionOptions | None
) -> ConfiguredSession:
    options = options or SessionOptions()
    rules = read_only_run_rules(lambda: config.permissions.bash)
    permissions = (rules.before_tool_call, *options.permissions)
    return create_agent_session(
        config, workspace, options=replace(options, permissions=permissions)
    )


async def _close(session: ConfiguredSession) -> None:
    session.abort()
    await session.wait_for_idle()
    session.kill_processes()
    await session.aclose()
    session.close()


async def _review_batch(
    session: ConfiguredSession,
    diff: ReviewDiff,
    files: list[FileChange],
    findings: FindingSet,
    report: ReviewReport,
    listener: Listener | None,
) -> None:
    tool = ReportFindingTool(diff, findings, {f.path for f in files})
    kept = [t for t in plan_mode_tools(session.tools) if t.name not in REVIEW_EXCLUDED_TOOLS]
    session.set_tools([*kept, tool])
    if listener is not None:
        session.subscribe(listener)
    before = len(findings)
    reply = await _ask(session, review_prompt(session.resources, diff, files), report)
    if reply is None:
        return
    if len(findings) == before and looks_like_findings(reply, files):
        report.notes.append(
            "The model wrote findings as text instead of reporting them: it was asked once "
            "to report them through the tool."
        )
        reply = await _ask(session, CORRECTION, report)
        if reply is None:
            return
    if reply.strip():
        report.summary = (report.summary + "\n" + reply.strip()).strip()


async def _ask(session: ConfiguredSession, text: str, report: ReviewReport) -> str | None:
    """One prompt to the end of its run; the last assistant text (``None``: it failed)."""
    report.model_calls += 1
    await session.prompt(text, expand=False)
    await session.wait_for_idle()
    last = next((m for m in reversed(session.messages) if isinstance(m, AssistantMessage)), None)
    if last is None:
        report.error = "the model gave no answer"
        return None
    if last.stop_reason in ("error", "aborted"):
        report.error = last.error_message or f"the model request ended: {last.stop_reason}"
        return None
    return text_of(last.content)
