"""``pi-lsp run`` with MCP servers (issue 26): the real ``mcp-server-time`` from
``--mcp-config`` and from the workspace's ``.mcp.json`` (trusted with ``--yes`` for this run
only; not started without a terminal), its tool called by a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

from tests.mcp.support import time_server_command

from .helpers import clean_env, faux_script, pi_run

CONVERT = {"source_timezone": "Europe/Berlin", "time": "12:00", "target_timezone": "Asia/Tokyo"}


def script(tmp_path: Path) -> Path:
    call = {"type": "toolCall", "name": "mcp__time__convert_time", "arguments": CONVERT}
    return faux_script(
        tmp_path / "script.json",
        [{"content": [call]}, {"content": [{"type": "text", "text": "Done."}]}],
    )


def servers() -> dict[str, object]:
    return {"mcpServers": {"time": {"command": time_server_command()}}}


def test_mcp_config_file_with_yes_calls_the_time_server(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps(servers()))
    env = clean_env(tmp_path, XDG_CONFIG_HOME=str(tmp_path / "config"))
    args = ["convert", "--cwd", str(work), "--faux-script", str(script(tmp_path))]
    res = pi_run([*args, "--mcp-config", str(config), "--yes", "--json", "--no-save"], env)
    assert res.returncode == 0, res.stderr
    ends = [json.loads(line) for line in res.stdout.splitlines() if '"tool_execution_end"' in line]
    (end,) = ends
    text = json.dumps(end)
    assert "20:00:00+09:00" in text
    assert '"isError": false' in text


def test_project_servers_do_not_start_without_a_terminal_or_yes(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / ".mcp.json").write_text(json.dumps(servers()))
    env = clean_env(tmp_path, XDG_CONFIG_HOME=str(tmp_path / "config"))
    res = pi_run(["convert", "--cwd", str(work), "--faux-script", str(script(tmp_path))], env)
    assert res.returncode == 0, res.stderr
    assert "not a terminal: MCP tool calls are denied" in res.stderr
    assert "mcp__time__convert_time not found" in res.stdout


def test_a_missing_mcp_config_is_a_usage_error(tmp_path: Path) -> None:
    missing = str(tmp_path / "none.json")
    res = pi_run(
        [
            "x",
            "--provider",
            "faux",
            "--faux-script",
            str(script(tmp_path)),
            "--mcp-config",
            missing,
        ],
        clean_env(tmp_path),
    )
    assert res.returncode != 0
    assert "--mcp-config" in res.stderr
