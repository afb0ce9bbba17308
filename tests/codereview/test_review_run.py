"""The review run (pi_lsp/codereview): the faux provider reports scripted findings on the
fixture repository with seeded defects (tests/support/review_repo.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.agent.types import MessageStartEvent, ToolExecutionEndEvent
from pi_lsp.ai import UserMessage
from pi_lsp.ai.types import text_of
from pi_lsp.codereview import EMPTY_DIFF, ReviewError, ReviewTarget, collect_diff, run_review
from pi_lsp.codereview.prompt import CORRECTION
from pi_lsp.runtime import PermissionsConfig, RunConfig
from pi_lsp.runtime.permissions import DENIED_BY_SETTING
from tests.support.review_repo import DIV_LINE, EVAL_LINE, OPEN_LINE, commit_all, git
from tests.support.review_repo import make_review_repo as make_repo

pytestmark = pytest.mark.anyio


def finding(path: str, line: int, title: str, severity: str = "error", **kw: Any) -> dict[str, Any]:
    args = {"path": path, "line": line, "severity": severity, "title": title, "body": "b", **kw}
    return {"type": "toolCall", "name": "report_finding", "arguments": args}


def text(t: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": t}]}


def config(tmp: Path, responses: list[dict[str, Any]], **kw: Any) -> RunConfig:
    path = tmp / "script.json"
    path.write_text(json.dumps({"responses": responses}))
    return RunConfig(provider="faux", faux_script=str(path), **kw)


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.setenv("PI_LSP_DATA_DIR", str(tmp_path / "data"))


def test_the_diff_lists_reviewable_files_and_skips_binary_generated_and_deleted(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "repo")
    diff = collect_diff(repo)
    assert [f.path for f in diff.files] == ["calc.py", "util.py"]
    assert {s.path: s.reason for s in diff.skipped} == {
        "logo.png": "binary",
        "old.py": "deleted",
        "package-lock.json": "generated",
    }
    assert diff.file("calc.py").lines == 10  # type: ignore[union-attr]


def test_commit_and_merge_base_targets(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    git(repo, "checkout", "-q", "-b", "feature")
    sha = commit_all(repo)
    (repo / "late.py").write_text("x = 1\n")
    later = commit_all(repo, "later")
    one = collect_diff(repo, ReviewTarget("commit", sha))
    assert [f.path for f in one.files] == ["calc.py", "util.py"]
    branch = collect_diff(repo, ReviewTarget("base", "main"))
    assert [f.path for f in branch.files] == ["calc.py", "late.py", "util.py"]
    assert [f.path for f in collect_diff(repo, ReviewTarget("commit", later)).files] == ["late.py"]
    assert collect_diff(repo).files == []  # the working tree is clean
    with pytest.raises(ReviewError, match="nope"):
        collect_diff(repo, ReviewTarget("commit", "nope"))


async def test_an_empty_diff_says_so_without_a_model_call(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    commit_all(repo)
    report = await run_review(config(tmp_path, []), repo)
    assert report.model_calls == 0
    assert report.notes == [EMPTY_DIFF]
    assert report.findings == []


async def test_findings_are_validated_deduplicated_and_sorted(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    script = [
        {
            "content": [
                finding("util.py", EVAL_LINE, "eval of user input"),
                finding("./calc.py", DIV_LINE, "Division by zero on an empty list"),
                finding("calc.py", DIV_LINE, "division  by zero on an empty list"),  # duplicate
                finding("calc.py", OPEN_LINE, "File never closed", "warning"),
                finding("nope.py", 1, "not in the diff"),
                finding("calc.py", 99, "past the end"),
                finding("logo.png", 1, "a skipped file"),
            ]
        },
        text("Three problems."),
    ]
    errors: list[str] = []

    def listen(event: object) -> None:
        if isinstance(event, ToolExecutionEndEvent) and event.is_error:
            errors.append(text_of(event.result.content))

    report = await run_review(config(tmp_path, script), repo, listener=listen)
    assert report.error is None
    assert [(f.path, f.line, f.severity) for f in report.findings] == [
        ("calc.py", DIV_LINE, "error"),
        ("calc.py", OPEN_LINE, "warning"),
        ("util.py", EVAL_LINE, "error"),
    ]
    assert len({f.id for f in report.findings}) == 3
    assert report.summary == "Three problems."
    assert {s.path for s in report.skipped} == {"logo.png", "old.py", "package-lock.json"}
    assert len(errors) == 3
    assert "nope.py is not a file of the diff" in errors[0]
    assert "line 99 is outside calc.py, which has 10 lines" in errors[1]
    assert "logo.png is not a file of the diff" in errors[2]


async def test_a_model_that_writes_findings_as_text_gets_one_correction(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    script = [
        text("Findings:\n- calc.py line 5: division by zero\n- util.py: eval"),
        {"content": [finding("calc.py", DIV_LINE, "Division by zero")]},
        text("Reported."),
    ]
    prompts: list[str] = []

    def listen(event: object) -> None:
        if isinstance(event, MessageStartEvent) and isinstance(event.message, UserMessage):
            prompts.append(text_of(event.message.content))

    report = await run_review(config(tmp_path, script), repo, listener=listen)
    assert [f.title for f in report.findings] == ["Division by zero"]
    assert prompts[1] == CORRECTION
    assert len(prompts) == 2
    assert report.model_calls == 2
    assert any("as text" in n for n in report.notes)


async def test_only_one_correction_turn(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    script = [text("- calc.py: bad\n- util.py: worse"), text("- calc.py: still bad\n- x")]
    report = await run_review(config(tmp_path, script), repo)
    assert report.model_calls == 2
    assert report.error is None
    assert report.findings == []


async def test_no_findings_needs_no_correction(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    report = await run_review(config(tmp_path, [text("No findings.")]), repo)
    assert report.model_calls == 1
    assert report.findings == []
    assert report.error is None


async def test_a_diff_over_the_budget_is_reviewed_per_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    script = [
        {"content": [finding("calc.py", DIV_LINE, "div"), finding("util.py", EVAL_LINE, "eval")]},
        text("Done."),
    ]
    prompts: list[str] = []

    def listen(event: object) -> None:
        if isinstance(event, MessageStartEvent) and isinstance(event.message, UserMessage):
            prompts.append(text_of(event.message.content))

    diff = collect_diff(repo)
    window = (len(diff.text) // 4) * 2 - 20  # half of it is just under the whole diff
    report = await run_review(
        config(tmp_path, script, context_window=window), repo, listener=listen
    )
    assert report.model_calls == 2
    assert [f.title for f in report.findings] == ["div", "eval"]
    assert "Files under review: calc.py\n" in prompts[0]
    assert "Files under review: util.py\n" in prompts[1]
    assert "+    return eval(expression)" not in prompts[0]
    assert any("reviewed in its own call" in n for n in report.notes)


async def test_a_review_template_replaces_the_built_in_prompt(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    prompts_dir = tmp_path / "agent" / "prompts"
    prompts_dir.mkdir(parents=True)
    (prompts_dir / "review.md").write_text("Check $1 for injection only.\n")
    prompts: list[str] = []

    def listen(event: object) -> None:
        if isinstance(event, MessageStartEvent) and isinstance(event.message, UserMessage):
            prompts.append(text_of(event.message.content))

    await run_review(config(tmp_path, [text("No findings.")]), repo, listener=listen)
    assert prompts[0].startswith("Check the uncommitted changes (working tree against HEAD) for")
    assert "calc.py" in prompts[0]
    assert "<diff>" in prompts[0]


async def test_the_review_session_cannot_write(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    script = [
        {
            "content": [
                {"type": "toolCall", "name": "write", "arguments": {"path": "x", "content": "y"}},
                {"type": "toolCall", "name": "bash", "arguments": {"command": "rm calc.py"}},
            ]
        },
        text("No findings."),
    ]
    errors: list[str] = []

    def listen(event: object) -> None:
        if isinstance(event, ToolExecutionEndEvent) and event.is_error:
            errors.append(event.tool_name)

    await run_review(config(tmp_path, script), repo, listener=listen)
    assert errors == ["write", "bash"]
    assert (repo / "calc.py").exists()
    assert not (repo / "x").exists()


@pytest.mark.parametrize(("mode", "denied"), [("deny", True), ("ask", False), ("allow", False)])
async def test_the_review_bash_honours_bash_deny(tmp_path: Path, mode: str, denied: bool) -> None:
    """``permissions.bash: deny`` blocks the review's read-only bash too (the one permission
    path, ``runtime.permissions``); in the other modes a read-only command runs unasked."""
    repo = make_repo(tmp_path / "repo")
    script = [
        {"content": [{"type": "toolCall", "name": "bash", "arguments": {"command": "ls"}}]},
        text("No findings."),
    ]
    ends: list[ToolExecutionEndEvent] = []

    def listen(event: object) -> None:
        if isinstance(event, ToolExecutionEndEvent):
            ends.append(event)

    permissions = PermissionsConfig(bash=mode)  # type: ignore[arg-type]
    await run_review(config(tmp_path, script, permissions=permissions), repo, listener=listen)
    [end] = ends
    output = text_of(end.result.content)
    assert end.is_error is denied
    assert (DENIED_BY_SETTING in output) is denied
    assert ("calc.py" in output) is not denied


async def test_a_model_failure_is_the_reports_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    report = await run_review(config(tmp_path, [{"errorMessage": "500 boom"}]), repo)
    assert report.error is not None
    assert "500 boom" in report.error


def test_review_is_a_builtin_command_of_every_session(tmp_path: Path) -> None:
    """Front ends handle ``/review`` themselves: never "no such prompt template"."""
    from pi_lsp.runtime import create_agent_session
    from pi_lsp.tools.disk_workspace import DiskWorkspace

    session = create_agent_session(config(tmp_path, []), DiskWorkspace([tmp_path]))
    try:
        assert "review" in session.builtin_commands
        assert session.expand_text("/review --base main").warning is None
        assert session.expand_text("/nope").warning is not None
    finally:
        session.close()


def test_review_command_arguments() -> None:
    from pi_lsp.codereview import parse_review_command

    assert parse_review_command("/review") == ReviewTarget()
    assert parse_review_command("/review --base main") == ReviewTarget("base", "main")
    assert parse_review_command(" /review commit abc ") == ReviewTarget("commit", "abc")
    assert parse_review_command("/reviewer") is None
    assert parse_review_command("please /review") is None
    # other arguments are a `review` prompt template's (docs/context.md), not a code review
    assert parse_review_command("/review src/x.py 'error handling'") is None
    with pytest.raises(ValueError, match="--base REF"):
        parse_review_command("/review --bogus")
