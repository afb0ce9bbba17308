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


def test_a_childs_questions_on_the_terminal_are_attributed(tmp_path: Path) -> None:
    """With a terminal (a pty as stdin), a child's command and its MCP call are asked on it
    naming the agent; answered, the command runs and the call reaches the parent's server."""
    import os
    import pty
    import subprocess
    import sys

    from tests.mcp.conftest import demo_stdio

    from .helpers import ROOT

    work = tmp_path / "work"
    work.mkdir()
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"demo": demo_stdio()}}))
    script = faux_script(
        tmp_path / "script.json",
        [
            calls(task("nap", "CHILD-M: nap")),
            calls(("bash", {"command": "echo from-the-child"}), when="CHILD-M"),
            calls(("mcp__demo__sleep", {"seconds": 0}), when="CHILD-M"),
            text("napped", when="CHILD-M"),
            text("Parent: done."),
        ],
    )
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "pi_lsp", "run", "go", "--cwd", str(work)),
            *("--faux-script", str(script), "--mcp-config", str(config), "--no-save"),
        ],
        env=clean_env(tmp_path, XDG_CONFIG_HOME=str(tmp_path / "config")),
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    os.close(slave)
    try:
        assert proc.stderr is not None
        asked = b""
        for end in (b"[y/N/a=always] ", b"a=always here] "):  # each question, then its answer
            while not asked.endswith(end):
                chunk = proc.stderr.read1(4096)
                assert chunk, asked.decode(errors="replace")
                asked += chunk
            os.write(master, b"y\n")
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert proc.returncode == 0, err.decode(errors="replace")
    assert "[general] Run `echo from-the-child`?" in asked.decode()
    assert "[general] Call MCP tool sleep (server demo)" in asked.decode()
    assert "from-the-child" in out.decode()
    assert "  [general] → mcp__demo__sleep" in out.decode()
    assert "Parent: done." in out.decode()
