"""A ``task`` child gets the parent's MCP tools its definition allows (Claude Code's
``mcp__server__tool`` names), over the parent's connections (no second server process), and
its MCP permission questions reach the root's ``Ask`` attributed (docs/subagents.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_lsp.ai import AbortSignal, TextContent
from pi_lsp.mcp.attach import McpAttachment, attach
from pi_lsp.mcp.config import parse_servers
from pi_lsp.runtime import SessionOptions
from pi_lsp.runtime.permissions import Answer, Question
from pi_lsp.subagents.runner import ChildEvent
from tests.mcp.conftest import demo_stdio
from tests.subagents.helpers import calls, make_session, task, text

AGENTS = {
    "pidonly": "---\ndescription: asks for the pid\ntools: Read, mcp__demo__pid\n---\nBe brief.\n",
    "nomcp": "---\ndescription: no MCP\ntools: Read\n---\n",
    "server": "---\ndescription: a whole server\ntools: [Read, mcp__demo]\n---\n",
}


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PI_LSP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    agents = tmp_path / "home" / ".pi" / "agent" / "agents"
    agents.mkdir(parents=True)
    for name, body in AGENTS.items():
        (agents / f"{name}.md").write_text(body)


def _attach(asked: list[Question]) -> McpAttachment:
    async def ask(question: Question, signal: AbortSignal | None) -> Answer:
        asked.append(question)
        return Answer("allowSession")

    loaded = parse_servers({"mcpServers": {"demo": demo_stdio()}}, "user", "test")
    mcp = attach(loaded, ask=ask, trust_file=None, rules=None, permission=lambda: "ask")
    assert mcp is not None
    return mcp


def _text(result: Any) -> str:
    return "".join(b.text for b in result.content if isinstance(b, TextContent))


async def test_children_get_the_parents_mcp_tools_filtered_and_ask_attributed(
    tmp_path: Path,
) -> None:
    asked: list[Question] = []
    mcp = _attach(asked)
    session = make_session(
        tmp_path,
        [
            calls(("mcp__demo__pid", {})),
            calls(
                task("pid", "CHILD-P: the pid", agent="pidonly"),
                task("none", "CHILD-N: the pid", agent="nomcp"),
                task("all", "CHILD-S: fail", agent="server"),
            ),
            calls(("mcp__demo__pid", {}), when="CHILD-P"),
            text("child pid done", when="CHILD-P"),
            calls(("mcp__demo__pid", {}), when="CHILD-N"),
            text("no such tool", when="CHILD-N"),
            calls(("mcp__demo__fail", {"why": "on purpose"}), when="CHILD-S"),
            text("it failed", when="CHILD-S"),
            text("Parent: done"),
        ],
        options=SessionOptions(
            permissions=(mcp.check,),
            before_run=(mcp.before_run,),
            child_permissions=lambda agent, cid: (mcp.child_check(agent, cid),),
        ),
    )
    ends: dict[str, list[tuple[str, str, bool]]] = {}

    def on_child(wrapped: ChildEvent) -> None:
        event = wrapped.event
        if event.type == "tool_execution_end":
            ends.setdefault(wrapped.agent_name, []).append(
                (event.tool_name, _text(event.result), event.is_error)
            )

    parent_pid: list[str] = []
    session.subscribe(
        lambda e: (
            parent_pid.append(_text(e.result))
            if e.type == "tool_execution_end" and e.tool_name == "mcp__demo__pid"
            else None
        )
    )
    assert session.subagents is not None
    session.subagents.subscribe(on_child)
    try:
        await session.prompt("go")
    finally:
        session.close()
        await mcp.hub.aclose()
    [pid] = parent_pid
    assert pid.strip().isdigit()
    # the child called the parent's server: the same process answered
    assert ends["pidonly"] == [("mcp__demo__pid", pid, False)]
    [(name, body, is_error)] = ends["nomcp"]
    assert is_error
    assert "not found" in body
    [(name, body, is_error)] = ends["server"]
    assert name == "mcp__demo__fail"
    assert "on purpose" in body
    # "this session" given by the parent for pid holds for the tree: only fail asked again
    titles = [q.title for q in asked]
    assert titles == [
        "Call MCP tool pid (server demo)",
        "[server] Call MCP tool fail (server demo)",
    ]
    assert asked[1].agent_name == "server"
    children = {c.spec.agent.name: c.child_id for c in session.subagents.children()}
    assert asked[1].child_session_id == children["server"]


def test_claude_style_names_pick_a_childs_mcp_tools() -> None:
    from pi_lsp.mcp.toolset import tool_allowed

    assert tool_allowed("mcp__demo__pid", None)
    assert tool_allowed("mcp__demo__pid", ("read", "mcp__demo__pid"))
    assert not tool_allowed("mcp__demo__sleep", ("read", "mcp__demo__pid"))
    assert tool_allowed("mcp__demo__sleep", ("mcp__demo",))  # a whole server
    assert tool_allowed("mcp__demo__sleep", ("mcp__demo__*",))
    assert not tool_allowed("mcp__demo2__sleep", ("mcp__demo",))
    assert not tool_allowed("mcp__demo__sleep", None, ("mcp__demo__sleep",))  # disallowed
    assert not tool_allowed("mcp__demo__pid", ("read",))
    # a Claude name with characters our names replace still finds the tool
    assert tool_allowed("mcp__my_server__get_time", ("mcp__my.server__get.time",))
    assert tool_allowed("mcp__my_server__get_time", ("mcp__my.server",))


def test_behind_the_parents_proxy_a_child_sees_only_its_tools() -> None:
    from types import SimpleNamespace

    from pi_lsp.mcp.tools import McpProxyTool
    from pi_lsp.mcp.toolset import child_mcp_tools

    listed = [SimpleNamespace(name=n) for n in ("mcp__demo__pid", "mcp__demo__sleep")]
    proxy = McpProxyTool(lambda: listed)  # type: ignore[arg-type,return-value]
    assert child_mcp_tools([proxy], None) == [proxy]  # all of them: the parent's own proxy
    assert child_mcp_tools([proxy], ("read",)) == []  # no MCP tool: no proxy
    [mine] = child_mcp_tools([proxy], ("mcp__demo__pid",))
    assert isinstance(mine, McpProxyTool)
    assert mine.find("mcp__demo__pid") is listed[0]
    assert mine.find("mcp__demo__sleep") is None
