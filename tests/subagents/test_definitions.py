"""Agent definitions from files (docs/subagents.md#definitions): Pi's and Claude Code's
formats, the sources' order, project trust, invalid files skipped with a diagnostic."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.resources import protected_paths
from pi_lsp.subagents.definitions import GENERAL, load_agents, map_tool_name
from tests.subagents.helpers import calls, make_session, task, text

# The shape of a public Claude Code subagent (VoltAgent/awesome-claude-code-subagents style)
CLAUDE_REVIEWER = """---
name: code-reviewer
description: Expert code reviewer. Use proactively after writing code.
tools: Read, Grep, Glob, Bash(git diff:*), WebFetch
model: haiku
---
You are a senior code reviewer. Review the diff for correctness and style.
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_claude_style_definition_is_parsed_and_its_tools_mapped(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home / ".claude" / "agents" / "reviewer.md", CLAUDE_REVIEWER)
    catalog = load_agents(
        str(tmp_path / "p"), agent_dir=str(home / ".pi" / "agent"), trusted=False, home=str(home)
    )
    reviewer = catalog.get("code-reviewer")
    assert reviewer is not None
    assert reviewer.tools == ("read", "grep", "find", "bash")
    assert reviewer.model == "haiku"
    assert reviewer.prompt.startswith("You are a senior code reviewer.")
    assert reviewer.source == "user"
    assert catalog.get(GENERAL) is not None  # the built-in is always there
    assert [d.message for d in catalog.diagnostics] == ["`tools`: unknown tool 'WebFetch' ignored"]
    assert map_tool_name("mcp__github__search") == "mcp__github__search"
    assert map_tool_name("MultiEdit") == "edit"


def test_invalid_files_are_skipped_with_a_diagnostic(tmp_path: Path) -> None:
    agents = tmp_path / "agent" / "agents"
    write(agents / "no-desc.md", "---\nname: x\n---\nbody\n")
    write(agents / "bad-yaml.md", "---\nname: [unclosed\ndescription: d\n---\n")
    write(agents / "bad-turns.md", "---\ndescription: d\nmaxTurns: many\n---\n")
    write(agents / "ok.md", "---\ndescription: fine\nmaxTurns: 3\nisolation: worktree\n---\n")
    catalog = load_agents(
        str(tmp_path / "p"), agent_dir=str(tmp_path / "agent"), trusted=True, home=str(tmp_path)
    )
    assert catalog.names() == ["general", "ok"]
    ok = catalog.get("ok")
    assert ok is not None
    assert ok.max_turns == 3
    assert ok.isolation == "worktree"
    reasons = {Path(d.path).name: d.message for d in catalog.diagnostics}
    assert reasons["no-desc.md"] == "skipped: `description` is required"
    assert reasons["bad-yaml.md"].startswith("skipped: invalid YAML frontmatter")
    assert reasons["bad-turns.md"] == "skipped: `maxTurns` must be a positive integer"


def test_project_agents_need_trust_and_win_over_the_users(tmp_path: Path) -> None:
    project = tmp_path / "p"
    write(project / ".pi" / "agents" / "scout.md", "---\ndescription: project scout\n---\n")
    write(tmp_path / "agent" / "agents" / "scout.md", "---\ndescription: user scout\n---\n")
    untrusted = load_agents(
        str(project), agent_dir=str(tmp_path / "agent"), trusted=False, home=str(tmp_path)
    )
    trusted = load_agents(
        str(project), agent_dir=str(tmp_path / "agent"), trusted=True, home=str(tmp_path)
    )
    scout_u, scout_t = untrusted.get("scout"), trusted.get("scout")
    assert scout_u is not None
    assert scout_u.description == "user scout"
    assert scout_t is not None
    assert scout_t.description == "project scout"
    assert [d.type for d in trusted.diagnostics] == ["collision"]
    # the project's agents directory is one of the paths project trust is asked about
    assert str(project / ".pi" / "agents") in protected_paths(str(project), home=str(tmp_path))


async def test_a_definition_shapes_the_child_and_a_bad_file_is_a_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent_dir = tmp_path / "agentdir"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    write(
        agent_dir / "agents" / "scout.md",
        "---\ndescription: reads only\ntools: Read, Grep\n---\nSCOUT-BODY: be brief.\n",
    )
    write(agent_dir / "agents" / "broken.md", "---\nname: broken\n---\n")
    session = make_session(
        tmp_path,
        [
            calls(task("scout it", "CHILD-S: look", agent="scout")),
            text("scouted", when="CHILD-S"),
            text("Parent: ok"),
        ],
    )
    notices: list[str] = []
    session.subscribe(lambda e: notices.append(e.message) if e.type == "resource_notice" else None)
    children: list[object] = []
    assert session.subagents is not None
    session.subagents.subscribe(lambda e: children.append(e))
    tool = next(t for t in session.tools if t.name == "task")
    assert "- scout: reads only" in tool.to_tool().description
    await session.prompt("go")
    assert any("broken.md: skipped: `description` is required" in n for n in notices)
    [child] = session.subagents.children()
    assert child.state == "completed"
    assert child.session is not None
    prompt = child.session.agent.state.system_prompt
    assert "SCOUT-BODY: be brief." in prompt
    assert [t.name for t in child.session.tools] == ["read", "grep"]
    session.close()


async def test_max_turns_model_and_disallowed_tools_shape_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent_dir = tmp_path / "agentdir"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    write(
        agent_dir / "agents" / "brief.md",
        "---\ndescription: two turns at most\nmaxTurns: 2\nmodel: faux/faux-1\n"
        "disallowedTools: Bash, Write\n---\n",
    )
    write(
        agent_dir / "agents" / "other.md", "---\ndescription: d\nmodel: no-such-provider/x\n---\n"
    )
    session = make_session(
        tmp_path,
        [
            calls(
                task("loop", "CHILD-B: loop", agent="brief"), task("x", "CHILD-O: x", agent="other")
            ),
            calls(("ls", {"path": "."}), when="CHILD-B"),
            calls(("ls", {"path": "."}), when="CHILD-B"),
            calls(("ls", {"path": "."}), when="CHILD-B"),
            text("Parent: ok"),
        ],
    )
    await session.prompt("go")
    assert session.subagents is not None
    brief, other = session.subagents.children()
    assert brief.state == "completed"
    assert brief.usage["turns"] == 2
    assert brief.session is not None
    assert "bash" not in [t.name for t in brief.session.tools]
    assert "write" not in [t.name for t in brief.session.tools]
    assert brief.session.model.id == "faux-1"
    assert other.state == "failed"
    messages = session.agent.state.messages
    results = [m for m in messages if getattr(m, "role", "") == "toolResult"]
    texts = ["".join(b.text for b in r.content if hasattr(b, "text")) for r in results]
    assert "(stopped after 2 turns: maxTurns)" in texts[0]
    assert "model does not resolve" in texts[1]
    session.close()
