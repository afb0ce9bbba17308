"""Sessions over ACP (agent served in the test's process): list, resume (no replay), close,
a load refused because another process holds the session (the directory untouched), and
``/compact`` (an advertised command)."""

from __future__ import annotations

from pathlib import Path

import acp
import pytest

from tests.lsp.openai_sse import response, text_events
from tests.support.http_server import ScriptedHTTPServer

from .harness import Profile, in_process

pytestmark = pytest.mark.timeout(90)


async def test_list_resume_and_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, profile: Profile
) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("First answer.")))
        srv.enqueue(response(text_events("Second answer.")))
        async with in_process(tmp_path, srv.url, monkeypatch, profile=profile) as agent:
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "remember the number 42") == "end_turn"
            listed = await agent.conn.list_sessions(cwd=str(agent.cwd))
            assert [s.session_id for s in listed.sessions] == [sid]
            assert listed.sessions[0].title == "remember the number 42"
            assert listed.sessions[0].cwd == str(agent.cwd)
            await agent.conn.close_session(session_id=sid)
            with pytest.raises(acp.RequestError):
                await agent.prompt(sid, "closed?")
        async with in_process(tmp_path, srv.url, monkeypatch, profile=profile) as again:
            await again.init()
            res = await again.conn.resume_session(
                cwd=str(again.cwd), session_id=sid, mcp_servers=[]
            )
            assert res.config_options
            assert again.client.of("user_message_chunk") == []  # resume does not replay
            assert await again.prompt(sid, "which number?") == "end_turn"
            sent = str(srv.requests[1].json["messages"])
            assert "remember the number 42" in sent
            assert "First answer." in sent
            with pytest.raises(acp.RequestError) as missing:
                await again.conn.load_session(
                    cwd=str(again.cwd), session_id="0000-not-a-session", mcp_servers=[]
                )
            assert missing.value.code == -32002


def _session_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.jsonl"))}


async def test_a_refused_load_leaves_the_sessions_directory_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, profile: Profile
) -> None:
    data = tmp_path / "data"
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("Hi.")))
        srv.enqueue(response(text_events("Yes.")))
        async with in_process(tmp_path, srv.url, monkeypatch, profile=profile) as first:
            await first.init()
            sid = await first.new()
            assert await first.prompt(sid, "hello") == "end_turn"
            before = _session_files(data)
            assert len(before) == 1
            # another editor window (its own lock on the file) tries to load it
            async with in_process(tmp_path, srv.url, monkeypatch, profile=profile) as second:
                await second.init()
                with pytest.raises(acp.RequestError) as held:
                    await second.conn.load_session(
                        cwd=str(second.cwd), session_id=sid, mcp_servers=[]
                    )
                assert held.value.code == -32602
                assert "another process" in str(held.value.data)
                assert _session_files(data) == before  # no copy left behind
                listed = await second.conn.list_sessions(cwd=str(second.cwd))
                assert [s.session_id for s in listed.sessions] == [sid]
            assert await first.prompt(sid, "still mine?") == "end_turn"
        assert _session_files(data).keys() == before.keys()


async def test_the_compact_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with ScriptedHTTPServer() as srv:
        long = "an answer worth keeping " * 5000  # ≈ 30k tokens: more than compaction keeps
        srv.enqueue(response(text_events(long)))
        srv.enqueue(response(text_events("A second long answer. " + long)))
        srv.enqueue(response(text_events("## Goal\nSummary of the conversation.")))
        srv.enqueue(response(text_events("## Turn\nSummary of the turn's start.")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            await agent.init()
            sid = await agent.new()
            await agent.client.wait_for(lambda: bool(agent.client.of("available_commands_update")))
            names = [
                c.name for c in agent.client.of("available_commands_update")[0].available_commands
            ]
            assert names == ["compact", "context", "export", "reload", "review"]
            assert await agent.prompt(sid, "hello") == "end_turn"
            assert await agent.prompt(sid, "and again") == "end_turn"
            assert await agent.prompt(sid, "/compact keep the answer") == "end_turn"
            assert agent.client.text(sid).endswith("The conversation was compacted.")
            assert "keep the answer" in str(srv.requests[2].json["messages"])


async def test_an_empty_prompt_asks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with ScriptedHTTPServer() as srv, in_process(tmp_path, srv.url, monkeypatch) as agent:
        await agent.init()
        sid = await agent.new()
        res = await agent.conn.prompt(session_id=sid, prompt=[])
        assert res.stop_reason == "end_turn"
        assert await agent.prompt(sid, "   ") == "end_turn"
        assert srv.requests == []


async def test_loading_a_session_logs_no_wrong_model(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    profile: Profile,
) -> None:
    """``session/load`` logged "… used openai-compatible/test-model; continuing with
    unknown/unknown" though the model was right afterwards."""
    caplog.set_level("INFO", logger="pi_lsp")
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("Hi.")))
        async with in_process(tmp_path, srv.url, monkeypatch, profile=profile) as agent:
            await agent.init()
            sid = await agent.new()
            assert await agent.prompt(sid, "hello") == "end_turn"
        async with in_process(tmp_path, srv.url, monkeypatch, profile=profile) as again:
            await again.init()
            res = await again.conn.load_session(cwd=str(again.cwd), session_id=sid, mcp_servers=[])
            model = next(o for o in res.config_options if getattr(o, "id", None) == "model")
            assert model.current_value == "openai-compatible/test-model"
    assert "continuing with" not in caplog.text
    assert "unknown/unknown" not in caplog.text
