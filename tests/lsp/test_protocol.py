"""The wire contract's edges: bad requests, commands, code actions, settings, progress.

In the in-process tier (``pi_in_process``: the server in the test's event loop over a pipe
pair); only the stdio start-up answer is checked against a real process (``e2e``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import client_capabilities

from .conftest import Start
from .harness import NVIM_07, VSCODE, make_client, text_reply, uri_of, write_script


def faux(tmp_path: Path, *responses: dict[str, Any], **extra: Any) -> dict[str, Any]:
    script = write_script(tmp_path / "script.json", list(responses))
    return {"provider": "faux", "fauxScript": str(script), **extra}


async def error_of(h: Any, method: str, params: Any) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as info:
        await h.call(method, params)
    return info.value


async def test_bad_requests_get_errors_and_the_server_keeps_serving(
    pi_in_process: Start, tmp_path: Path
) -> None:
    h = await pi_in_process(pi=faux(tmp_path, text_reply("still here")))
    err = await error_of(h, "pi/nonsense", {})
    assert err.code == -32601
    err = await error_of(h, "pi/prompt", {"txt": "typo"})
    assert err.code == -32602
    assert "text" in err.message
    err = await error_of(h, "pi/prompt", {"text": 42})
    assert err.code == -32602
    assert "text" in err.message
    err = await error_of(h, "pi/prompt", {"text": "x", "deliverAs": "later"})
    assert err.code == -32602
    assert "deliverAs" in err.message
    err = await error_of(h, "pi/state", {"sessionId": "no-such-session"})
    assert err.code == -32602
    assert "no-such-session" in err.message
    err = await error_of(h, "pi/replay", {"afterSeq": 0})
    assert err.code == -32602
    assert "sessionId" in err.message
    err = await error_of(h, "pi/forkSession", {"sessionId": "nope", "entryId": "x"})
    assert err.code == -32602
    err = await error_of(h, "pi/prompt", [1, 2])
    assert err.code == -32602
    sid = await h.run("are you alive?")
    end = await h.wait_event(sid, "agent_end")
    assert end["messages"][-1]["content"][0]["text"] == "still here"


async def test_execute_command_drives_the_agent(pi_in_process: Start, tmp_path: Path) -> None:
    h = await pi_in_process(pi=faux(tmp_path, text_reply("from a command")))
    result = await h.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="pi.prompt", arguments=[{"text": "hello"}])
    )
    sid = result["sessionId"]
    assert result["delivered"] == "prompt"
    await h.wait_event(sid, "agent_end")
    new = await h.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="pi.newSession", arguments=[{}])
    )
    assert new["sessionId"] != sid
    aborted = await h.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="pi.abort", arguments=[])
    )
    assert aborted == {"aborted": False}


@pytest.mark.e2e
async def test_initialize_advertises_commands_and_code_actions(
    tmp_path: Path, workspace: Path, data_dir: Path
) -> None:
    client = make_client()
    await client.start_io(
        sys.executable, "-m", "pi_lsp", env={**os.environ, "PI_LSP_DATA_DIR": str(data_dir)}
    )
    try:
        result = await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities(VSCODE), root_uri=uri_of(workspace)
            )
        )
        caps = result.capabilities
        assert caps.execute_command_provider is not None
        assert set(caps.execute_command_provider.commands) == {
            "pi.prompt",
            "pi.steer",
            "pi.followUp",
            "pi.abort",
            "pi.newSession",
            "pi.codeReview",  # docs/review.md
            "pi.dismissFinding",
        }
        assert caps.code_action_provider
        assert caps.text_document_sync is not None
        await client.shutdown_session()
    finally:
        await client.stop()


async def test_code_actions_start_a_prompt_with_the_selection(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(pi=faux(tmp_path, text_reply("explained")))
    uri = h.open(workspace / "a.py")
    sel = {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 12}}
    empty = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
    doc = {"uri": uri}
    actions = await h.raw_call(
        "textDocument/codeAction",
        {"textDocument": doc, "range": sel, "context": {"diagnostics": []}},
    )
    assert [a["title"] for a in actions] == ["Ask pi to fix this", "Explain this"]
    command = actions[1]["command"]
    result = await h.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command["command"], arguments=command["arguments"])
    )
    end = await h.wait_event(result["sessionId"], "agent_end")
    prompt = end["messages"][0]["content"][0]["text"]
    assert prompt.startswith("Explain the selected code.")
    assert "`a.py` (line 2)" in prompt
    assert "return 1" in prompt
    assert "def f" not in prompt
    none = await h.raw_call(
        "textDocument/codeAction",
        {"textDocument": doc, "range": empty, "context": {"diagnostics": []}},
    )
    assert not none
    diag = {"range": sel, "message": "undefined name 'x'", "source": "pyflakes"}
    fixes = await h.raw_call(
        "textDocument/codeAction",
        {
            "textDocument": doc,
            "range": empty,
            "context": {"diagnostics": [diag], "only": ["quickfix"]},
        },
    )
    (fix,) = fixes
    assert fix["kind"] == "quickfix"
    assert fix["diagnostics"][0]["message"] == "undefined name 'x'"
    assert "undefined name 'x'" in fix["command"]["arguments"][0]["text"]
    (attached,) = fix["command"]["arguments"][0]["attachments"]
    assert attached["diagnostics"]["uri"] == uri
    assert attached["diagnostics"]["items"][0]["range"] == sel


async def test_prompt_with_whole_file_context(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(pi=faux(tmp_path, text_reply("seen")))
    uri = h.open(workspace / "a.py", "print('unsaved')\n")
    sid = await h.run("what is this?", context={"uri": uri})
    end = await h.wait_event(sid, "agent_end")
    prompt = end["messages"][0]["content"][0]["text"]
    assert "The file `a.py`:" in prompt
    assert "print('unsaved')" in prompt


async def test_bad_settings_are_reported_and_defaults_kept(
    pi_in_process: Start, tmp_path: Path
) -> None:
    settings = faux(
        tmp_path,
        text_reply("ok"),
        thinkingLevel="ludicrous",
        colour="blue",
        permissions={"bash": "sometimes"},
    )
    h = await pi_in_process(pi=settings)
    errors = await h.wait_for(
        lambda: (
            len([m for m in h.client.messages if m.type == types.MessageType.Error]) >= 2
            and [m.message for m in h.client.messages]
        )
    )
    assert any("pi.thinkingLevel" in m for m in errors)
    assert any("pi.permissions.bash" in m for m in errors)
    logs = await h.wait_for(
        lambda: [m.message for m in h.client.log_messages if "unknown settings" in m.message]
    )
    assert "pi.colour" in logs[0]
    sid = await h.run("still works")
    state = await h.call("pi/state", {"sessionId": sid})
    assert state["model"]["provider"] == "faux"


async def test_configuration_is_read_and_re_read(pi_in_process: Start, tmp_path: Path) -> None:
    first = write_script(tmp_path / "one.json", [text_reply("script one")])
    second = write_script(tmp_path / "two.json", [text_reply("script two")])
    h = await pi_in_process(
        pi={"provider": "faux"}, configuration={"pi": {"fauxScript": str(first)}}
    )
    sid = await h.run("a")
    assert h.session_events(sid)[-1]["event"]["messages"][-1]["content"][0]["text"] == "script one"
    h.client.set_configuration({"pi": {"fauxScript": str(second), "thinkingLevel": "bogus"}})
    h.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await h.wait_for(lambda: any("pi.thinkingLevel" in m.message for m in h.client.messages))
    sid2 = (await h.call("pi/newSession"))["sessionId"]
    await h.run("b", sessionId=sid2)
    assert h.session_events(sid2)[-1]["event"]["messages"][-1]["content"][0]["text"] == "script two"


async def test_settings_pushed_without_workspace_configuration(
    pi_in_process: Start, tmp_path: Path
) -> None:
    script = write_script(tmp_path / "pushed.json", [text_reply("pushed")])
    h = await pi_in_process(capabilities=NVIM_07, pi={"provider": "faux"})
    h.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"pi": {"provider": "faux", "fauxScript": str(script)}}
        )
    )
    await h.call("pi/sessions")  # processed after the notification
    sid = await h.run("x")
    assert h.session_events(sid)[-1]["event"]["messages"][-1]["content"][0]["text"] == "pushed"


async def test_missing_provider_is_a_clear_error(pi_in_process: Start) -> None:
    h = await pi_in_process(
        pi={}, env={"OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "ANTHROPIC_OAUTH_TOKEN": ""}
    )
    err = await error_of(h, "pi/prompt", {"text": "hi"})
    assert err.code == -32803
    assert "pi.provider" in err.message
    shown = await h.wait_for(
        lambda: [m for m in h.client.messages if m.type == types.MessageType.Error]
    )
    assert "pi.provider" in shown[0].message


async def test_work_done_progress(pi_in_process: Start, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.json",
        [
            {"content": [{"type": "toolCall", "name": "read", "arguments": {"path": "a.py"}}]},
            text_reply("done"),
        ],
    )
    h = await pi_in_process(pi={"provider": "faux", "fauxScript": str(script)})
    await h.run("go")

    def ended() -> Any:
        for reports in h.client.progress_reports.values():
            if reports and isinstance(reports[-1], types.WorkDoneProgressEnd):
                return reports
        return None

    reports = await h.wait_for(ended)
    begin = reports[0]
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert begin.title == "pi"
    # reports made before the client answered the create request are folded into begin
    messages = [begin.message] + [r.message for r in reports[1:-1]]
    assert "turn 1 · read a.py" in messages
    assert "turn 2" in messages
    assert reports[-1].message == "done"


async def test_no_progress_without_client_support(pi_in_process: Start, tmp_path: Path) -> None:
    caps = client_capabilities(VSCODE)
    assert caps.window is not None
    caps.window.work_done_progress = False  # eglot 1.9 declares none
    h = await pi_in_process(capabilities=caps, pi=faux(tmp_path, text_reply("ok")))
    await h.run("go")
    await h.call("pi/sessions")
    assert h.client.progress_reports == {}


async def test_prompt_with_an_image(pi_in_process: Start, tmp_path: Path) -> None:
    h = await pi_in_process(pi=faux(tmp_path, text_reply("a red pixel")))
    pixel = (
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJ"
        "RU5ErkJggg=="
    )
    sid = await h.run("what is this?", images=[{"data": pixel, "mimeType": "image/png"}])
    end = await h.wait_event(sid, "agent_end")
    content = end["messages"][0]["content"]
    assert content[0] == {"type": "text", "text": "what is this?"}
    assert content[1] == {"type": "image", "data": pixel, "mimeType": "image/png"}
