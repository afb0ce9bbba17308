"""Issue 11 / docs/protocol.md#8-permissions-that-stick over the real server: secrets out of the
shell's reach (with and without the sandbox), the wider scrub and its allow-list, one redaction path
for session files, long commands shown whole in shape, pi/requestPermission with rules that stick
across restarts and are matched part by part, deny reasons that reach the model, abort withdrawing a
pending question, and the bubblewrap sandbox (writes, network, fallback)."""

from __future__ import annotations

import asyncio
import json
import socket
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from pi_lsp.security.sandbox import Bubblewrap
from tests.support.http_server import ScriptedHTTPServer

from .conftest import Start, http_settings
from .harness import Harness, text_reply, tool_reply, write_script
from .openai_sse import response, text_events, tool_events

SANDBOX_PROBLEM = Bubblewrap().problem()
needs_sandbox = pytest.mark.skipif(
    SANDBOX_PROBLEM is not None, reason=f"no working sandbox: {SANDBOX_PROBLEM}"
)

SECRETS = {
    "OPENAI_API_KEY": "sk-test-provider-key-0123456789abcdef",
    "GITHUB_TOKEN": "ghp_" + "a1b2c3d4" * 5,
    "DATABASE_URL": "postgres://app:hunter2-db-pass@db.internal:5432/app",
    "PI_TEST_LLM": "zz-model-credential-4242-qwerty",  # named by apiKeyEnv only
}


def faux(tmp_path: Path, *responses: dict[str, Any], **extra: Any) -> dict[str, Any]:
    script = write_script(tmp_path / f"script-{uuid.uuid4().hex[:6]}.json", list(responses))
    return {"provider": "faux", "fauxScript": str(script), **extra}


def bash(command: str) -> dict[str, Any]:
    return tool_reply("bash", {"command": command})


def text_of(end: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in end["result"]["content"])


class Permissions:
    """The client side of ``pi/requestPermission``: records questions, answers from a queue,
    notes the ones the server withdrew (``$/cancelRequest``)."""

    def __init__(self, h: Harness) -> None:
        self.h = h
        self.requests: list[dict[str, Any]] = []
        self.answers: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.withdrawn: list[str] = []

        @h.client.feature("pi/requestPermission")
        async def on_request(params: Any) -> dict[str, Any]:
            self.requests.append(params)
            h._bump()
            try:
                return await self.answers.get()
            except asyncio.CancelledError:
                self.withdrawn.append(params["toolCallId"])
                h._bump()
                raise

    def answer(self, option_id: str, reason: str | None = None) -> None:
        self.answers.put_nowait({"optionId": option_id, **({"reason": reason} if reason else {})})


async def start_with_permissions(
    pi: Start, settings: dict[str, Any], **kw: Any
) -> tuple[Harness, Permissions]:
    settings = {**settings, "clientCapabilities": {"requestPermission": True}}
    h = await pi(pi=settings, **kw)
    return h, Permissions(h)


# ------------------------------------------------------------ finding 1: /proc/$PPID/environ

WALK_ANCESTORS = (
    'p=$PPID; while :; do echo "== $p"; tr "\\0" "\\n" < /proc/$p/environ; '
    '[ "$p" -le 1 ] && break; p=$(cut -d" " -f4 /proc/$p/stat); done; echo WALKED'
)


@pytest.mark.parametrize("mode", ["allow", pytest.param("sandbox", marks=needs_sandbox)])
async def test_no_secret_in_any_ancestor_environment(pi: Start, tmp_path: Path, mode: str) -> None:
    h = await pi(
        pi=faux(
            tmp_path,
            bash(WALK_ANCESTORS),
            text_reply("ok"),
            permissions={"bash": mode},
            apiKeyEnv="PI_TEST_LLM",
        ),
        env=SECRETS,
    )
    sid = await h.run("look around")
    (end,) = h.tool_ends(sid)
    out = text_of(end)
    assert "WALKED" in out, out
    if mode == "allow":
        assert "PI_LSP_DATA_DIR=" in out  # the server's environment was really read
    for value in SECRETS.values():
        assert value not in out
    assert "hunter2" not in out


