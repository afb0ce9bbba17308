"""A code review's findings as the editor's diagnostics (docs/review.md#in-an-editor).

Each finding is a diagnostic with ``source: "pi review"``, the title as its message, the body
(and the suggestion) in ``relatedInformation`` and ``data: {findingId, …}``. Findings are
anchored to their lines (``codereview.anchors``): an edit above moves them, an edit inside
clears them (their code changed), a new review replaces them all. A dismissed finding stays
away for that version of the file's text (the same finding on other text comes back).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from ...codereview import Finding
from ...codereview.anchors import Anchor, anchor_lines, line_range, move
from ..protocol.positions import Encoding, TextIndex

SOURCE = "pi review"
SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}
Publish = Callable[[str, list[types.Diagnostic], int | None], None]


@dataclass(slots=True)
class _Placed:
    finding: Finding
    anchor: Anchor


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


class FindingsBook:
    def __init__(self, publish: Publish, encoding: Callable[[], Encoding]) -> None:
        self._publish = publish
        self._encoding = encoding
        self._placed: dict[str, list[_Placed]] = {}
        self._text: dict[str, str] = {}
        self._version: dict[str, int | None] = {}
        self._dismissed: set[tuple[str, str]] = set()
        """``(finding id, digest of the file's text)``."""

    # ------------------------------------------------------------------ queries

    def holds(self, uri: str) -> bool:
        return uri in self._placed

    def findings(self, uri: str | None = None) -> list[tuple[str, Finding]]:
        uris = [uri] if uri is not None else sorted(self._placed)
        return [(u, p.finding) for u in uris for p in self._placed.get(u, ())]

    def get(self, uri: str, finding_id: str) -> tuple[Finding, tuple[int, int]] | None:
        """The finding and its 0-based first and last line now."""
        for placed in self._placed.get(uri, ()):
            if placed.finding.id == finding_id:
                return placed.finding, line_range(self._text[uri], placed.anchor)
        return None

    # ------------------------------------------------------------------ changes

    def replace(self, found: dict[str, tuple[str, int | None, list[Finding]]]) -> None:
        """A new review's findings, per uri: ``(text now, version or None, findings)``; every
        finding of the previous review is cleared."""
        old = set(self._placed)
        self._placed.clear()
        for uri, (text, version, findings) in found.items():
            digest = _digest(text)
            placed = []
            for finding in findings:
                if (finding.id, digest) in self._dismissed:
                    continue
                anchor = anchor_lines(text, finding.line, finding.end_line)
                if anchor is not None:
                    placed.append(_Placed(finding, anchor))
            if placed:
                self._placed[uri] = placed
                self._text[uri] = text
                self._version[uri] = version
        for uri in old | set(self._placed):
            self._send(uri)
        for uri in old - set(self._placed):
            self._text.pop(uri, None)
            self._version.pop(uri, None)

    def observe(self, uri: str, text: str, version: int | None) -> None:
        """The document's text now (a didChange): findings move, or clear where it changed."""
        placed = self._placed.get(uri)
        before = self._text.get(uri)
        if placed is None or before is None or before == text:
            return
        kept = []
        for p in placed:
            moved = move(p.anchor, before, text)
            if moved is not None:
                kept.append(_Placed(p.finding, moved))
        self._text[uri] = text
        self._version[uri] = version
        if kept:
            self._placed[uri] = kept
        else:
            del self._placed[uri]
        self._send(uri)
        if not kept:
            self._text.pop(uri, None)

    def dismiss(self, uri: str, finding_id: str) -> bool:
        placed = self._placed.get(uri, [])
        hit = next((p for p in placed if p.finding.id == finding_id), None)
        if hit is None:
            return False
        self._dismissed.add((finding_id, _digest(self._text[uri])))
        placed.remove(hit)
        if not placed:
            del self._placed[uri]
        self._send(uri)
        return True

    # ------------------------------------------------------------------ wire

    def _send(self, uri: str) -> None:
        self._publish(uri, self.diagnostics(uri), self._version.get(uri))

    def diagnostics(self, uri: str) -> list[types.Diagnostic]:
        placed = self._placed.get(uri, ())
        if not placed:
            return []
        text = self._text[uri]
        index = TextIndex(text, self._encoding())
        return [self._diagnostic(uri, text, index, p) for p in placed]

    def _diagnostic(self, uri: str, text: str, index: TextIndex, p: _Placed) -> types.Diagnostic:
        first, last = line_range(text, p.anchor)
        line_text = text[index.starts[first] : index.line_end(first)]
        indent = len(line_text) - len(line_text.lstrip())
        start = index.position(index.starts[first] + indent)
        end = index.position(index.line_end(last))
        rng = types.Range(types.Position(*start), types.Position(*end))
        f = p.finding
        related = []
        if f.body:
            related.append(types.DiagnosticRelatedInformation(types.Location(uri, rng), f.body))
        if f.suggestion:
            related.append(
                types.DiagnosticRelatedInformation(
                    types.Location(uri, rng), f"Suggestion: {f.suggestion}"
                )
            )
        data: dict[str, Any] = {"findingId": f.id, "title": f.title, "body": f.body}
        if f.suggestion:
            data["suggestion"] = f.suggestion
        return types.Diagnostic(
            range=rng,
            message=f.title,
            severity=SEVERITY[f.severity],
            source=SOURCE,
            code=f.severity,
            related_information=related or None,
            data=data,
        )
