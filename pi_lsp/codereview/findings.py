"""A review's findings: the model's ``report_finding`` calls, checked, numbered and
deduplicated by (path, range, title)."""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Severity = Literal["error", "warning", "info"]
SEVERITY_RANK: dict[str, int] = {"info": 0, "warning": 1, "error": 2}


class Finding(BaseModel):
    """One finding, as every front end shows it (camelCase on the wire)."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    id: str
    path: str
    """Relative to the repository root, ``/``-separated."""
    line: int = Field(ge=1)
    """1-based first line (in the new version of the file)."""
    end_line: int = Field(ge=1, alias="endLine")
    severity: Severity
    title: str
    body: str = ""
    suggestion: str | None = None

    def wire(self) -> dict[str, object]:
        return self.model_dump(by_alias=True, exclude_none=True)


def finding_id(path: str, line: int, end_line: int, title: str) -> str:
    """Stable over re-runs: the same finding gets the same id."""
    key = f"{path}\0{line}\0{end_line}\0{title.strip().lower()}"
    return "f-" + hashlib.sha1(key.encode()).hexdigest()[:12]


class FindingSet:
    """The findings of one review, in report order, without duplicates."""

    def __init__(self) -> None:
        self._items: dict[tuple[str, int, int, str], Finding] = {}

    def add(self, finding: Finding) -> bool:
        """Keep ``finding`` unless the same (path, range, title) is known: whether it was new."""
        key = (finding.path, finding.line, finding.end_line, finding.title.strip().lower())
        if key in self._items:
            return False
        self._items[key] = finding
        return True

    def extend(self, findings: list[Finding]) -> None:
        for finding in findings:
            self.add(finding)

    def __len__(self) -> int:
        return len(self._items)

    @property
    def items(self) -> list[Finding]:
        return list(self._items.values())


def at_or_above(findings: list[Finding], level: Severity) -> bool:
    """Whether a finding of ``level`` or worse exists (``--fail-on``)."""
    rank = SEVERITY_RANK[level]
    return any(SEVERITY_RANK[f.severity] >= rank for f in findings)
