"""Tool calls as an ACP client sees them, live and after ``session/load``: statuses, kinds,
locations, diffs (``oldText`` null for a new file), the bash output (terminal deltas for a
client that opted in to Zed's terminal extension, ``content`` text for any other); edits
through the client's ``fs/*`` exactly when it advertised them. The agent is served in the
test's process (``in_process``), under both client profiles."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.openai_sse import response, text_events, tool_events
from tests.support.http_server import ScriptedHTTPServer

from .harness import Profile, fs_caps, in_process

pytestmark = pytest.mark.timeout(90)


def _script(srv: ScriptedHTTPServer) -> None:
    srv.enqueue(
        response(
            tool_events(
                [
                    ("write", {"path": "new.txt", "content": "fresh\n"}),
                    (
                        "edit",
                        {"path": "old.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]},
                    ),
                    ("bash", {"command": "echo out-one; echo out-two"}),
                    ("read", {"path": "old.txt", "offset": 2}),
                ],
                text="Working.",
            )
        )
    )
    srv.enqueue(response(text_events("All done.")))


def _final(updates: list[Any]) -> dict[str, Any]:
    """The fields of a tool call as a client ends up showing it."""
    shown: dict[str, Any] = {}
    for u in updates:
        for key in ("title", "kind", "status", "locations", "content"):
            value = getattr(u, key, None)
            if value is not None:
                shown[key] = value
    return shown


async def test_tool_calls_live_and_replayed_on_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, profile: Profile
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "old.txt").write_text("alpha\nbeta\ngamma\n")
    async with ScriptedHTTPServer() as srv:
        _script(srv)
        async with in_process(tmp_path, srv.url, monkeypatch, "--yes", profile=profile) as agent:
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "do the four things") == "end_turn"
            live = {
                name: agent.client.tool_updates(f"call_{i}_{name}")
                for i, name in enumerate(["write", "edit", "bash", "read"])
            }
        assert (work / "new.txt").read_text() == "fresh\n"
        assert (work / "old.txt").read_text() == "alpha\nBETA\ngamma\n"

        for name, updates in live.items():
            statuses = [u.status for u in updates if u.status is not None]
            assert statuses[0] == "pending", name
            assert statuses[-2:] == ["in_progress", "completed"], (name, statuses)
            assert updates[0].session_update == "tool_call"
        shown = {name: _final(updates) for name, updates in live.items()}
        assert shown["write"]["kind"] == "edit"
        assert shown["write"]["title"] == "Write new.txt"
        diff = shown["write"]["content"][0]
        assert diff.type == "diff"
        assert diff.old_text is None
        assert diff.new_text == "fresh\n"
        assert diff.path == str(work / "new.txt")
        edit = shown["edit"]["content"][0]
        assert (edit.type, edit.old_text, edit.new_text) == ("diff", "beta", "BETA")
        assert shown["edit"]["locations"][0].line == 2
        assert shown["bash"]["kind"] == "execute"
        output = agent.client.shown_output("call_2_bash")  # what this client renders
        assert output.count("out-one") == 1
        assert "out-two" in output
        if profile.terminal_output:
            assert shown["bash"]["content"][0].type == "terminal"
            assert any("terminal_exit" in (u.field_meta or {}) for u in live["bash"])
        else:  # no terminal that was never created, no output only in _meta
            assert [c.type for c in shown["bash"]["content"]] == ["content"]
            assert shown["bash"]["content"][0].content.text.startswith("```\nout-one\nout-two")
            assert all(u.field_meta is None for u in live["bash"])
            assert all(c.type == "content" for u in live["bash"] if u.content for c in u.content)
        assert shown["read"]["kind"] == "read"
        assert shown["read"]["locations"][0].line == 2

        # a new process loads the session: the same tool calls, before the response (the
        # client watching everything: CodeCompanion drops a replay, no prompt is outstanding)
        watching = dataclasses.replace(profile, only_during_prompts=False)
        async with in_process(tmp_path, srv.url, monkeypatch, profile=watching) as again:
            await again.init()
            await again.conn.load_session(cwd=str(work), session_id=sid, mcp_servers=[])
            order = again.validator.updates_then_response("session/load")
            assert order.index("response") > order.index("update:tool_call_update")
            assert again.client.text(sid, "user_message_chunk") == "do the four things"
            assert again.client.text(sid) == "Working.All done."
            for i, name in enumerate(["write", "edit", "bash", "read"]):
                replayed = again.client.tool_updates(f"call_{i}_{name}")
                assert [u.session_update for u in replayed] == ["tool_call", "tool_call_update"]
                got, want = _final(replayed), shown[name]
                for key in ("title", "kind", "status", "locations", "content"):
                    assert got.get(key) == want.get(key), (name, key)
            live_ids = {c.message_id for c in agent.client.of("agent_message_chunk", sid)}
            replay_ids = {c.message_id for c in again.client.of("agent_message_chunk", sid)}
            assert replay_ids == live_ids  # stable message ids


@pytest.mark.parametrize("delegate", [True, False])
async def test_edits_go_through_the_clients_fs_only_when_advertised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, delegate: bool
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "old.txt").write_text("alpha\nbeta\n")
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(
            response(
                tool_events(
                    [
                        (
                            "edit",
                            {"path": "old.txt", "edits": [{"oldText": "beta", "newText": "B"}]},
                        ),
                        ("write", {"path": "sub/new.txt", "content": "n\n"}),
                    ]
                )
            )
        )
        srv.enqueue(response(text_events("ok")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init(fs_caps(delegate))
            sid = await agent.new()
            assert await agent.prompt(sid, "edit") == "end_turn"
            writes = dict(agent.client.fs_writes)
            reads = agent.client.fs_reads
    assert (work / "old.txt").read_text() == "alpha\nB\n"
    assert (work / "sub" / "new.txt").read_text() == "n\n"
    if delegate:
        assert writes == {str(work / "old.txt"): "alpha\nB\n", str(work / "sub/new.txt"): "n\n"}
        assert str(work / "old.txt") in reads
    else:
        assert writes == {}
        assert reads == []
