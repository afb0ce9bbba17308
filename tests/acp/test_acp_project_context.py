"""The ACP front end gets the project's context with no change of its own (issue 37): the
runtime loads AGENTS.md and the templates for ``session/new``'s cwd, the first request
carries AGENTS.md under Pi's header and a ``/review x`` prompt arrives expanded. Served in
the test's process against the scripted model server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.lsp.openai_sse import response, text_events
from tests.resources.trees import write
from tests.support.http_server import ScriptedHTTPServer

from .harness import in_process

pytestmark = pytest.mark.timeout(90)


async def test_agents_md_and_a_template_reach_the_model(tmp_path: Path, monkeypatch: Any) -> None:
    agent_dir = tmp_path / "agent"
    write(agent_dir / "prompts" / "review.md", "Review $1 with care.\n")
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir))
    work = tmp_path / "work"
    write(work / "AGENTS.md", "Never touch vendor/.\n")
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("ok")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "/review a.py") == "end_turn"
        body = srv.requests[0].json
    system = body["messages"][0]["content"]
    assert (
        f'<project_instructions path="{work.resolve() / "AGENTS.md"}">\n'
        "Never touch vendor/.\n\n</project_instructions>"
    ) in system
    last = body["messages"][-1]
    content = last["content"] if isinstance(last["content"], str) else last["content"][0]["text"]
    assert content == "Review a.py with care.\n"