# ---------------------------------------------------------------- finding 2: the env scrub


async def test_scrub_matches_names_and_values_and_honours_the_allow_list(
    pi_in_process: Start, tmp_path: Path
) -> None:
    env = {
        "AWS_ACCESS_KEY_ID": "AKIAABCDEFGHIJKLMNOP",
        "SERVICE_PRIVATE_KEY": "-----BEGIN PRIVATE KEY-----abc",
        "DB_PWD": "db-password-1",
        "SENTRY_DSN": "https://abc@o1.ingest.sentry.io/1",
        "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0/B0/xyz",
        "GCP_CREDENTIALS_JSON": "{}",
        "UPSTREAM": "https://deploy:s3cret-pass@git.example.com/repo.git",
        "SOMETHING": "ghp_" + "z9" * 15,
        "DATABASE_URL": SECRETS["DATABASE_URL"],
        "NPM_TOKEN": "npm-token-i-want",
        "HARMLESS": "visible-value",
    }
    h = await pi_in_process(
        pi=faux(
            tmp_path,
            bash("env"),
            text_reply("ok"),
            permissions={"bash": "allow", "envAllow": ["NPM_TOKEN"]},
        ),
        env=env,
    )
    sid = await h.run("env")
    out = text_of(h.tool_ends(sid)[0])
    names = {line.split("=", 1)[0] for line in out.splitlines() if "=" in line}
    for name in env:
        if name in ("HARMLESS", "NPM_TOKEN"):
            assert name in names
        else:
            assert name not in names, name
    assert "s3cret-pass" not in out
    assert "HARMLESS=visible-value" in out
    assert "NPM_TOKEN=npm-token-i-want" in out


async def test_a_bad_env_allow_value_is_reported(pi_in_process: Start, tmp_path: Path) -> None:
    h = await pi_in_process(pi=faux(tmp_path, text_reply("ok"), permissions={"envAllow": ["A=B"]}))
    msgs = await h.wait_for(lambda: [m for m in h.client.messages if "envAllow" in m.message])
    assert msgs[0].type == types.MessageType.Error


# ------------------------------------------------- finding 3: apiKeyEnv redacted in LSP mode


async def test_the_api_key_env_value_never_reaches_the_session_file(
    pi_in_process: Start, tmp_path: Path, data_dir: Path
) -> None:
    key = SECRETS["PI_TEST_LLM"]
    h = await pi_in_process(
        pi=faux(tmp_path, text_reply(f"your key is {key}"), apiKeyEnv="PI_TEST_LLM"),
        env={"PI_TEST_LLM": key},
    )
    await h.run(f"remember {key} for me")
    files = list((data_dir / "sessions").rglob("*.jsonl"))
    assert files
    text = "".join(f.read_text() for f in files)
    assert key not in text
    assert "[REDACTED]" in text


# -------------------------------------------------------- finding 5: long commands shown whole

LONG = "echo harmless" + " " * 3000 + "&& true " * 400 + "&& touch pwned.txt"


