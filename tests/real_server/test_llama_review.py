"""``pi-lsp review`` end to end against the real llama.cpp server (issue 43): the diff of the
fixture repository with seeded defects goes to a real model through the real provider, and
the SARIF that comes back validates against the official schema. The model is tiny: this
proves the pipeline, never the review's quality (it may report nothing, or a finding)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.cli.test_review_cli import sarif_schema
from tests.support.review_repo import make_review_repo

from .conftest import CTX, LlamaServer
from .test_llama_wire import cli_setup

pytestmark = pytest.mark.real_server


async def test_pi_lsp_review_against_a_real_model_writes_valid_sarif(
    llama: LlamaServer, tmp_path: Path
) -> None:
    repo = make_review_repo(tmp_path / "repo")
    provider, env = cli_setup(llama, "openai", tmp_path, "local")
    env["PI_CODING_AGENT_DIR"] = str(tmp_path / "agent")
    out_file = tmp_path / "review.sarif"
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pi_lsp",
        "review",
        "--cwd",
        str(repo),
        *provider,
        "--model",
        "smollm2",
        "--context-window",
        str(CTX),
        "--format",
        "sarif",
        "--fail-on",
        "never",
        "-o",
        str(out_file),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 300)
    output = out.decode() + err.decode()
    assert proc.returncode == 0, output
    assert "written to" in output
    doc = json.loads(out_file.read_text())
    jsonschema.Draft4Validator(sarif_schema()).validate(doc)
    run = doc["runs"][0]
    assert run["invocations"][0]["executionSuccessful"] is True, output
    notes = [n["message"]["text"] for n in run["invocations"][0]["toolExecutionNotifications"]]
    assert "skipped logo.png: binary" in notes
    for result in run["results"]:  # whatever the tiny model reported passed the tool's checks
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri in ("calc.py", "util.py")
