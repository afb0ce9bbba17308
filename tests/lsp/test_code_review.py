"""A code review in the language server (docs/review.md#in-an-editor), through a plain
pytest-lsp client with the server in process: ``pi/codeReview`` and ``/review`` publish the
faux model's findings on the fixture repository (tests/support/review_repo.py) as
diagnostics on the right lines; Fix with pi / Explain / Dismiss code actions; findings move
with an edit above them and clear when their lines are edited or the review runs again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from lsprotocol.converters import get_converter

from tests.support.review_repo import DIV_LINE, EVAL_LINE, OPEN_LINE, make_review_repo

from .conftest import Start
from .harness import Harness, text_reply, tool_reply, uri_of, write_script


def finding(path: str, line: int, title: str, severity: str = "error", **kw: Any) -> dict[str, Any]:
    args = {"path": path, "line": line, "severity": severity, "title": title, "body": "why", **kw}
    return {"type": "toolCall", "name": "report_finding", "arguments": args}


REVIEW = [
    {
        "content": [
            finding("calc.py", DIV_LINE, "Division by zero", suggestion="check for empty"),
            finding("calc.py", OPEN_LINE, "File never closed", "warning"),
            finding("util.py", EVAL_LINE, "eval of input", "info"),
        ]
    },
    text_reply("Three findings."),
]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_review_repo(tmp_path / "ws")


async def start(pi_in_process: Start, tmp_path: Path) -> tuple[Harness, Path]:
    script = write_script(tmp_path / "script.json", REVIEW)
    h = await pi_in_process(pi={"provider": "faux", "fauxScript": str(script)})
    return h, script


def lines(h: Harness, uri: str) -> list[tuple[int, int, str, str]]:
    return sorted(
        (d.range.start.line + 1, d.range.end.line + 1, d.message, str(d.source))
        for d in h.client.diagnostics.get(uri, [])
    )


async def test_pi_code_review_publishes_findings_as_diagnostics(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h, _ = await start(pi_in_process, tmp_path)
    result = await h.call("pi/codeReview", {})
    assert [(f["path"], f["line"]) for f in result["findings"]] == [
        ("calc.py", DIV_LINE),
        ("calc.py", OPEN_LINE),
        ("util.py", EVAL_LINE),
    ]
    assert {s["path"] for s in result["skipped"]} == {"logo.png", "old.py", "package-lock.json"}
    calc = uri_of(workspace / "calc.py")
    await h.wait_for(lambda: calc in h.client.diagnostics)
    assert lines(h, calc) == [
        (DIV_LINE, DIV_LINE, "Division by zero", "pi review"),
        (OPEN_LINE, OPEN_LINE, "File never closed", "pi review"),
    ]
    div = next(d for d in h.client.diagnostics[calc] if d.message == "Division by zero")
    assert div.severity == types.DiagnosticSeverity.Error
    assert div.range.start.character == 4  # from the code, not the indentation
    assert div.data["findingId"] == result["findings"][0]["id"]
    related = [r.message for r in div.related_information or []]
    assert related == ["why", "Suggestion: check for empty"]
    util = uri_of(workspace / "util.py")
    assert [d.severity for d in h.client.diagnostics[util]] == [
        types.DiagnosticSeverity.Information
    ]


async def test_slash_review_in_a_prompt_runs_the_review(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h, _ = await start(pi_in_process, tmp_path)
    answer = await h.call("pi/prompt", {"text": "/review"})
    assert answer["delivered"] == "prompt"
    shown = await h.wait_for(
        lambda: next((m for m in h.client.messages if m.message.startswith("pi review:")), None)
    )
    assert "3 findings (1 error, 1 warning, 1 info) in 2 files" in shown.message
    assert "logo.png (binary)" in shown.message
    assert len(lines(h, uri_of(workspace / "calc.py"))) == 2


async def code_actions(h: Harness, uri: str, diagnostic: types.Diagnostic) -> list[Any]:
    wire = get_converter().unstructure(diagnostic)
    cursor = {"start": wire["range"]["start"], "end": wire["range"]["start"]}
    actions: list[Any] = await h.raw_call(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": cursor, "context": {"diagnostics": [wire]}},
    )
    return actions


async def execute(h: Harness, command: dict[str, Any]) -> Any:
    return await h.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command["command"], arguments=command["arguments"])
    )


async def test_code_actions_fix_explain_dismiss(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h, script = await start(pi_in_process, tmp_path)
    await h.call("pi/codeReview", {})
    calc = uri_of(workspace / "calc.py")
    div = next(d for d in h.client.diagnostics[calc] if d.message == "Division by zero")
    actions = await code_actions(h, calc, div)
    assert [a["title"] for a in actions] == [
        "Fix with pi: Division by zero",
        "Explain: Division by zero",
        "Dismiss: Division by zero",
    ]  # and not the generic "Ask pi to fix this" on top
    fix, explain, dismiss = (a["command"] for a in actions)
    assert "Do not change anything" in explain["arguments"][0]["text"]

    # Dismiss: cleared, and a new review of the same text does not bring it back
    assert (await execute(h, dismiss))["dismissed"] is True
    await h.wait_for(lambda: len(lines(h, calc)) == 1)
    await h.call("pi/codeReview", {"target": {"kind": "worktree"}})
    assert [t for _, _, t, _ in lines(h, calc)] == ["File never closed"]

    # Fix with pi: a normal run whose edit lands in review; the finding's lines changed, so
    # a finding there clears while the other one stays
    open_finding = next(d for d in h.client.diagnostics[calc] if d.message == "File never closed")
    (fix_open, *_) = (a["command"] for a in await code_actions(h, calc, open_finding))
    assert "File never closed" in fix_open["arguments"][0]["text"]
    assert "Division by zero" in fix["arguments"][0]["text"]
    edit = {
        "path": "calc.py",
        "oldText": "    f = open(path)",
        "newText": "    with open(path) as f:",
    }
    script.write_text(json.dumps({"responses": [tool_reply("edit", edit), text_reply("Fixed.")]}))
    done = await execute(h, fix_open)
    sid = done["sessionId"]
    await h.wait_event(sid, "agent_end")
    review = await h.call("pi/review", {"sessionId": sid})
    assert [f["uri"] for f in review["files"]] == [calc]  # the fix is a pending hunk
    await h.wait_for(lambda: not lines(h, calc))


async def test_findings_move_with_an_edit_above_and_clear_when_edited(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h, _ = await start(pi_in_process, tmp_path)
    calc_path = workspace / "calc.py"
    calc = h.open(calc_path)
    await h.call("pi/codeReview", {})
    await h.wait_for(lambda: len(lines(h, calc)) == 2)
    text = calc_path.read_text()
    h.set_text(calc, "import os\n\n" + text)  # two lines above both findings
    await h.wait_for(lambda: lines(h, calc)[0][0] == DIV_LINE + 2)
    assert [(a, t) for a, _, t, _ in lines(h, calc)] == [
        (DIV_LINE + 2, "Division by zero"),
        (OPEN_LINE + 2, "File never closed"),
    ]
    fixed = ("import os\n\n" + text).replace("f = open(path)", "with open(path) as f:")
    h.set_text(calc, fixed)  # the second finding's line changed: it clears
    await h.wait_for(lambda: len(lines(h, calc)) == 1)
    assert lines(h, calc)[0][2] == "Division by zero"
