"""A review report as text for people, JSON lines for programs, or SARIF 2.1.0 for
code-scanning UIs (GitHub's, GitLab's): ``render(report, fmt)``."""

from __future__ import annotations

import json
from typing import Any, Literal

from .. import __version__
from .findings import Finding
from .run import ReviewReport

Format = Literal["text", "json", "sarif"]
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
RULE_ID = "pi-review"


def render(report: ReviewReport, fmt: Format) -> str:
    if fmt == "json":
        return json_lines(report)
    if fmt == "sarif":
        return json.dumps(sarif(report), indent=2, ensure_ascii=False) + "\n"
    return text(report)


def counts(findings: list[Finding]) -> str:
    if not findings:
        return "no findings"
    parts = []
    for severity in ("error", "warning", "info"):
        n = sum(1 for f in findings if f.severity == severity)
        if n:
            parts.append(f"{n} {severity}{'s' if n > 1 and severity != 'info' else ''}")
    total = len(findings)
    return f"{total} finding{'s' if total > 1 else ''} ({', '.join(parts)})"


def text(report: ReviewReport) -> str:
    lines: list[str] = []
    for f in report.findings:
        where = f"{f.path}:{f.line}" + (f"-{f.end_line}" if f.end_line != f.line else "")
        lines.append(f"{where}: {f.severity}: {f.title}")
        lines.extend(f"    {line}" for line in f.body.splitlines())
        if f.suggestion:
            lines.append("    suggestion:")
            lines.extend(f"      {line}" for line in f.suggestion.splitlines())
    lines.extend(report.notes)
    if report.skipped:
        skipped = ", ".join(f"{s.path} ({s.reason})" for s in report.skipped)
        lines.append(f"skipped: {skipped}")
    if report.error:
        lines.append(f"error: the review is incomplete: {report.error}")
    if report.model_calls:
        lines.append(f"{counts(report.findings)} in {len(report.reviewed)} reviewed files")
    return "\n".join(lines) + "\n"


def json_lines(report: ReviewReport) -> str:
    """One ``{"type": "finding", …}`` line per finding, then ``{"type": "summary", …}``."""
    out = [json.dumps({"type": "finding", **f.wire()}, ensure_ascii=False) for f in report.findings]
    summary = report.wire()
    summary.pop("findings")
    out.append(json.dumps({"type": "summary", **summary}, ensure_ascii=False))
    return "\n".join(out) + "\n"


def _result(f: Finding) -> dict[str, Any]:
    message = f.title if not f.body else f"{f.title}\n\n{f.body}"
    result: dict[str, Any] = {
        "ruleId": RULE_ID,
        "level": SARIF_LEVEL[f.severity],
        "message": {"text": message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": f.path, "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": f.line, "endLine": f.end_line},
                }
            }
        ],
        "partialFingerprints": {"piFindingId/v1": f.id},
        "properties": {"title": f.title, "severity": f.severity},
    }
    if f.suggestion:
        result["properties"]["suggestion"] = f.suggestion
    return result


def sarif(report: ReviewReport) -> dict[str, Any]:
    """The report as one SARIF 2.1.0 run (the schema's own test: tests/cli/test_review_cli.py)."""
    notifications = [
        {
            "level": "note",
            "message": {"text": f"skipped {s.path}: {s.reason}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": s.path, "uriBaseId": "%SRCROOT%"}
                    }
                }
            ],
        }
        for s in report.skipped
    ]
    notifications += [{"level": "note", "message": {"text": n}} for n in report.notes]
    if report.error:
        notifications.append({"level": "error", "message": {"text": report.error}})
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "pi-lsp review",
                        "version": __version__,
                        "rules": [
                            {
                                "id": RULE_ID,
                                "name": "AgentReview",
                                "shortDescription": {"text": "A finding of pi's code review"},
                                "fullDescription": {
                                    "text": "Reported by the model reviewing the diff "
                                    "(docs/review.md of pi-lsp)"
                                },
                            }
                        ],
                    }
                },
                "automationDetails": {"id": f"pi-lsp-review/{report.target.kind}/"},
                "invocations": [
                    {
                        "executionSuccessful": report.error is None,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "results": [_result(f) for f in report.findings],
            }
        ],
    }