async def test_a_long_command_shows_head_and_tail_and_no_always(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(pi=faux(tmp_path, bash(LONG), text_reply("ok")))
    await h.prompt_answers.put("Deny")
    await h.run("run")
    (prompt,) = h.prompts
    assert "characters hidden]" in prompt.message
    assert prompt.message.rstrip().endswith("&& touch pwned.txt")
    assert "   " not in prompt.message  # whitespace runs collapsed
    assert [a.title for a in prompt.actions or []] == ["Allow", "Deny"]
    assert not (workspace / "pwned.txt").exists()


async def test_request_permission_has_the_whole_command_in_detail(
    pi_in_process: Start, tmp_path: Path
) -> None:
    h, perms = await start_with_permissions(
        pi_in_process, faux(tmp_path, bash(LONG), text_reply("ok"))
    )
    perms.answer("deny")
    sid = await h.run("run")
    (req,) = perms.requests
    assert req["sessionId"] == sid
    assert req["tool"] == "bash"
    assert req["detail"] == LONG
    assert "characters hidden]" in req["title"]
    assert req["title"].endswith("touch pwned.txt")
    assert [o["kind"] for o in req["options"]] == ["allowOnce", "deny"]


# ------------------------- docs/protocol.md#8-permissions-that-stick: rules that stick, by part

FAKE_PYTEST = '#!/bin/sh\necho "fake-pytest ran: $*"\n'


@pytest.fixture
def fake_bin(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "pytest"
    tool.write_text(FAKE_PYTEST)
    tool.chmod(0o755)
    import os

    return {"PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}"}


async def test_always_allow_pytest_sticks_but_never_covers_a_compound_command(
    pi_in_process: Start,
    tmp_path: Path,
    workspace: Path,
    fake_bin: dict[str, str],
    srv: ScriptedHTTPServer,
) -> None:
    srv.enqueue(response(tool_events([("bash", {"command": "pytest -k foo"})])))
    srv.enqueue(response(tool_events([("bash", {"command": "pytest -x tests"})])))
    srv.enqueue(response(tool_events([("bash", {"command": "pytest; touch pwned.txt"})])))
    srv.enqueue(response(text_events("understood")))
    h, perms = await start_with_permissions(pi_in_process, http_settings(srv), env=fake_bin)
    perms.answer("allowAlways")
    perms.answer("deny", "no compound commands, please")
    sid = await h.run("test it")
    first = perms.requests[0]
    kinds = {o["kind"]: o["label"] for o in first["options"]}
    assert list(kinds) == ["allowOnce", "allowSession", "allowAlways", "deny"]
    assert '"pytest"' in kinds["allowAlways"]
    ends = h.tool_ends(sid)
    assert [e["isError"] for e in ends] == [False, False, True]
    assert "fake-pytest ran: -x tests" in text_of(ends[1])
    assert len(perms.requests) == 2  # the second pytest ran without asking
    assert perms.requests[1]["detail"] == "pytest; touch pwned.txt"
    assert not (workspace / "pwned.txt").exists()
    # the deny reason reached the model in the next request it received
    last = srv.requests[-1].json
    tool_msgs = [m for m in last["messages"] if m["role"] == "tool"]
    assert "no compound commands, please" in json.dumps(tool_msgs[-1])
    assert "denied" in json.dumps(tool_msgs[-1])

    listed = await h.call("pi/permissions", {"op": "list"})
    (rule,) = listed["rules"]
    assert (rule["tool"], rule["pattern"]) == ("bash", "pytest")
    assert rule["id"]
    assert rule["createdAt"]
    assert not list(workspace.rglob("*.json"))  # nothing written into the repository


async def test_a_rule_survives_a_restart_and_can_be_revoked(
    pi_in_process: Start, tmp_path: Path, fake_bin: dict[str, str]
) -> None:
    script = faux(tmp_path, bash("pytest -q"), text_reply("ok"))
    h, perms = await start_with_permissions(pi_in_process, script, env=fake_bin)
    perms.answer("allowAlways")
    await h.run("first")
    assert len(perms.requests) == 1

    from .harness import stop

    await stop(h)
    h2, perms2 = await start_with_permissions(pi_in_process, script, env=fake_bin)
    sid = await h2.run("after restart")
    assert perms2.requests == []
    assert "fake-pytest ran: -q" in text_of(h2.tool_ends(sid)[0])

    (rule,) = (await h2.call("pi/permissions", {"op": "list"}))["rules"]
    assert await h2.call("pi/permissions", {"op": "revoke", "id": rule["id"]}) == {"revoked": True}
    assert await h2.call("pi/permissions", {"op": "revoke", "id": rule["id"]}) == {"revoked": False}
    assert (await h2.call("pi/permissions", {"op": "list"}))["rules"] == []
    perms2.answer("deny")
    other = (await h2.call("pi/newSession"))["sessionId"]
    await h2.run("again", sessionId=other)
    assert len(perms2.requests) == 1


async def test_allow_session_holds_in_that_session_only(
    pi_in_process: Start, tmp_path: Path, fake_bin: dict[str, str]
) -> None:
    script = faux(tmp_path, bash("pytest -q"), bash("pytest -x"), text_reply("ok"))
    h, perms = await start_with_permissions(pi_in_process, script, env=fake_bin)
    perms.answer("allowSession")
    sid = await h.run("run")
    assert [e["isError"] for e in h.tool_ends(sid)] == [False, False]
    assert len(perms.requests) == 1
    other = (await h.call("pi/newSession"))["sessionId"]
    perms.answer("deny")
    perms.answer("deny")
    await h.run("run", sessionId=other)
    assert len(perms.requests) == 3
    assert (await h.call("pi/permissions", {"op": "list"}))["rules"] == []


async def test_abort_withdraws_a_pending_question(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h, perms = await start_with_permissions(
        pi_in_process, faux(tmp_path, bash("touch ran.txt"), text_reply("never"))
    )
    sid = (await h.call("pi/prompt", {"text": "run"}))["sessionId"]
    await h.wait_for(lambda: perms.requests)
    call_id = perms.requests[0]["toolCallId"]
    state = await h.call("pi/state", {"sessionId": sid})
    assert state["pendingPermissions"] == [
        {"toolCallId": call_id, "tool": "bash", "title": "Run: touch ran.txt"}
    ]
    assert await h.call("pi/abort", {"sessionId": sid}) == {"aborted": True}
    await h.wait_for(lambda: perms.withdrawn)
    assert perms.withdrawn == [call_id]
    end = await h.wait_event(sid, "agent_end")
    assert end["messages"][-1]["stopReason"] == "aborted"
    assert not (workspace / "ran.txt").exists()
    assert (await h.call("pi/state", {"sessionId": sid}))["pendingPermissions"] == []


async def test_permissions_request_errors_name_the_problem(
    pi_in_process: Start, tmp_path: Path
) -> None:
    from pygls.exceptions import JsonRpcException

    h = await pi_in_process(pi=faux(tmp_path, text_reply("ok")))
    with pytest.raises(JsonRpcException, match="op"):
        await h.raw_call("pi/permissions", {"op": "delete"})
    with pytest.raises(JsonRpcException, match="id"):
        await h.raw_call("pi/permissions", {"op": "revoke"})


# ---------------------------------------------- docs/protocol.md#8-permissions-that-stick: sandbox


@pytest.fixture
async def listener() -> AsyncIterator[socket.socket]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(4)
    sock.setblocking(False)
    yield sock
    sock.close()


def _accepted(sock: socket.socket) -> bool:
    try:
        conn, _ = sock.accept()
    except BlockingIOError:
        return False
    conn.close()
    return True


@needs_sandbox
async def test_sandbox_confines_writes_and_network(
    pi_in_process: Start, tmp_path: Path, workspace: Path, listener: socket.socket
) -> None:
    port = listener.getsockname()[1]
    outside = tmp_path / "outside.txt"
    home_file = Path.home() / f".pi-sandbox-test-{uuid.uuid4().hex[:8]}"
    command = (
        "echo inside > inside.txt && echo wrote-inside; "
        f"echo x > {outside} || echo refused-outside; "
        f"echo x > {home_file} || echo refused-home; "
        f"(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo connected || echo no-network"
    )
    try:
        h = await pi_in_process(
            pi=faux(tmp_path, bash(command), text_reply("ok"), permissions={"bash": "sandbox"})
        )
        sid = await h.run("try things")
        out = text_of(h.tool_ends(sid)[0])
        assert h.prompts == []  # no question in sandbox mode
        assert "wrote-inside" in out
        assert (workspace / "inside.txt").read_text() == "inside\n"
        assert not outside.exists()  # /tmp is private: a write there never reaches the host
        assert "refused-home" in out
        assert not home_file.exists()
        # read-only outside the workspace; a HOME under /tmp is hidden by the private /tmp
        hidden = Path.home().resolve().is_relative_to("/tmp")
        assert ("No such file or directory" if hidden else "Read-only file system") in out
        assert "no-network" in out
        assert not _accepted(listener)
    finally:
        home_file.unlink(missing_ok=True)


@needs_sandbox
async def test_sandbox_network_can_be_allowed(
    pi_in_process: Start, tmp_path: Path, listener: socket.socket
) -> None:
    port = listener.getsockname()[1]
    command = f"(exec 3<>/dev/tcp/127.0.0.1/{port}) && echo connected || echo no-network"
    h = await pi_in_process(
        pi=faux(
            tmp_path,
            bash(command),
            text_reply("ok"),
            permissions={"bash": "sandbox", "network": True},
        )
    )
    sid = await h.run("connect")
    assert "connected" in text_of(h.tool_ends(sid)[0])
    assert _accepted(listener)


async def test_without_a_sandbox_it_says_so_once_and_asks(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(
        pi=faux(tmp_path, bash("touch ran.txt"), text_reply("ok"), permissions={"bash": "sandbox"}),
        env={"PI_LSP_BWRAP": ""},
    )
    notes = await h.wait_for(lambda: [m for m in h.client.messages if "sandbox" in m.message])
    assert "bubblewrap" in notes[0].message
    assert notes[0].type == types.MessageType.Warning
    await h.prompt_answers.put("Deny")
    await h.run("run")
    assert len(h.prompts) == 1
    assert not (workspace / "ran.txt").exists()
    assert len([m for m in h.client.messages if "sandbox" in m.message]) == 1


def _running(token: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if token.encode() in cmdline:
                pids.append(int(entry.name))
    return pids


@needs_sandbox
async def test_abort_kills_everything_in_the_sandbox(pi_in_process: Start, tmp_path: Path) -> None:
    token = f"{3000 + uuid.uuid4().int % 900}.{uuid.uuid4().int % 1000}"
    command = f"setsid sleep {token} & sleep {token} & echo started; wait"
    h = await pi_in_process(
        pi=faux(tmp_path, bash(command), text_reply("never"), permissions={"bash": "sandbox"})
    )
    sid = (await h.call("pi/prompt", {"text": "run"}))["sessionId"]

    def started() -> bool:
        return any(
            "started" in "".join(b.get("text", "") for b in e["event"]["partialResult"]["content"])
            for e in h.session_events(sid)
            if e["event"]["type"] == "tool_execution_update"
        )

    await h.wait_for(started)
    assert len(_running(f"sleep {token}")) >= 2
    assert await h.call("pi/abort", {"sessionId": sid}) == {"aborted": True}
    await h.wait_event(sid, "agent_end")
    for _ in range(300):
        if not _running(f"sleep {token}"):
            return
        await asyncio.sleep(0.01)  # the kernel reaps them; not a synchronisation point
    raise AssertionError(f"still running: {_running(f'sleep {token}')}")


async def test_message_box_clients_can_store_a_workspace_rule(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(
        pi=faux(
            tmp_path,
            bash("touch one.txt"),
            bash("touch two.txt"),
            bash("touch three.txt && rm one.txt"),
            text_reply("ok"),
        )
    )
    await h.prompt_answers.put('Always allow "touch" in this workspace')
    await h.prompt_answers.put("Deny")
    sid = await h.run("run")
    assert [e["isError"] for e in h.tool_ends(sid)] == [False, False, True]
    assert len(h.prompts) == 2  # the compound with rm was asked about
    assert (workspace / "one.txt").exists()
    (rule,) = (await h.call("pi/permissions", {"op": "list"}))["rules"]
    assert rule["pattern"] == "touch"
