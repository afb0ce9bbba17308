"""``report_finding``: how the model reports one finding of a review.

Validated like any tool call: a path that is not one of the diff's reviewed files, or a line
past the end of the file, is returned to the model as a tool error naming what to correct.
The tool changes nothing (``read_only``), so the review's read-only tool list keeps it.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from ..agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from ..ai import AbortSignal
from ..tools.common import ToolError, ToolParams, text_result
from .diff import ReviewDiff
from .findings import Finding, FindingSet, Severity, finding_id


class ReportFindingParams(ToolParams):
    path: str = Field(description="The file, relative to the repository root, as in the diff")
    line: int = Field(description="First line of the problem (1-based, in the new version)")
    end_line: int | SkipJsonSchema[None] = Field(
        default=None, alias="endLine", description="Last line (default: line)"
    )
    severity: Severity = Field(
        description="error: a bug or security hole; warning: likely wrong or risky; info: minor"
    )
    title: str = Field(min_length=1, description="One line: what is wrong")
    body: str = Field(default="", description="Why it is wrong and what it breaks")
    suggestion: str | SkipJsonSchema[None] = Field(
        default=None, description="How to fix it (a sentence or the replacement code)"
    )


def normalise_path(path: str) -> str:
    path = path.strip().replace("\\", "/")
    for prefix in ("./", "a/", "b/"):
        if path.startswith(prefix):
            path = path[len(prefix) :]
    return path


class ReportFindingTool(AgentTool[ReportFindingParams]):
    name: ClassVar[str] = "report_finding"
    label: ClassVar[str] = "report finding"
    description: ClassVar[str] = (
        "Report ONE review finding on the diff under review: a file of the diff, the line "
        "(1-based, in the new version of the file) and optionally endLine, a severity "
        "(error | warning | info), a one-line title, a body explaining it, and optionally a "
        "suggestion. Call it once per finding; do not write findings as plain text."
    )
    parameters: ClassVar[type[ReportFindingParams]] = ReportFindingParams
    read_only: ClassVar[bool] = True
    prompt_snippet: ClassVar[str] = "Report one code review finding"

    def __init__(self, diff: ReviewDiff, findings: FindingSet, files: set[str] | None = None):
        self.diff = diff
        self.findings = findings
        self.files = files
        """The files this call reviews (a per-file split); ``None``: all of the diff's."""

    async def execute(
        self,
        tool_call_id: str,
        params: ReportFindingParams,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        finding = self.check(params)
        new = self.findings.add(finding)
        note = "Recorded" if new else "Already reported"
        return text_result(f"{note}: {finding.path}:{finding.line} {finding.title}", details=None)

    def check(self, params: ReportFindingParams) -> Finding:
        """The finding, or ``ToolError`` saying what to correct."""
        path = normalise_path(params.path)
        allowed = (
            sorted(self.files) if self.files is not None else [f.path for f in self.diff.files]
        )
        change = self.diff.file(path)
        if change is None or path not in allowed:
            raise ToolError(
                f"{params.path} is not a file of the diff under review; report findings only "
                f"on: {', '.join(allowed)}"
            )
        end = params.end_line if params.end_line is not None else params.line
        if params.line < 1 or params.line > change.lines:
            raise ToolError(
                f"line {params.line} is outside {path}, which has {change.lines} lines: give a "
                "line of the new version of the file (1-based)"
            )
        if end < params.line or end > change.lines:
            raise ToolError(
                f"endLine {end} must be between line {params.line} and {change.lines} (the "
                f"last line of {path})"
            )
        title = " ".join(params.title.split())
        return Finding(
            id=finding_id(path, params.line, end, title),
            path=path,
            line=params.line,
            end_line=end,
            severity=params.severity,
            title=title,
            body=params.body.strip(),
            suggestion=(params.suggestion or "").strip() or None,
        )
