"""The language server gets the project's context with no change of its own (issue 37): the
runtime loads AGENTS.md, skills and templates for its sessions, the first request carries
AGENTS.md under Pi's header, and ``/review x`` (prompt) and ``/skill:name`` (steer) arrive
expanded. In the in-process tier."""

from __future__ import annotations

from pathlib import Path

from pi_lsp.resources import ProjectTrustStore
from tests.resources.trees import skill, write
from tests.support.http_server import ScriptedHTTPServer

from .conftest import Start, http_settings
from .openai_sse import response, text_events


def seeded(workspace: Path, data_dir: Path, tmp_path: Path) -> Path:
    """A trusted workspace with an AGENTS.md and a ``review`` template; an agent dir (returned)
    with a ``release`` skill."""
    write(workspace / "AGENTS.md", "Run tests with `make check`.\n")
    write(workspace / ".pi" / "prompts" / "review.md", "Review $1 carefully.\n")
    agent = tmp_path / "agent"
    skill(agent / "skills", "release", "Cut a release.", body="Tag it.")
    ProjectTrustStore(data_dir / "project-trust.json").remember(str(workspace), "trusted")
    return agent


async def test_agents_md_skills_and_templates_reach_the_model(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path, data_dir: Path, tmp_path: Path
) -> None:
    agent = seeded(workspace, data_dir, tmp_path)
    srv.enqueue(response(text_events("ok")))
    srv.enqueue(response(text_events("ok again")))
    h = await pi_in_process(pi=http_settings(srv), env={"PI_CODING_AGENT_DIR": str(agent)})
    sid = (await h.call("pi/newSession"))["sessionId"]
    await h.call("pi/steer", {"sessionId": sid, "text": "/skill:release now"})
    await h.run("/review a.py", sessionId=sid)
    body = srv.requests[0].json
    system = body["messages"][0]["content"]
    assert (
        f'<project_instructions path="{workspace.resolve() / "AGENTS.md"}">\n'
        "Run tests with `make check`.\n\n</project_instructions>"
    ) in system
    assert "<name>release</name>" in system
    texts = [str(m["content"]) for m in body["messages"] if m["role"] == "user"]
    assert any("Review a.py carefully." in t for t in texts)
    assert any('<skill name="release"' in t and "Tag it." in t for t in texts)


async def test_settings_turn_context_files_skills_and_templates_off(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path, data_dir: Path, tmp_path: Path
) -> None:
    """``pi.contextFiles`` / ``pi.skills`` / ``pi.promptTemplates`` set to ``false`` (the
    editors' settings): none of them loads, as with the CLI's ``--no-…`` flags."""
    agent = seeded(workspace, data_dir, tmp_path)
    srv.enqueue(response(text_events("ok")))
    off = {"contextFiles": False, "skills": False, "promptTemplates": False}
    settings = {**http_settings(srv), **off}
    h = await pi_in_process(pi=settings, env={"PI_CODING_AGENT_DIR": str(agent)})
    sid = (await h.call("pi/newSession"))["sessionId"]
    await h.run("/review a.py", sessionId=sid)
    body = srv.requests[0].json
    system = body["messages"][0]["content"]
    assert "make check" not in system
    assert "<name>release</name>" not in system
    texts = [str(m["content"]) for m in body["messages"] if m["role"] == "user"]
    assert any("/review a.py" in t for t in texts)
    assert not any("carefully" in t for t in texts)
    context = await h.call("pi/context", {"sessionId": sid})
    assert context["contextFiles"] == context["skills"] == context["templates"] == []
