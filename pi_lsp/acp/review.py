"""``/review`` in an ACP client (docs/review.md#in-an-acp-client): a code review of the
session's working directory (``codereview.run_review``), answered as one message listing
the findings, one completed tool call per finding whose ``locations`` let the client jump to
it, and a ``plan`` with an entry per finding the user can act on with a follow-up prompt
("fix 1", "fix the division")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp.schema import (
    AgentPlanUpdate,
    PlanEntry,
    ToolCallLocation,
    ToolCallStart,
)

from ..codereview import Finding, ReviewReport
from ..codereview.formats import counts
from .updates import SessionUpdate, agent_text, text_block

PRIORITY: dict[str, Any] = {"error": "high", "warning": "medium", "info": "low"}


def _where(f: Finding) -> str:
    return f"{f.path}:{f.line}" + (f"-{f.end_line}" if f.end_line != f.line else "")


def report_text(report: ReviewReport) -> str:
    if not report.model_calls:
        return " ".join(report.notes)
    lines = [f"**Code review** of {report.target.describe()}: {counts(report.findings)}."]
    for n, f in enumerate(report.findings, 1):
        lines.append(f"{n}. **{f.severity}** `{_where(f)}` {f.title}")
        if f.body:
            lines.append(f"   {f.body}")
        if f.suggestion:
            lines.append(f"   Suggestion: {f.suggestion}")
    if report.skipped:
        lines.append("Skipped: " + ", ".join(f"{s.path} ({s.reason})" for s in report.skipped))
    lines.extend(report.notes)
    if report.error:
        lines.append(f"The review is incomplete: {report.error}")
    if report.findings:
        lines.append("Ask me to fix any of them (e.g. “fix 1”).")
    return "\n".join(lines) + "\n"


def review_updates(
    report: ReviewReport, cwd: Path, call_prefix: str
) -> list[SessionUpdate | AgentPlanUpdate]:
    """The answer to ``/review``: the message, a tool call per finding, the plan."""
    out: list[SessionUpdate | AgentPlanUpdate] = [agent_text(report_text(report))]
    for n, f in enumerate(report.findings, 1):
        out.append(
            ToolCallStart(
                session_update="tool_call",
                tool_call_id=f"{call_prefix}-{n}",
                title=f"{f.severity}: {_where(f)} {f.title}",
                kind="read",
                status="completed",
                locations=[ToolCallLocation(path=str(cwd / f.path), line=f.line)],
                content=[{"type": "content", "content": text_block(f.body or f.title)}],
                raw_input=f.wire(),
            )
        )
    if report.findings:
        out.append(
            AgentPlanUpdate(
                session_update="plan",
                entries=[
                    PlanEntry(
                        content=f"{n}. Fix {_where(f)}: {f.title}",
                        priority=PRIORITY[f.severity],
                        status="pending",
                    )
                    for n, f in enumerate(report.findings, 1)
                ],
            )
        )
    return out
