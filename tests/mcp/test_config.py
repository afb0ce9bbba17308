"""pi_lsp/mcp/config.py: Claude Code's mcpServers format, ${VAR} expansion, sources and their
order, and clear problems for bad entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_lsp.mcp.config import ConfigError, expand, load, parse_servers, user_config_file

ENV = {"TOKEN": "s3cret", "EMPTY": ""}


def test_expansion_with_and_without_defaults() -> None:
    assert expand("Bearer ${TOKEN}", ENV) == "Bearer s3cret"
    assert expand("${MISSING:-fallback}/x", ENV) == "fallback/x"
    assert expand("${EMPTY:-fallback}", ENV) == "fallback"
    assert expand("${EMPTY}", ENV) == ""
    assert expand("no $VARS here", ENV) == "no $VARS here"
    with pytest.raises(ConfigError, match="MISSING is not set"):
        expand("${MISSING}", ENV)


def test_claude_code_shapes_are_read() -> None:
    data = {
        "mcpServers": {
            "github": {
                "type": "http",
                "url": "https://api.githubcopilot.com/mcp/",
                "headers": {"Authorization": "Bearer ${TOKEN}"},
            },
            "fs": {
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME:-/home}"],
                "env": {"DEBUG": "1"},
                "timeout": 30,
                "alwaysAllow": ["read_file"],
                "disabled": False,
                "eager": True,
            },
        }
    }
    loaded = parse_servers(data, "project", ".mcp.json", ENV)
    assert loaded.problems == []
    github, fs = loaded.servers
    assert github.transport == "http"
    assert github.headers == {"Authorization": "Bearer s3cret"}
    assert fs.transport == "stdio"
    assert fs.command == "npx"
    assert fs.args[-1] == "/home"
    assert (fs.timeout_s, fs.always_allow, fs.eager, fs.source) == (
        30.0,
        ("read_file",),
        True,
        "project",
    )
    assert "s3cret" not in github.describe()


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"type": "sse", "url": "http://x"}, "not supported"),
        ({"type": "http"}, "needs a url"),
        ({"args": ["x"]}, "needs a command"),
        ({"command": "x", "args": "not-a-list"}, "args must be a list"),
        ({"command": "x", "timeout": -1}, "timeout"),
        ({"command": "${NOPE}"}, "NOPE is not set"),
        ("just a string", "must be an object"),
    ],
)
def test_a_bad_entry_is_a_problem_naming_it_and_the_others_stay(
    entry: object, message: str
) -> None:
    loaded = parse_servers({"mcpServers": {"bad": entry, "good": {"command": "ok"}}}, "user", "f")
    assert [s.name for s in loaded.servers] == ["good"]
    (problem,) = loaded.problems
    assert "'bad'" in problem
    assert message in problem
    assert problem.startswith("f:")


def test_sources_later_override_earlier_by_name(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"a": {"command": "project-a"}, "b": {"command": "project-b"}}})
    )
    config = tmp_path / "config"
    (config / "mcp").mkdir(parents=True)
    (config / "mcp" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"b": {"command": "user-b"}}})
    )
    env = {"XDG_CONFIG_HOME": str(config)}
    assert user_config_file(env) == config / "mcp" / "mcp.json"
    settings = parse_servers({"a": {"command": "settings-a"}}, "settings", "pi.mcpServers", env)
    loaded = load(ws, [settings], env=env)
    assert {s.name: (s.command, s.source) for s in loaded.servers} == {
        "a": ("settings-a", "settings"),
        "b": ("user-b", "user"),
    }


def test_a_broken_file_is_one_problem(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text("{not json")
    loaded = load(tmp_path, env={"XDG_CONFIG_HOME": str(tmp_path / "none")})
    assert loaded.servers == []
    (problem,) = loaded.problems
    assert ".mcp.json" in problem
    assert "not valid JSON" in problem
