"""The bash tool: process groups on abort/timeout, secret scrubbing, output handling."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from pi_lsp.agent.types import AgentToolResult
from pi_lsp.ai import AbortSignal, TextContent
from pi_lsp.tools import BashOptions, BashTool, DiskWorkspace, ProcessRegistry, ToolError

from .conftest import call, text, wait_group_gone


def _tool(ws: DiskWorkspace, **options: object) -> tuple[BashTool, ProcessRegistry]:
    registry = ProcessRegistry()
    return BashTool(ws, BashOptions(process_registry=registry, **options)), registry  # type: ignore[arg-type]


async def test_abort_kills_the_shell_and_its_children(ws: DiskWorkspace) -> None:
    tool, registry = _tool(ws)
    signal = AbortSignal()
    started = asyncio.Event()
    pgid_box: list[int] = []

    def on_update(partial: AgentToolResult) -> None:
        for block in partial.content:
            if isinstance(block, TextContent) and "pgid=" in block.text:
                pgid_box.append(int(block.text.split("pgid=")[1].split()[0]))
                started.set()

    task = asyncio.create_task(
        call(
            tool,
            {"command": "echo pgid=$$; sleep 30 & sleep 30; wait"},
            signal=signal,
            on_update=on_update,
        )
    )
    await started.wait()
    assert registry.live_count() == 1
    loop = asyncio.get_running_loop()
    aborted_at = loop.time()
    signal.abort()
    with pytest.raises(ToolError) as err:
        await task
    assert loop.time() - aborted_at < 1.0
    assert str(err.value) == f"pgid={pgid_box[0]}\n\n\nCommand aborted"
    await wait_group_gone(pgid_box[0])
    assert registry.live_count() == 0


async def test_timeout_kills_children_too(ws: DiskWorkspace) -> None:
    tool, registry = _tool(ws)
    with pytest.raises(ToolError) as err:
        await call(tool, {"command": "echo pgid=$$; (sleep 30; echo never) & wait", "timeout": 0.5})
    message = str(err.value)
    assert message.endswith("\n\nCommand timed out after 0.5 seconds")
    await wait_group_gone(int(message.split("pgid=")[1].split()[0]))
    assert registry.live_count() == 0


async def test_already_aborted_runs_nothing(ws: DiskWorkspace, root: Path) -> None:
    tool, registry = _tool(ws)
    signal = AbortSignal()
    signal.abort()
    with pytest.raises(ToolError, match=r"^Command aborted$"):
        await call(tool, {"command": "touch ran"}, signal=signal)
    assert not (root / "ran").exists()
    assert registry.live_count() == 0


async def test_kill_all_ends_background_jobs(ws: DiskWorkspace) -> None:
    tool, registry = _tool(ws)
    result = await call(tool, {"command": "sleep 30 >/dev/null 2>&1 & echo pgid=$$"})
    pgid = int(text(result).split("pgid=")[1].split()[0])
    assert registry.live_count() == 1  # the job outlives the command
    registry.kill_all()
    await wait_group_gone(pgid)
    assert registry.live_count() == 0


async def test_background_job_holding_the_pipe_does_not_hang_the_call(
    ws: DiskWorkspace,
) -> None:
    tool, registry = _tool(ws)
    result = await call(tool, {"command": "sleep 30 & echo started"})
    assert text(result) == "started\n"
    registry.kill_all()


async def test_secrets_are_scrubbed_from_the_environment(
    ws: DiskWorkspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = {
        "OPENAI_API_KEY": "sk-openai",
        "ANTHROPIC_API_KEY": "sk-ant",
        "ANTHROPIC_OAUTH_TOKEN": "oauth",
        "GITHUB_TOKEN": "ghp",
        "AWS_SECRET_ACCESS_KEY": "aws",
        "DB_PASSWORD": "pw",
        "MY_SERVICE_SECRET": "s",
        "HF_TOKEN": "hf",
        "MY_PROVIDER_KEY": "configured-api-key-env",
        "ALLOWED_TOKEN": "allowed",
        "GH_PAT": "pat-one",
        "GITHUB_PAT": "pat-two",
        "PAT": "pat-three",
        "AUTH_HEADER": "X-Custom pat-four",
        "DOCKER_AUTH_CONFIG": "docker-cfg",
        "UPLOAD_HEADER": "Bearer abcdefghij0123456789",  # a secret by its value alone
        "CI_THING": "ghp_" + "k" * 36,
        "KUBECONFIG": "/home/someone/.kube/prod",  # names a credential file
        "NETRC": "/home/someone/.netrc",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HARMLESS_SETTING", "visible")
    tool, _ = _tool(
        ws,
        env_allow=frozenset({"ALLOWED_TOKEN"}),
        extra_secret_env=frozenset({"MY_PROVIDER_KEY"}),
    )
    env = text(await call(tool, {"command": "env"}))
    names = {line.split("=", 1)[0] for line in env.splitlines() if "=" in line}
    assert "HARMLESS_SETTING" in names
    assert "PATH" in names
    assert "ALLOWED_TOKEN=allowed" in env
    leaked = [n for n in secrets if n != "ALLOWED_TOKEN" and n in names]
    assert leaked == []
    for value in ("sk-openai", "sk-ant", "ghp", "configured-api-key-env", "pat-", "docker-cfg"):
        assert value not in env
    assert "abcdefghij0123456789" not in env
    assert ".kube/prod" not in env


async def test_runs_in_the_workspace_with_stdin_closed_and_streams_merged(
    ws: DiskWorkspace, root: Path
) -> None:
    tool, _ = _tool(ws)
    out = text(await call(tool, {"command": "pwd; cat; echo a; echo b >&2; echo c"}))
    assert out == f"{root}\na\nb\nc\n"


async def test_command_prefix_runs_before_the_command(ws: DiskWorkspace) -> None:
    tool, _ = _tool(ws, command_prefix="greet() { echo hi $1; }")
    assert text(await call(tool, {"command": "greet there"})) == "hi there\n"


async def test_a_zero_negative_or_huge_timeout_is_refused(ws: DiskWorkspace) -> None:
    tool, _ = _tool(ws)
    for bad in (0, -1):
        with pytest.raises(ToolError) as err:
            await call(tool, {"command": "true", "timeout": bad})
        assert str(err.value) == "Invalid timeout: must be a finite number of seconds"
    with pytest.raises(ToolError, match=r"maximum is 2147483\.647 seconds"):
        await call(tool, {"command": "true", "timeout": 1e10})


async def test_missing_working_directory(root: Path) -> None:
    ws = DiskWorkspace([root])
    root.rmdir()
    with pytest.raises(ToolError) as err:
        await call(BashTool(ws), {"command": "true"})
    assert str(err.value) == (
        f"Working directory does not exist: {root}\nCannot execute bash commands."
    )


async def test_killed_by_a_signal_is_not_an_error(ws: DiskWorkspace) -> None:
    tool, _ = _tool(ws)
    result = await call(tool, {"command": "echo bye; kill -9 $$"})
    assert text(result) == "bye\n"


async def test_byte_truncation_footer(ws: DiskWorkspace) -> None:
    tool, _ = _tool(ws)
    result = await call(tool, {"command": "for i in $(seq 1 700); do printf '%099d\\n' $i; done"})
    out = text(result)
    body, footer = out.rsplit("\n\n", 1)
    kept = body.split("\n")
    assert len(kept) == 512
    path = result.details["fullOutputPath"]
    assert footer == f"[Showing lines 189-700 of 700 (50.0KB limit). Full output: {path}]"
    assert os.path.getsize(path) == 70000
    os.unlink(path)


async def test_single_huge_line_keeps_its_tail(ws: DiskWorkspace) -> None:
    tool, _ = _tool(ws)
    result = await call(tool, {"command": "head -c 102400 /dev/zero | tr '\\0' x"})
    out = text(result)
    body, footer = out.rsplit("\n\n", 1)
    assert body == "x" * 51200
    path = result.details["fullOutputPath"]
    assert footer == (f"[Showing last 50.0KB of line 1 (line is 100.0KB). Full output: {path}]")
    os.unlink(path)


async def test_non_utf8_output_is_decoded_with_replacement(ws: DiskWorkspace) -> None:
    tool, _ = _tool(ws)
    assert text(await call(tool, {"command": "printf 'caf\\xe9\\n'"})) == "caf\ufffd\n"


async def test_cancelling_the_call_kills_the_group(ws: DiskWorkspace) -> None:
    tool, registry = _tool(ws)
    started = asyncio.Event()
    pgids: list[int] = []

    def on_update(partial: AgentToolResult) -> None:
        for block in partial.content:
            if isinstance(block, TextContent) and "pgid=" in block.text:
                pgids.append(int(block.text.split("pgid=")[1].split()[0]))
                started.set()

    task = asyncio.create_task(
        call(tool, {"command": "echo pgid=$$; sleep 30"}, on_update=on_update)
    )
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await wait_group_gone(pgids[0])
    assert registry.live_count() == 0
