"""``RunConfig`` → ``create_agent_session``: the one way a front end gets a session.

Real parts: a faux script on disk, the scripted HTTP server on 127.0.0.1 for the provider,
a ``DiskWorkspace`` over a temporary directory, real session files.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from pi_lsp.ai import AssistantMessage, TextContent
from pi_lsp.runtime import (
    ConfigError,
    FauxScriptError,
    McpServerConfig,
    MissingKeyError,
    NoProviderError,
    RunConfig,
    SessionOptions,
    UnknownModelError,
    check_config,
    create_agent_session,
    new_session_id,
)
from pi_lsp.sessions import SessionStore
from pi_lsp.sessions.events import ProviderRetryEvent
from pi_lsp.tools.disk_workspace import DiskWorkspace
from pi_lsp.tools.workspace import ToolCallContext
from tests.lsp.openai_sse import error, response, text_events
from tests.support.http_server import ScriptedHTTPServer

NO_KEYS = {"ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": ""}


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def script(path: Path, *texts: str) -> str:
    path.write_text(
        json.dumps({"responses": [{"content": [{"type": "text", "text": t}]} for t in texts]}),
        encoding="utf-8",
    )
    return str(path)


def last_text(messages: Sequence[Any]) -> str:
    last = next(m for m in reversed(messages) if isinstance(m, AssistantMessage))
    return "".join(b.text for b in last.content if isinstance(b, TextContent))


def test_run_config_is_frozen_and_rejects_unknown_fields() -> None:
    config = RunConfig(provider="faux")
    with pytest.raises(ValidationError):
        config.provider = "openai"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        RunConfig(providr="openai")  # type: ignore[call-arg]
    server = McpServerConfig(name="fs", transport="stdio", command="mcp-fs")
    assert RunConfig(mcp_servers=(server,)).mcp_servers[0].name == "fs"
    assert RunConfig().mcp_servers == ()


async def test_a_faux_script_session_answers_and_is_saved(tmp_path: Path) -> None:
    path = script(tmp_path / "s.json", "hello from the script")
    store = SessionStore(tmp_path / "sessions", tmp_path)
    session = create_agent_session(
        RunConfig(provider="faux", faux_script=path, thinking="low"),
        DiskWorkspace([tmp_path]),
        file=store.create(),
    )
    try:
        await session.prompt("hi")
        await session.wait_for_idle()
        assert last_text(session.messages) == "hello from the script"
        assert session.agent.state.thinking_level == "low"
        assert session.file is not None
        assert session.file.is_persisted
    finally:
        await session.aclose()
        session.close()


def test_errors_name_the_field_to_fix(tmp_path: Path) -> None:
    with pytest.raises(NoProviderError) as no_provider:
        check_config(RunConfig())
    assert no_provider.value.field == "provider"
    with pytest.raises(ConfigError) as no_url:
        check_config(RunConfig(provider="openai-compatible"))
    assert no_url.value.field == "base_url"
    with pytest.raises(FauxScriptError) as bad_script:
        check_config(RunConfig(provider="faux", faux_script=str(tmp_path / "none.json")))
    assert bad_script.value.path.endswith("none.json")
    with pytest.raises(MissingKeyError) as no_key:
        check_config(RunConfig(provider="openai"), need_key=True)
    assert no_key.value.variable == "OPENAI_API_KEY"
    check_config(RunConfig(provider="openai"))  # the key is only needed when asked for


def test_a_config_that_does_not_resolve_still_makes_a_session(tmp_path: Path) -> None:
    """The language server makes a session at once and reports a bad setting when a run is
    asked for: ``configure`` raises, and nothing of the session changed."""
    session = create_agent_session(RunConfig(), DiskWorkspace([tmp_path]))
    try:
        with pytest.raises(NoProviderError):
            session.configure()
        path = script(tmp_path / "s.json", "ok")
        session.configure(RunConfig(provider="faux", faux_script=path))
        assert session.model.provider == "faux"
        with pytest.raises(ConfigError):
            session.configure(RunConfig(provider="openai-compatible"))
        assert session.config.faux_script == path  # the last good config stays
    finally:
        session.close()


def test_select_model_keeps_the_choice_across_configs(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions", tmp_path)
    file = store.create()
    config = RunConfig(provider="openai", api_key_env="MY_KEY")
    session = create_agent_session(config, DiskWorkspace([tmp_path]), file=file)
    with pytest.raises(UnknownModelError):
        session.select_model("openai", "no-such-model", None)
    with pytest.raises(ValueError, match="thinking level"):
        session.select_model("openai", "gpt-4o-mini", "extreme")
    session.select_model("anthropic", "claude-sonnet-4-5", "high")
    session.configure(RunConfig(provider="openai", model="gpt-4o"))
    assert (session.model.provider, session.model.id) == ("anthropic", "claude-sonnet-4-5")
    assert session.agent.state.thinking_level == "high"
    # the configured key variable names the configured provider's key only
    assert session.agent.stream_options is not None
    assert session.agent.stream_options.api_key_env is None
    file.flush()
    session.close()

    reopened, _ = store.open_for_writing(file.session_id)
    resumed = create_agent_session(config, DiskWorkspace([tmp_path]), file=reopened, resume=True)
    assert (resumed.model.provider, resumed.model.id) == ("anthropic", "claude-sonnet-4-5")
    resumed.close()


def test_the_config_reaches_the_model_and_the_requests(tmp_path: Path) -> None:
    session = create_agent_session(
        RunConfig(
            provider="openai-compatible",
            base_url="http://127.0.0.1:9/v1",
            model="local",
            context_window=4096,
            max_tokens=256,
            read_timeout=2.5,
            tool_execution="sequential",
            steering_mode="all",
        ),
        DiskWorkspace([tmp_path]),
    )
    agent = session.agent
    assert (session.model.id, session.model.context_window) == ("local", 4096)
    assert agent.stream_options is not None
    assert (agent.stream_options.max_tokens, agent.stream_options.timeout_ms) == (256, 2500)
    assert (agent.tool_execution, agent.steering_mode) == ("sequential", "all")
    session.close()


async def test_provider_retries_reach_the_listeners_as_session_events(tmp_path: Path) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(error(503, "busy", **{"retry-after-ms": "1"}))
        srv.enqueue(response(text_events("after a retry")))
        session = create_agent_session(
            RunConfig(provider="openai-compatible", base_url=srv.url + "/v1", model="m"),
            DiskWorkspace([tmp_path]),
        )
        seen: list[Any] = []
        session.subscribe(seen.append)
        try:
            await session.prompt("hi")
            await session.wait_for_idle()
        finally:
            await session.aclose()
            session.close()
    retries = [e for e in seen if isinstance(e, ProviderRetryEvent)]
    assert [(r.attempt, r.type) for r in retries] == [(1, "retry")]
    assert "busy" in retries[0].error_message
    assert last_text(session.messages) == "after a retry"


class _RecordingWorkspace(DiskWorkspace):
    def __init__(self, root: Path) -> None:
        super().__init__([root])
        self.contexts: list[ToolCallContext | None] = []

    async def write_document(
        self, path: Path, text: str, *, label: str, context: ToolCallContext | None = None
    ) -> None:
        self.contexts.append(context)
        await super().write_document(path, text, label=label, context=context)


async def test_a_change_names_its_session_tool_call_and_run_signal(tmp_path: Path) -> None:
    """Which run an edit belongs to is an argument (``ToolCallContext``), not ambient state."""
    path = tmp_path / "s.json"
    path.write_text(
        json.dumps(
            {
                "responses": [
                    {
                        "content": [
                            {
                                "type": "toolCall",
                                "id": "call-1",
                                "name": "write",
                                "arguments": {"path": "a.txt", "content": "x"},
                            }
                        ]
                    },
                    {"content": [{"type": "text", "text": "done"}]},
                ]
            }
        ),
        encoding="utf-8",
    )
    workspace = _RecordingWorkspace(tmp_path)
    session = create_agent_session(RunConfig(provider="faux", faux_script=str(path)), workspace)
    try:
        await session.prompt("write it")
        await session.wait_for_idle()
    finally:
        session.close()
    [context] = workspace.contexts
    assert context is not None
    assert (context.session_id, context.tool_call_id) == (session.session_id, "call-1")
    assert context.signal is not None
    assert (tmp_path / "a.txt").read_text() == "x"


async def test_resuming_logs_the_model_it_continues_with(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Resuming said "used faux/…; continuing with unknown/unknown" every time: it compared
    the saved model with the agent's placeholder before the config was applied."""
    path = script(tmp_path / "s.json", "saved answer")
    store = SessionStore(tmp_path / "sessions", tmp_path)
    config = RunConfig(provider="faux", faux_script=path)
    session = create_agent_session(config, DiskWorkspace([tmp_path]), file=store.create())
    await session.prompt("hi")
    await session.wait_for_idle()
    used = f"{session.model.provider}/{session.model.id}"
    session_id = session.session_id
    await session.aclose()
    session.close()

    caplog.set_level("INFO", logger="pi_lsp")
    again = create_agent_session(
        config, DiskWorkspace([tmp_path]), file=store.open(session_id), resume=True
    )
    again.close()
    assert "continuing with" not in caplog.text  # the same model: nothing to say
    assert "unknown" not in caplog.text

    other = RunConfig(provider="openai-compatible", base_url="http://127.0.0.1:9/v1", model="m")
    moved = create_agent_session(
        other, DiskWorkspace([tmp_path]), file=store.open(session_id), resume=True
    )
    moved.close()
    assert f"session {session_id} used {used}; continuing with openai-compatible/m" in caplog.text
    assert "unknown/unknown" not in caplog.text


async def test_a_session_is_built_in_one_call_with_its_id_made_first(tmp_path: Path) -> None:
    """The id exists before the session (its asks carry it): the session takes it, and the
    before-run hooks given with it run at the start of each run, with the session."""
    session_id = new_session_id()
    ran: list[Any] = []

    async def before_run(session: Any) -> None:
        ran.append(session)

    path = script(tmp_path / "s.json", "hello")
    session = create_agent_session(
        RunConfig(provider="faux", faux_script=path),
        DiskWorkspace([tmp_path]),
        options=SessionOptions(session_id=session_id, before_run=(before_run,)),
    )
    try:
        assert session.session_id == session_id
        assert session.tree.session_id == session_id
        await session.prompt("hi")
        await session.wait_for_idle()
        assert ran == [session]
    finally:
        await session.aclose()
        session.close()
    file = SessionStore(tmp_path / "sessions", tmp_path).create()
    with pytest.raises(ValueError, match="not the file's"):
        create_agent_session(
            RunConfig(), DiskWorkspace([tmp_path]), file=file, options=SessionOptions("other")
        )
    file.close()
