"""``pi-lsp run`` with ``task`` children (a subprocess; the faux script plays the parent and
its children): indented child lines, ``--json`` child events with ``sessionId`` /
``parentSessionId``, and a child's command denied at once without a terminal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_lsp.wire_events import SubagentUpdateEvent
from tests.subagents.helpers import calls, task, text

from .helpers import clean_env, faux_script, pi_run


def _script(tmp: Path) -> Path:
    return faux_script(
        tmp / "script.json",
        [
            calls(task("count files", "CHILD-A: count"), task("read it", "CHILD-B: read")),
            calls(("ls", {"path": "."}), when="CHILD-A"),
            text("two files", when="CHILD-A"),
            calls(("bash", {"command": "cat a.txt"}), when="CHILD-B"),
            text("could not run it", when="CHILD-B"),
            text("Parent: both answered."),
        ],
    )


def test_child_lines_are_indented_with_the_agents_name_and_a_command_is_denied_at_once(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    res = pi_run(
        ["go", "--cwd", str(tmp_path), "--faux-script", str(_script(tmp_path))],
        clean_env(tmp_path),
        stdin="",  # not a terminal: a child's bash question is denied at once, never hangs
        timeout=60,
    )
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "  [general] started: count files" in out
    assert "  [general] → ls ." in out
    assert "  [general] → bash $ cat a.txt" in out
    assert "  [general]   ✗ The user did not allow this command" in out
    assert "  [general] completed · 2 turns · " in out
    assert "Parent: both answered." in out
    assert "denied `cat a.txt`: stdin is not a terminal" in res.stderr
    assert "subagents (2): " in res.stderr


def test_json_child_events_carry_their_session_and_the_parents(tmp_path: Path) -> None:
    res = pi_run(
        ["go", "--cwd", str(tmp_path), "--faux-script", str(_script(tmp_path)), "--json"],
        clean_env(tmp_path),
    )
    assert res.returncode == 0, res.stderr
    lines: list[dict[str, Any]] = [json.loads(x) for x in res.stdout.splitlines() if x.strip()]
    root = lines[0]["sessionId"]
    updates = [x["event"] for x in lines if x["event"]["type"] == "subagent_update"]
    for update in updates:
        SubagentUpdateEvent.model_validate(update)
    children = {u["childSessionId"] for u in updates}
    assert len(children) == 2
    assert sorted(u["state"] for u in updates) == ["completed", "completed", "running", "running"]
    child_lines = [x for x in lines if x.get("parentSessionId") == root]
    assert {x["sessionId"] for x in child_lines} == children
    for child in children:
        own = [x for x in child_lines if x["sessionId"] == child]
        assert [x["seq"] for x in own] == list(range(1, len(own) + 1))
        # announced before any of its events, terminal after its last
        first = next(i for i, x in enumerate(lines) if x.get("sessionId") == child)
        last = max(i for i, x in enumerate(lines) if x.get("sessionId") == child)
        announce = next(
            i
            for i, x in enumerate(lines)
            if x["event"].get("childSessionId") == child and x["event"]["state"] == "running"
        )
        terminal = next(
            i
            for i, x in enumerate(lines)
            if x["event"].get("childSessionId") == child and x["event"]["state"] == "completed"
        )
        assert announce < first <= last < terminal
