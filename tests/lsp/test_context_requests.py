"""The language server's side of issue 37: ``pi/commands`` (what ``/`` completes),
``pi/context`` (what a session loaded), ``pi/reload`` and the ``resources_update`` event;
project trust asked through the editor (``pi/requestPermission``) once per directory before
the first prompt's resources load; and a ``/template`` prompt with attachments, whose
attachments follow the expanded text instead of becoming its arguments. In process."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.resources import ProjectTrustStore
from tests.acp.harness import in_process
from tests.resources.trees import skill, write
from tests.support.http_server import ScriptedHTTPServer

from .conftest import Start, http_settings
from .harness import uri_of
from .openai_sse import response, text_events
from .test_security import start_with_permissions


@pytest.fixture
def agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    agent = home / ".pi" / "agent"
    write(agent / "prompts" / "review.md", "---\nargument-hint: FILE\n---\nReview: $ARGUMENTS.\n")
    skill(agent / "skills", "release", "Cut a release.", body="Tag it.")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    return agent


def _last_user_text(srv: ScriptedHTTPServer, index: int = -1) -> str:
    last = srv.requests[index].json["messages"][-1]
    content = last["content"]
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content)


async def test_commands_context_and_reload(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path, agent_dir: Path
) -> None:
    write(workspace / "AGENTS.md", "Run make check.\n")
    h = await pi_in_process(pi=http_settings(srv))
    before = await h.call("pi/commands")  # no session yet: the workspace's
    assert "sessionId" not in before
    names = [c["name"] for c in before["commands"]]
    assert names == ["compact", "context", "export", "reload", "review", "skill:release"]
    review = before["commands"][4]
    assert review == {
        "name": "review",
        "description": "Review: $ARGUMENTS.",
        "argumentHint": "FILE",
        "source": "prompt",
        "path": str(agent_dir / "prompts" / "review.md"),
    }
    sid = (await h.call("pi/newSession"))["sessionId"]
    assert (await h.call("pi/commands", {"sessionId": sid}))["commands"] == before["commands"]
    context = await h.call("pi/context", {"sessionId": sid})
    assert [f["path"] for f in context["contextFiles"]] == [str(workspace.resolve() / "AGENTS.md")]
    assert context["systemPrompt"] is None
    assert [s["name"] for s in context["skills"]] == ["release"]
    assert context["trust"] == {"status": "not-needed", "ignoredPaths": []}

    write(agent_dir / "prompts" / "fix.md", "Fix $1.\n")
    reloaded = await h.call("pi/reload", {"sessionId": sid})
    assert [t["name"] for t in reloaded["templates"]] == ["fix", "review"]
    event = await h.wait_event(sid, "resources_update")
    assert [t["name"] for t in event["templates"]] == ["fix", "review"]
    after = await h.call("pi/commands", {"sessionId": sid})
    assert "fix" in [c["name"] for c in after["commands"]]


async def test_the_names_equal_what_an_acp_client_is_offered(
    pi_in_process: Start,
    srv: ScriptedHTTPServer,
    agent_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    h = await pi_in_process(pi=http_settings(srv))
    lsp = [c["name"] for c in (await h.call("pi/commands"))["commands"]]
    async with in_process(tmp_path, srv.url, monkeypatch) as acp:
        await acp.init()
        sid = await acp.new()
        await acp.client.wait_for(lambda: bool(acp.client.of("available_commands_update")))
        (update,) = acp.client.of("available_commands_update", sid)
    assert [c.name for c in update.available_commands] == lsp


async def test_attachments_follow_the_expanded_template(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path, agent_dir: Path
) -> None:
    srv.enqueue(response(text_events("ok")))
    h = await pi_in_process(pi=http_settings(srv))
    await h.run("/review a.py", attachments=[{"uri": uri_of(workspace / "a.py")}])
    text = _last_user_text(srv)
    assert text.startswith("Review: a.py.\n\n")  # not the attachment as arguments
    assert "The file `a.py`:" in text
    assert "def f():\n    return 1" in text


@pytest.mark.parametrize(
    ("option", "trusted"), [("allowAlways", True), ("allowSession", True), ("deny", False)]
)
async def test_project_trust_is_asked_once_before_the_first_prompt(
    pi_in_process: Start,
    srv: ScriptedHTTPServer,
    workspace: Path,
    data_dir: Path,
    agent_dir: Path,
    option: str,
    trusted: bool,
) -> None:
    write(workspace / "AGENTS.md", "Project rules.\n")
    write(workspace / ".pi" / "prompts" / "ship.md", "Ship $1 now.\n")
    for _ in range(2):
        srv.enqueue(response(text_events("ok")))
    h, perms = await start_with_permissions(pi_in_process, http_settings(srv))
    perms.answer(option)
    first = await h.run("/ship v1")
    (asked,) = perms.requests
    assert asked["title"] == f"Trust project files in {workspace.resolve()}?"
    assert asked["tool"] == "trust"
    assert str(workspace.resolve() / ".pi" / "prompts") in asked["detail"]
    second = (await h.call("pi/newSession"))["sessionId"]
    await h.run("/ship v2", sessionId=second)
    assert len(perms.requests) == 1  # once per directory
    assert "Project rules." in srv.requests[0].json["messages"][0]["content"]
    for index, version in ((0, "v1"), (1, "v2")):
        assert _last_user_text(srv, index) == (
            f"Ship {version} now.\n" if trusted else f"/ship {version}"
        )
    context = await h.call("pi/context", {"sessionId": first})
    if trusted:
        assert context["trust"]["status"] == "trusted"
    else:
        assert context["trust"] == {
            "status": "untrusted",
            "ignoredPaths": [str(workspace.resolve() / ".pi" / "prompts")],
        }
        assert [f["path"] for f in context["contextFiles"]] == [
            str(workspace.resolve() / "AGENTS.md")
        ]
    saved = ProjectTrustStore(data_dir / "project-trust.json").decision(str(workspace.resolve()))
    assert saved == {"allowAlways": "trusted", "allowSession": None, "deny": "untrusted"}[option]


async def test_a_first_steer_is_asked_about_trust_too(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path, agent_dir: Path
) -> None:
    write(workspace / ".pi" / "prompts" / "ship.md", "Ship $1 now.\n")
    srv.enqueue(response(text_events("ok")))
    h, perms = await start_with_permissions(pi_in_process, http_settings(srv))
    perms.answer("allowSession")
    sid = (await h.call("pi/newSession"))["sessionId"]
    await h.call("pi/steer", {"sessionId": sid, "text": "/ship v3"})
    assert [r["tool"] for r in perms.requests] == ["trust"]
    await h.run("go", sessionId=sid)
    texts = [str(m["content"]) for m in srv.requests[0].json["messages"] if m["role"] == "user"]
    assert any("Ship v3 now." in t for t in texts), texts
