"""``pi/codeReview`` and ``pi/dismissFinding`` (docs/review.md#in-an-editor), and ``/review``
typed as a prompt: a code review of the workspace's git diff (``codereview.run_review``),
its findings published as diagnostics through the ``FindingsBook``. One review at a time;
a new one replaces the previous one's findings."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types
from pygls.uris import from_fs_path

from ...codereview import Finding, ReviewError, ReviewReport, ReviewTarget, run_review
from ...codereview import parse_review_command as parse_target
from ...codereview.formats import counts
from ...runtime import ConfigError, RunConfig, check_config
from ..bridge import ClientBridge
from ..editor.findings_book import FindingsBook
from ..host.agent_setup import run_config, setup_error
from ..protocol.contract import (
    CodeReviewFinding,
    CodeReviewParams,
    CodeReviewResult,
    CodeReviewSkipped,
    CodeReviewTarget,
    DismissFindingParams,
    DismissFindingResult,
)
from ..settings import Settings
from .errors import InvalidRequest, RequestFailed

log = logging.getLogger(__name__)
OpenText = Callable[[str], "tuple[str, int | None] | None"]


def parse_review_command(text: str) -> ReviewTarget | None:
    """``/review [--base REF | --commit SHA]`` → its target (``None``: not ``/review``);
    ``InvalidRequest`` for other arguments."""
    try:
        return parse_target(text)
    except ValueError as exc:
        raise InvalidRequest(str(exc)) from None


class CodeReviewApi:
    def __init__(
        self,
        book: FindingsBook,
        root: Path,
        settings: Callable[[], Settings],
        bridge: ClientBridge,
        open_text: OpenText,
    ) -> None:
        self.book = book
        self.root = root
        self.settings = settings
        self.bridge = bridge
        self.open_text = open_text
        self.running: asyncio.Task[ReviewReport] | None = None
        self.background: set[asyncio.Task[None]] = set()

    async def code_review(self, p: CodeReviewParams) -> CodeReviewResult:
        t = p.target or CodeReviewTarget()
        if t.kind != "worktree" and not t.ref:
            raise InvalidRequest(f"a {t.kind} review needs target.ref")
        report = await self.review(ReviewTarget(t.kind, t.ref))
        return self.result(report)

    def start(self, target: ReviewTarget) -> None:
        """``/review`` typed as a prompt: the review runs in the background and says what it
        found in a message when it is over (the findings are diagnostics)."""
        self._config()  # a setting to fix is the prompt's error, at once
        if self.running is not None and not self.running.done():
            raise RequestFailed("a code review is already running")
        task = asyncio.get_running_loop().create_task(self._announce(target))
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def _announce(self, target: ReviewTarget) -> None:
        try:
            report = await self.review(target)
        except Exception as exc:
            self.bridge.show_message(types.MessageType.Error, f"pi review: {exc}")
            return
        self.bridge.show_message(
            types.MessageType.Warning if report.error else types.MessageType.Info,
            "pi review: " + self.describe(report),
        )

    @staticmethod
    def describe(report: ReviewReport) -> str:
        if not report.model_calls:
            return " ".join(report.notes)
        parts = [f"{counts(report.findings)} in {len(report.reviewed)} files (Problems panel)"]
        if report.skipped:
            parts.append("skipped: " + ", ".join(f"{s.path} ({s.reason})" for s in report.skipped))
        parts.extend(n for n in report.notes)
        if report.error:
            parts.append(f"incomplete: {report.error}")
        return "; ".join(parts)

    def _config(self) -> RunConfig:
        config = run_config(self.settings())
        try:
            check_config(config, need_key=True)
        except ConfigError as exc:
            raise setup_error(exc) from None
        return config

    async def review(self, target: ReviewTarget) -> ReviewReport:
        if self.running is not None and not self.running.done():
            raise RequestFailed("a code review is already running")
        config = self._config()
        task = asyncio.get_running_loop().create_task(run_review(config, self.root, target))
        self.running = task
        try:
            report = await task
        except ReviewError as exc:
            raise RequestFailed(f"pi review: {exc}") from None
        finally:
            self.running = None
        self.publish(report)
        return report

    def uri(self, path: str) -> str:
        full = self.root / path
        return unquote(from_fs_path(str(full)) or full.as_uri())

    def publish(self, report: ReviewReport) -> None:
        found: dict[str, tuple[str, int | None, list[Finding]]] = {}
        for finding in report.findings:
            uri = self.uri(finding.path)
            if uri not in found:
                text_version = self.open_text(uri)
                if text_version is None:
                    try:
                        text_version = ((self.root / finding.path).read_text("utf-8"), None)
                    except (OSError, UnicodeDecodeError):
                        continue
                found[uri] = (*text_version, [])
            found[uri][2].append(finding)
        self.book.replace(found)

    def result(self, report: ReviewReport) -> CodeReviewResult:
        return CodeReviewResult(
            target=CodeReviewTarget(kind=report.target.kind, ref=report.target.ref),
            findings=[
                CodeReviewFinding(
                    id=f.id,
                    path=f.path,
                    uri=self.uri(f.path),
                    line=f.line,
                    end_line=f.end_line,
                    severity=f.severity,
                    title=f.title,
                    body=f.body,
                    suggestion=f.suggestion,
                )
                for f in report.findings
            ],
            reviewed=report.reviewed,
            skipped=[CodeReviewSkipped(path=s.path, reason=s.reason) for s in report.skipped],
            notes=report.notes,
            summary=report.summary,
            error=report.error,
        )

    async def dismiss_finding(self, p: DismissFindingParams) -> DismissFindingResult:
        return DismissFindingResult(dismissed=self.book.dismiss(unquote(p.uri), p.finding_id))
