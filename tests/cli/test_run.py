"""``pi-lsp run`` end to end, as a subprocess: the demo, missing keys, faux scripts, the bash
question, saved sessions, and the --json event stream."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pi_lsp import demo
from pi_lsp.sessions import SessionStore

from .helpers import ROOT, clean_env, faux_script, pi_run


def test_demo_edits_the_temporary_copy_and_runs_the_command(tmp_path: Path) -> None:
    res = pi_run(["--demo"], clean_env(tmp_path))
    assert res.returncode == 0, res.stderr
    found = re.search(r"example project: (\S+)", res.stderr)
    assert found, res.stderr
    project = Path(found.group(1))
    assert project.is_relative_to(tmp_path)  # a temporary copy, under TMPDIR
    assert 'name + "!"' in (project / "greet.py").read_text()
    assert "→ read greet.py" in res.stdout
    assert "→ edit greet.py" in res.stdout
    assert "→ bash $ " in res.stdout
    assert "✓ Hello, world!" in res.stdout  # the command ran and printed the fixed greeting
    assert "tokens:" in res.stderr
    assert "cost $" in res.stderr
    shipped = Path(demo.__file__).parent / "project" / "greet.py"
    assert 'name + "?"' in shipped.read_text()  # the packaged original is untouched


def test_provider_faux_without_a_script_is_the_demo(tmp_path: Path) -> None:
    res = pi_run(["--provider", "faux"], clean_env(tmp_path))
    assert res.returncode == 0, res.stderr
    assert "Hello, world!" in res.stdout


@pytest.mark.parametrize(
    ("args", "variable"),
    [
        (["fix it"], "ANTHROPIC_API_KEY or OPENAI_API_KEY"),
        (["fix it", "--provider", "anthropic"], "ANTHROPIC_API_KEY"),
        (["fix it", "--provider", "openai"], "OPENAI_API_KEY"),
        (["fix it", "--provider", "openai", "--api-key-env", "MY_KEY"], "MY_KEY"),
    ],
)
def test_missing_key_is_one_line_naming_the_variable(
    tmp_path: Path, args: list[str], variable: str
) -> None:
    res = pi_run(args, clean_env(tmp_path))
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert variable in lines[0]
    assert "pi-lsp run --demo" in lines[0]
    assert res.stdout == ""


def test_usage_errors(tmp_path: Path) -> None:
    res = pi_run([], clean_env(tmp_path))
    assert res.returncode == 2
    assert "a prompt is required" in res.stderr
    res = pi_run(["x", "--cwd", str(tmp_path / "missing")], clean_env(tmp_path))
    assert res.returncode == 2
    assert "not a directory" in res.stderr
    res = pi_run(["x", "--faux-script", str(tmp_path / "none.json")], clean_env(tmp_path))
    assert res.returncode == 2
    assert "--faux-script" in res.stderr
    res = pi_run(["x", "--provider", "openai-compatible"], clean_env(tmp_path))
    assert res.returncode == 2
    assert "--base-url" in res.stderr


def _bash_script(tmp_path: Path) -> Path:
    return faux_script(
        tmp_path / "script.json",
        [
            {
                "content": [
                    {"type": "text", "text": "Creating the marker."},
                    {"type": "toolCall", "name": "bash", "arguments": {"command": "touch marker"}},
                ]
            },
            {"content": [{"type": "text", "text": "All done."}]},
        ],
    )


def test_bash_is_denied_without_yes_on_a_non_interactive_stdin(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = _bash_script(tmp_path)
    res = pi_run(
        ["make a marker", "--cwd", str(work), "--faux-script", str(script)], clean_env(tmp_path)
    )
    assert res.returncode == 0, res.stderr
    assert "denied `touch marker`: stdin is not a terminal (pass --yes" in res.stderr
    assert not (work / "marker").exists()
    assert "✗ The user did not allow this command" in res.stdout


def test_yes_runs_bash_and_the_session_is_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = _bash_script(tmp_path)
    env = clean_env(tmp_path)
    res = pi_run(["make a marker", "--cwd", str(work), "--faux-script", str(script), "--yes"], env)
    assert res.returncode == 0, res.stderr
    assert (work / "marker").exists()
    assert "All done." in res.stdout
    found = re.search(r"session (\S+) saved: (\S+)", res.stderr)
    assert found, res.stderr
    session_id, path = found.groups()
    assert Path(path).is_relative_to(tmp_path / "data" / "sessions")
    monkeypatch.setenv("PI_LSP_DATA_DIR", env["PI_LSP_DATA_DIR"])
    store = SessionStore.for_workspace(work)
    assert store.directory == Path(path).parent
    roles = [m.role for m in store.open(session_id).build_context().messages]
    assert roles == ["user", "assistant", "toolResult", "assistant"]

    # --resume continues it: the model sees the history
    more = faux_script(
        tmp_path / "more.json", [{"content": [{"type": "text", "text": "Still here."}]}]
    )
    res = pi_run(
        ["again", "--cwd", str(work), "--faux-script", str(more), "--resume", session_id], env
    )
    assert res.returncode == 0, res.stderr
    assert len(store.open(session_id).build_context().messages) == 6
    res = pi_run(["again", "--cwd", str(work), "--faux-script", str(more), "--resume", "nope"], env)
    assert res.returncode == 2
    assert "Session not found: nope" in res.stderr


def test_failed_model_request_exits_1(tmp_path: Path) -> None:
    script = faux_script(
        tmp_path / "s.json", [{"errorMessage": "500 upstream exploded", "beforeStart": True}]
    )
    res = pi_run(["hi", "--cwd", str(tmp_path), "--faux-script", str(script)], clean_env(tmp_path))
    assert res.returncode == 1
    assert "error: 500 upstream exploded" in res.stderr


def test_json_event_stream(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = _bash_script(tmp_path)
    res = pi_run(
        ["go", "--cwd", str(work), "--faux-script", str(script), "--yes", "--json"],
        clean_env(tmp_path),
    )
    assert res.returncode == 0, res.stderr
    records = [json.loads(line) for line in res.stdout.splitlines()]
    assert records
    session_ids = {r["sessionId"] for r in records}
    assert len(session_ids) == 1
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
    assert all(set(r) == {"sessionId", "seq", "event"} for r in records)
    types = [r["event"]["type"] for r in records]
    assert types[:2] == ["resources_update", "agent_start"]  # what was loaded, then the run
    assert types[-1] == "agent_end"
    assert "tool_execution_start" in types
    assert "tool_execution_end" in types
    updates = [r["event"] for r in records if r["event"]["type"] == "message_update"]
    assert updates
    for update in updates:
        assert set(update) == {"type", "assistantMessageEvent"}  # deltas only, no partial
        inner = update["assistantMessageEvent"]
        assert {"type", "contentIndex"} <= set(inner)
    ends = [r["event"]["message"] for r in records if r["event"]["type"] == "message_end"]
    final = ends[-1]
    assert final["role"] == "assistant"
    assert final["stopReason"] == "stop"  # camelCase
    text = "".join(
        u["assistantMessageEvent"]["delta"]
        for u in updates
        if u["assistantMessageEvent"]["type"] == "text_delta"
    )
    assert text == "Creating the marker.All done."
    start = next(r["event"] for r in records if r["event"]["type"] == "tool_execution_start")
    assert start["toolName"] == "bash"
    assert start["args"] == {"command": "touch marker"}


def test_module_entry_point_help() -> None:
    import subprocess
    import sys

    res = subprocess.run(
        [sys.executable, "-m", "pi_lsp", "run", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert res.returncode == 0
    for flag in (
        "--cwd",
        "--provider",
        "--base-url",
        "--api-key-env",
        "--yes",
        "--json",
        "--demo",
        "--faux-script",
    ):
        assert flag in res.stdout
