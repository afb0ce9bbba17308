"""The providers against a real llama.cpp server, both of its endpoints (issue 10 item 13):
streaming, usage, a tool call and its result, abort, errors. The model is tiny: these tests
check the wire, never the answers."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.ai import (
    AbortSignal,
    AssistantMessage,
    Context,
    StreamOptions,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    stream,
)
from pi_lsp.ai.events import StartEvent, TextDeltaEvent
from pi_lsp.ai.models import resolve_model
from pi_lsp.ai.types import Model

from .conftest import CTX, LlamaServer, start_server

pytestmark = pytest.mark.real_server

ENDPOINTS = ("openai", "anthropic")
READ = Tool(
    name="read",
    description="Read the contents of a file",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string", "description": "Path to the file"}},
        "required": ["path"],
    },
)


def model_for(server: LlamaServer, endpoint: str, **kw: Any) -> Model:
    if endpoint == "openai":
        return resolve_model("openai-compatible", "smollm2", server.url + "/v1", **kw)
    return resolve_model("anthropic", "smollm2", server.url, **kw)


def options(**kw: Any) -> StreamOptions:
    # llama.cpp ignores the key; the Anthropic provider insists on having one
    return StreamOptions(api_key="local", max_retries=0, env={}, **kw)


def ask(text: str, tools: list[Tool] | None = None, history: list[Any] | None = None) -> Context:
    return Context(
        system_prompt="You are a helpful assistant.",
        messages=[*(history or []), UserMessage(content=text)],
        tools=tools,
    )


async def run(
    model: Model, context: Context, opts: StreamOptions | None = None
) -> tuple[list[Any], AssistantMessage]:
    s = stream(model, context, opts or options())
    events = [event async for event in s]
    return events, await s.result()


def text(message: AssistantMessage) -> str:
    return "".join(b.text for b in message.content if isinstance(b, TextContent))


@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_streamed_text_is_the_final_text_and_start_is_empty(
    llama: LlamaServer, endpoint: str
) -> None:
    model = model_for(llama, endpoint)
    for attempt in range(5):  # timing-dependent: the first token often shares the role's write
        events, final = await run(model, ask(f"Say hello number {attempt}."))
        assert final.stop_reason in ("stop", "length"), final.error_message
        start = events[0]
        assert isinstance(start, StartEvent)
        assert start.partial.content == []
        streamed = "".join(e.delta for e in events if isinstance(e, TextDeltaEvent))
        assert streamed
        assert streamed == text(final)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_usage_is_reported(llama: LlamaServer, endpoint: str) -> None:
    _, final = await run(model_for(llama, endpoint), ask("Say hi."))
    assert final.usage.input > 0
    assert final.usage.output > 0


def few_shot() -> list[Any]:
    """Three earlier read → answer exchanges: with them the 135M model calls the tool."""
    history: list[Any] = []
    for name in ("a", "b", "c"):
        call = ToolCall(id=f"call_{name}", name="read", arguments={"path": f"{name}.py"})
        history += [
            UserMessage(content=f"Read the file {name}.py"),
            AssistantMessage(
                content=[call],
                api="openai-completions",
                provider="x",
                model="smollm2",
                stop_reason="toolUse",
            ),
            ToolResultMessage(
                tool_call_id=call.id,
                tool_name="read",
                content=[TextContent(text=f"print('{name}')")],
            ),
            AssistantMessage(
                content=[TextContent(text=f"{name}.py prints {name}.")],
                api="openai-completions",
                provider="x",
                model="smollm2",
                stop_reason="stop",
            ),
        ]
    return history


@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_a_tool_call_is_parsed_and_its_result_accepted(
    llama: LlamaServer, endpoint: str
) -> None:
    model = model_for(llama, endpoint)
    history = few_shot()
    context = ask("Read the file hello.py", [READ], history)
    _, first = await run(model, context, options(max_tokens=48))
    calls = [b for b in first.content if isinstance(b, ToolCall)]
    assert first.stop_reason == "toolUse", (first.stop_reason, first.error_message, text(first))
    assert calls[0].name == "read"
    assert calls[0].arguments.get("path") == "hello.py"
    result = ToolResultMessage(
        tool_call_id=calls[0].id, tool_name="read", content=[TextContent(text="print('hello')")]
    )
    follow = Context(
        system_prompt=context.system_prompt,
        messages=[*context.messages, first, result],
        tools=[READ],
    )
    _, second = await run(model, follow, options(max_tokens=24))
    assert second.stop_reason in ("stop", "length", "toolUse"), second.error_message


@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_abort_stops_the_stream(llama: LlamaServer, endpoint: str) -> None:
    signal = AbortSignal()
    s = stream(
        model_for(llama, endpoint), ask("Count from one to one hundred."), options(signal=signal)
    )
    async for event in s:
        if isinstance(event, TextDeltaEvent):
            signal.abort()
    final = await s.result()
    assert final.stop_reason == "aborted"


@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_context_overflow_is_reported_with_the_numbers(
    llama: LlamaServer, endpoint: str
) -> None:
    _, final = await run(model_for(llama, endpoint), ask("word " * (2 * CTX)))
    assert final.stop_reason == "error"
    message = final.error_message or ""
    assert str(CTX) in message, message
    from pi_lsp.ai import is_context_overflow

    assert is_context_overflow(final, CTX)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_unreachable_url_names_it(llama: LlamaServer, endpoint: str) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    dead = LlamaServer(llama.process, port, llama.log)
    _, final = await run(model_for(dead, endpoint), ask("hi"))
    assert final.stop_reason == "error"
    assert f"127.0.0.1:{port}" in (final.error_message or "")


@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_server_killed_mid_stream_ends_with_an_error(tmp_path: Path, endpoint: str) -> None:
    server = start_server(tmp_path, n_predict=400)
    try:
        s = stream(model_for(server, endpoint), ask("Count from one to one hundred."), options())
        async for event in s:
            if isinstance(event, TextDeltaEvent) and server.process.poll() is None:
                server.process.kill()
        final = await asyncio.wait_for(s.result(), 60)
    finally:
        server.stop()
    assert final.stop_reason == "error"
    assert final.error_message
    assert text(final)  # what streamed before the kill is kept


def cli_setup(
    llama: LlamaServer, endpoint: str, tmp_path: Path, key: str
) -> tuple[list[str], dict[str, str]]:
    """``pi-lsp run``'s provider arguments for ``endpoint`` and its environment (sessions and
    caches under ``tmp_path``; llama.cpp ignores the key, the providers want one)."""
    import os

    provider = ["--provider", "openai-compatible", "--base-url", llama.url + "/v1"]
    if endpoint == "anthropic":
        provider = ["--provider", "anthropic", "--base-url", llama.url]
    env = {
        **os.environ,
        "PI_LSP_DATA_DIR": str(tmp_path / "data"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "ANTHROPIC_API_KEY": key,
        "OPENAI_API_KEY": key,
        "OPENAI_COMPATIBLE_API_KEY": key,
    }
    return provider, env


@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_pi_lsp_run_fails_clearly_on_overflow(
    llama: LlamaServer, endpoint: str, tmp_path: Path
) -> None:
    """The first turn does not fit: non-zero exit, and the numbers and the setting named."""
    import sys

    provider, env = cli_setup(llama, endpoint, tmp_path, "local")
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pi_lsp",
        "run",
        "word " * (2 * CTX),
        "--cwd",
        str(tmp_path),
        *provider,
        "--model",
        "smollm2",
        "--context-window",
        str(CTX),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    output = out.decode() + err.decode()
    assert proc.returncode not in (0, None), output
    assert "The prompt needs" in output
    assert str(CTX) in output
    assert "contextWindow" in output


async def test_pi_lsp_run_answers_a_repeated_command_from_its_early_request(
    llama: LlamaServer, tmp_path: Path
) -> None:
    """The second run of the same command sends its first request at spawn from the first
    run's template (``cli/prefetch.py``): a real server's chunked SSE read through h11 (and
    the template left as it was: the early request was the run's own). One endpoint: each
    run costs the tiny model ≈ 15 s of prompt processing on one thread, and the transport
    does not depend on the provider (the key headers of both are covered in
    tests/cli/test_prefetch.py)."""
    endpoint = "openai"
    import sys

    provider, env = cli_setup(llama, endpoint, tmp_path, "local-key-for-llama")

    async def run(prompt: str) -> str:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "pi_lsp", "run", prompt, "--cwd", str(tmp_path), *provider,
            "--model", "smollm2", "--max-tokens", "8", "--no-save",
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=env,
        )  # fmt: skip
        out, err = await asyncio.wait_for(proc.communicate(), 120)
        assert proc.returncode == 0, out.decode() + err.decode()
        return err.decode()

    await run("Say hello.")
    [template] = (tmp_path / "cache" / "pi-lsp" / "requests").glob("*.json")
    assert "local-key-for-llama" not in template.read_text()
    before = template.stat()
    summary = await run('Say "goodbye" — twice.')
    assert "tokens:" in summary  # usage reported: the stream was read to its end
    after = template.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
