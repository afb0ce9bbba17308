"""The pi-lsp review GitHub Action (.ci/review-action/): its steps are review.sh, run here
as a job would run it — in a clone of the fixture repository whose pull-request branch has
seeded defects, with a faux model — and its action.yml runs exactly that script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.cli.helpers import clean_env, faux_script
from tests.cli.test_review_cli import SEEDED, sarif_schema
from tests.support.review_repo import DIV_LINE, commit_all, git
from tests.support.review_repo import make_review_repo as make_repo

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / ".ci" / "review-action"


def checkout(tmp: Path) -> Path:
    """A pull request: ``feature`` (the seeded defects) over ``main``, cloned as a CI job's
    checkout with full history (actions/checkout with fetch-depth: 0)."""
    origin = make_repo(tmp / "origin")
    git(origin, "checkout", "-q", "-b", "feature")
    commit_all(origin, "the pull request")
    work = tmp / "work"
    subprocess.run(["git", "clone", "-q", str(origin), str(work)], check=True)
    return work


def run_action(
    tmp: Path, work: Path, responses: list[dict[str, Any]], **env: str
) -> dict[str, str]:
    script = faux_script(tmp / "script.json", responses)
    outputs = tmp / "github_output"
    outputs.write_text("")
    environ = clean_env(
        tmp,
        PI_CODING_AGENT_DIR=str(tmp / "agent"),
        PI_LSP_SPEC="none",  # the pi-lsp under test is installed already
        PYTHON=sys.executable,
        PI_REVIEW_FAIL_ON="error",
        PI_REVIEW_ARGS=f"--provider faux --faux-script {script}",
        PI_REVIEW_SARIF="pi-review.sarif",
        GITHUB_OUTPUT=str(outputs),
        **env,
    )
    environ["PYTHONPATH"] = str(ROOT) + os.pathsep + environ.get("PYTHONPATH", "")
    res = subprocess.run(
        ["bash", str(ACTION / "review.sh")],
        cwd=work,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr  # the job fails in the action's last step
    return dict(line.split("=", 1) for line in outputs.read_text().splitlines())


def test_a_pull_request_with_defects_uploads_sarif_and_fails(tmp_path: Path) -> None:
    work = checkout(tmp_path)
    out = run_action(tmp_path, work, SEEDED, PI_REVIEW_BASE="main")
    assert out == {
        "exit-code": "1",
        "sarif-file": "pi-review.sarif",
        "sarif-written": "true",
    }
    doc = json.loads((work / "pi-review.sarif").read_text())
    jsonschema.Draft4Validator(sarif_schema()).validate(doc)
    region = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == DIV_LINE
    assert doc["runs"][0]["automationDetails"]["id"] == "pi-lsp-review/base/"


def test_without_a_base_the_last_commit_is_reviewed(tmp_path: Path) -> None:
    work = checkout(tmp_path)
    responses = [{"content": [{"type": "text", "text": "No findings."}]}]
    out = run_action(tmp_path, work, responses, PI_REVIEW_BASE="")
    assert out["exit-code"] == "0"
    doc = json.loads((work / "pi-review.sarif").read_text())
    assert doc["runs"][0]["results"] == []
    assert doc["runs"][0]["automationDetails"]["id"] == "pi-lsp-review/commit/"


def test_an_unknown_base_is_an_error_without_sarif_to_upload(tmp_path: Path) -> None:
    work = checkout(tmp_path)
    out = run_action(tmp_path, work, [], PI_REVIEW_BASE="no-such-branch")
    assert out["exit-code"] == "2"
    assert out["sarif-written"] == "false"


def test_the_action_runs_the_script_with_the_variables_it_reads() -> None:
    yaml = pytest.importorskip("yaml")
    action = yaml.safe_load((ACTION / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    review, upload, fail = steps
    assert review["run"] == 'bash "$GITHUB_ACTION_PATH/review.sh"'
    script = (ACTION / "review.sh").read_text()
    for name in review["env"]:
        assert f"${{{name}" in script, name
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert "sarif-written == 'true'" in upload["if"]
    assert "exit-code != '0'" in fail["if"]
    assert set(action["inputs"]) >= {"base", "fail-on", "args", "pi-lsp-spec", "sarif-file"}
