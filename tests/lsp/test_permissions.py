"""bash asks first (docs/protocol.md#5-permissions): Allow / Always allow / Deny, a dismissed prompt
or a client error is a deny, settings skip the prompt; abort answers a pending prompt and kills
running commands; steering typed while a tool runs reaches the next turn."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError

from .conftest import Start
from .harness import Harness, text_reply, tool_reply, write_script


def faux(tmp_path: Path, *responses: dict[str, Any], **extra: Any) -> dict[str, Any]:
    script = write_script(tmp_path / "script.json", list(responses))
    return {"provider": "faux", "fauxScript": str(script), **extra}


def bash(command: str) -> dict[str, Any]:
    return tool_reply("bash", {"command": command})


def text_of(end: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in end["result"]["content"])


async def run_with_answer(h: Harness, answer: Any) -> str:
    await h.prompt_answers.put(answer)
    return await h.run("run it")


@pytest.mark.parametrize("answer", ["Deny", None, JsonRpcInternalError("no UI here")])
async def test_deny_dismiss_or_error_blocks_the_command(
    pi_in_process: Start, tmp_path: Path, workspace: Path, answer: Any
) -> None:
    h = await pi_in_process(pi=faux(tmp_path, bash("touch ran.txt"), text_reply("ok")))
    sid = await run_with_answer(h, answer)
    (end,) = h.tool_ends(sid)
    assert end["isError"] is True
    assert "denied" in text_of(end)
    assert not (workspace / "ran.txt").exists()
    (prompt,) = h.prompts
    assert prompt.type == types.MessageType.Warning
    assert "touch ran.txt" in prompt.message
    assert [a.title for a in prompt.actions or []] == [
        "Allow",
        "Always allow",
        'Always allow "touch" in this workspace',
        "Deny",
    ]


async def test_allow_runs_it_once(pi_in_process: Start, tmp_path: Path, workspace: Path) -> None:
    h = await pi_in_process(
        pi=faux(tmp_path, bash("echo hi > ran.txt"), bash("echo again > two.txt"), text_reply("ok"))
    )
    await h.prompt_answers.put("Allow")
    await h.prompt_answers.put("Deny")
    sid = await h.run("run")
    ends = h.tool_ends(sid)
    assert [e["isError"] for e in ends] == [False, True]
    assert (workspace / "ran.txt").read_text() == "hi\n"
    assert len(h.prompts) == 2


async def test_always_allow_holds_for_the_session(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(
        pi=faux(
            tmp_path,
            bash("echo 1 > one.txt"),
            bash("echo 2 > two.txt"),
            text_reply("ok"),
            bash("echo 3 > three.txt"),
            text_reply("ok"),
        )
    )
    await h.prompt_answers.put("Always allow")
    sid = await h.run("run")
    await h.run("again", sessionId=sid)
    assert len(h.prompts) == 1
    assert all(not e["isError"] for e in h.tool_ends(sid))
    assert (workspace / "three.txt").exists()
    # another session (replaying the script from the start) asks again
    other = (await h.call("pi/newSession"))["sessionId"]
    await h.prompt_answers.put("Deny")
    await h.prompt_answers.put("Deny")
    await h.run("run", sessionId=other)
    assert len(h.prompts) == 3


@pytest.mark.parametrize(("mode", "ran"), [("allow", True), ("deny", False)])
async def test_settings_skip_the_prompt(
    pi_in_process: Start, tmp_path: Path, workspace: Path, mode: str, ran: bool
) -> None:
    h = await pi_in_process(
        pi=faux(tmp_path, bash("touch ran.txt"), text_reply("ok"), permissions={"bash": mode})
    )
    sid = await h.run("run")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is (not ran)
    assert (workspace / "ran.txt").exists() is ran
    assert h.prompts == []
    if not ran:
        assert "settings" in text_of(end)


async def test_secrets_are_not_in_the_command_environment(pi: Start, tmp_path: Path) -> None:
    h = await pi(
        pi=faux(
            tmp_path,
            bash('echo "[$MY_MODEL_KEY][$OPENAI_API_KEY][$HARMLESS]"'),
            text_reply("ok"),
            permissions={"bash": "allow"},
            apiKeyEnv="MY_MODEL_KEY",
        ),
        env={"MY_MODEL_KEY": "k-123", "OPENAI_API_KEY": "sk-456", "HARMLESS": "visible"},
    )
    sid = await h.run("show env")
    (end,) = h.tool_ends(sid)
    assert "[][][visible]" in text_of(end)


async def test_abort_answers_a_pending_prompt_as_deny(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(pi=faux(tmp_path, bash("touch ran.txt"), text_reply("never")))
    sid = (await h.call("pi/prompt", {"text": "run"}))["sessionId"]
    await h.wait_for(lambda: h.prompts)
    assert await h.call("pi/abort", {"sessionId": sid}) == {"aborted": True}
    end = await h.wait_event(sid, "agent_end")
    assert end["messages"][-1]["stopReason"] == "aborted"
    assert not (workspace / "ran.txt").exists()
    await h.prompt_answers.put("Allow")  # too late: the server already gave up on it


async def test_abort_mid_bash_kills_the_process_group(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    command = "sleep 30 & echo child=$!; wait"
    h = await pi_in_process(
        pi=faux(tmp_path, bash(command), text_reply("never"), permissions={"bash": "allow"})
    )
    sid = (await h.call("pi/prompt", {"text": "run"}))["sessionId"]

    def child_pid() -> int | None:
        for e in h.session_events(sid):
            if e["event"]["type"] == "tool_execution_update":
                out = "".join(b.get("text", "") for b in e["event"]["partialResult"]["content"])
                if "child=" in out and out.strip().split("child=")[-1].strip().isdigit():
                    return int(out.strip().split("child=")[-1].strip())
        return None

    child = await h.wait_for(child_pid)
    assert await h.call("pi/abort", {"sessionId": sid}) == {"aborted": True}
    end = await h.wait_event(sid, "agent_end")
    (tool_end,) = h.tool_ends(sid)
    assert tool_end["isError"] is True
    assert "aborted" in text_of(tool_end).lower()
    assert end["messages"][-1]["stopReason"] == "aborted"
    await _gone(child)


async def _gone(pid: int) -> None:
    for _ in range(200):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        await asyncio.sleep(0.01)  # the kernel reaps it; not a synchronisation point
    raise AssertionError(f"process {pid} still alive")


async def test_steering_while_a_tool_runs(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    gated = "while [ ! -f go ]; do sleep 0.02; done; echo finished"
    h = await pi_in_process(
        pi=faux(tmp_path, bash(gated), text_reply("after the steer"), permissions={"bash": "allow"})
    )
    sid = (await h.call("pi/prompt", {"text": "wait for it"}))["sessionId"]
    await h.wait_event(sid, "tool_execution_start")
    steer = await h.call("pi/prompt", {"text": "stop waiting", "sessionId": sid})
    assert steer["delivered"] == "steer"
    (workspace / "go").write_text("")
    end = await h.wait_event(sid, "agent_end")
    roles = [m["role"] for m in end["messages"]]
    assert roles == ["user", "assistant", "toolResult", "user", "assistant"]
    assert end["messages"][3]["content"][0]["text"] == "stop waiting"
    (tool_end,) = h.tool_ends(sid)
    assert "finished" in text_of(tool_end)  # the tool ran to the end (no mid-batch poll)
