"""docs/reference/pi.md#checklist checklist, items 56–65 (pi-ai), one test (or more) per item."""

from __future__ import annotations

import asyncio
import socket

import pytest

from pi_lsp.ai import (
    AbortSignal,
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    ModelCost,
    StreamOptions,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    calculate_cost,
    get_env_api_key,
    parse_streaming_json,
    stream,
    thinking_budget,
    transform_messages,
)
from pi_lsp.ai.providers.anthropic_convert import build_params as anthropic_params
from tests.ai.helpers import (
    ArgLockstep,
    an_start,
    an_text_block,
    an_tool_block,
    anthropic_model,
    context,
    oa_chunk,
    openai_model,
    options,
)
from tests.support.http_server import Pause, ScriptedHTTPServer, ScriptedResponse, sse

# ------------------------------------------------------------------------------ item 56


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("api", ["openai-completions", "anthropic-messages"])
@pytest.mark.parametrize("failure", ["no-key", "bad-url", "refused", "bad-context"])
async def test_item_56_provider_failures_never_raise(api: str, failure: str):
    port = _closed_port()
    model = Model(
        id="m",
        api=api,
        provider="openai" if api.startswith("openai") else "anthropic",
        base_url=f"http://127.0.0.1:{port}/v1",
    )
    opts = StreamOptions(api_key="sk-whatever-123456", max_retries=0, env={})
    ctx = context()
    if failure == "no-key":
        opts.api_key = None
    elif failure == "bad-url":
        model.base_url = "ftp://nowhere.invalid"
    elif failure == "bad-context":
        # a tool whose schema cannot be serialised: the failure happens while building
        ctx = Context(
            messages=[UserMessage(content="x")],
            tools=[Tool(name="t", description="d", parameters={"x": {1, 2}})],
        )
    s = stream(model, ctx, opts)  # must not raise
    events = [event async for event in s]
    final = await s.result()
    assert events[-1].type == "error"
    assert final.stop_reason == "error"
    assert final.error_message


# ------------------------------------------------------------------------------ item 57


@pytest.mark.parametrize("api", ["openai-completions", "anthropic-messages"])
async def test_item_57_abort_during_streaming_yields_aborted(srv: ScriptedHTTPServer, api: str):
    if api == "openai-completions":
        model = openai_model(srv)
        head = sse([oa_chunk({"content": "abc"})], done=False)
    else:
        model = anthropic_model(srv)
        head = sse([an_start(), *an_text_block(0, "abc", pieces=1)[:2]], done=False, named=True)
    srv.enqueue(
        ScriptedResponse(
            headers={"content-type": "text/event-stream"}, body=[*head, Pause(asyncio.Event())]
        )
    )
    signal = AbortSignal()
    s = stream(model, context(), options(signal=signal))
    async for event in s:
        if event.type == "text_delta":
            signal.abort()
    final = await s.result()
    assert final.stop_reason == "aborted"
    assert final.content == [TextContent(text="abc")]


# ------------------------------------------------------------------------------ item 58


def test_item_58_parse_streaming_json():
    assert parse_streaming_json("") == {}
    assert parse_streaming_json("   ") == {}
    assert parse_streaming_json('{"a": "b') == {"a": "b"}
    assert parse_streaming_json('{"text": "line1\nline2"}') == {"text": "line1\nline2"}
    assert parse_streaming_json('{"path": "a.py", "lim') == {"path": "a.py"}


# ------------------------------------------------------------------------------ item 59


@pytest.mark.parametrize("api", ["openai-completions", "anthropic-messages"])
async def test_item_59_toolcall_delta_partials_are_parsed_so_far(srv: ScriptedHTTPServer, api: str):
    raw = '{"path": "src/app.py", "offset": 3}'
    if api == "openai-completions":
        model = openai_model(srv)
        events = [
            oa_chunk(
                {
                    "tool_calls": [
                        {"index": 0, "id": "c1", "function": {"name": "read", "arguments": ""}}
                    ]
                }
            )
        ]
        events += [
            oa_chunk({"tool_calls": [{"index": 0, "function": {"arguments": raw[i : i + 4]}}]})
            for i in range(0, len(raw), 4)
        ]
        events.append(oa_chunk({}, "tool_calls"))
        lockstep = ArgLockstep(events)
    else:
        model = anthropic_model(srv)
        events = [
            an_start(),
            *an_tool_block(0, "c1", "read", raw, piece=4),
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}},
            {"type": "message_stop"},
        ]
        lockstep = ArgLockstep(events, named=True, done=False)
    srv.enqueue(lockstep.response())
    s = stream(model, context(), options())
    seen: list[tuple[str, dict]] = []
    async for event in s:
        if event.type == "toolcall_delta":
            block = event.partial.content[event.content_index]
            assert isinstance(block, ToolCall)
            seen.append((event.delta, dict(block.arguments)))
            lockstep.saw_delta()
    accumulated = ""
    for delta, args in seen:
        accumulated += delta
        assert args == parse_streaming_json(accumulated)
    assert seen[-1][1] == {"path": "src/app.py", "offset": 3}
    assert any(args == {"path": "src/app.py"} for _, args in seen)


# ------------------------------------------------------------------------------ item 60


def _cache_context(trailing_tool_results: bool = False) -> Context:
    messages: list = [
        UserMessage(content="first"),
        AssistantMessage(
            api="anthropic-messages",
            provider="anthropic",
            model="claude-test",
            content=[TextContent(text="ok")],
            stop_reason="stop",
        ),
    ]
    if trailing_tool_results:
        messages += [
            UserMessage(content="read both"),
            AssistantMessage(
                api="anthropic-messages",
                provider="anthropic",
                model="claude-test",
                stop_reason="toolUse",
                content=[
                    ToolCall(id="t1", name="read", arguments={"path": "a"}),
                    ToolCall(id="t2", name="read", arguments={"path": "b"}),
                ],
            ),
            ToolResultMessage(tool_call_id="t1", tool_name="read", content=[TextContent(text="A")]),
            ToolResultMessage(tool_call_id="t2", tool_name="read", content=[TextContent(text="B")]),
        ]
    else:
        messages.append(UserMessage(content="second"))
    tools = [
        Tool(name=n, description=n, parameters={"type": "object", "properties": {}})
        for n in ("read", "bash")
    ]
    return Context(system_prompt="system prompt", messages=messages, tools=tools)


def _anthropic_api_model() -> Model:
    return Model(
        id="claude-test",
        api="anthropic-messages",
        provider="anthropic",
        base_url="https://api.anthropic.com",
        max_tokens=64_000,
        reasoning=True,
    )


def _markers(params: dict) -> list[str]:
    found = []
    for i, block in enumerate(params.get("system", [])):
        if "cache_control" in block:
            found.append(f"system[{i}]")
    for i, tool in enumerate(params.get("tools", [])):
        if "cache_control" in tool:
            found.append(f"tools[{i}]")
    for i, message in enumerate(params["messages"]):
        if isinstance(message["content"], list):
            for j, block in enumerate(message["content"]):
                if "cache_control" in block:
                    found.append(f"messages[{i}][{j}]")
    return found


def test_item_60_anthropic_cache_control():
    model = _anthropic_api_model()
    params = anthropic_params(model, _cache_context(), StreamOptions(env={}), oauth=False)
    assert _markers(params) == ["system[0]", "tools[1]", "messages[2][0]"]
    assert params["system"][0]["cache_control"] == {"type": "ephemeral"}
    # a trailing string user message is wrapped into a text block to carry the marker
    assert params["messages"][2]["content"] == [
        {"type": "text", "text": "second", "cache_control": {"type": "ephemeral"}}
    ]


def test_item_60_anthropic_cache_control_moves_to_the_last_tool_result():
    params = anthropic_params(
        _anthropic_api_model(), _cache_context(True), StreamOptions(env={}), oauth=False
    )
    assert _markers(params)[-1] == "messages[4][1]"
    last = params["messages"][4]["content"][1]
    assert last["type"] == "tool_result"
    assert last["tool_use_id"] == "t2"


def test_item_60_anthropic_cache_control_none_and_long():
    model = _anthropic_api_model()
    none = anthropic_params(
        model, _cache_context(), StreamOptions(cache_retention="none", env={}), oauth=False
    )
    assert _markers(none) == []
    long = anthropic_params(
        model, _cache_context(), StreamOptions(cache_retention="long", env={}), oauth=False
    )
    assert long["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert long["tools"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    # PI_CACHE_RETENTION=long selects long retention when nothing else was asked for
    via_env = anthropic_params(
        model, _cache_context(), StreamOptions(env={"PI_CACHE_RETENTION": "long"}), oauth=False
    )
    assert via_env["system"][0]["cache_control"]["ttl"] == "1h"
    # a proxy that is not api.anthropic.com gets no 1h ttl unless its compat says so
    proxy = model.model_copy(update={"base_url": "http://127.0.0.1:9999"})
    short = anthropic_params(
        proxy, _cache_context(), StreamOptions(cache_retention="long", env={}), oauth=False
    )
    assert short["system"][0]["cache_control"] == {"type": "ephemeral"}


def test_item_60_oauth_has_two_system_breakpoints():
    params = anthropic_params(
        _anthropic_api_model(), _cache_context(), StreamOptions(env={}), oauth=True
    )
    assert _markers(params)[:2] == ["system[0]", "system[1]"]
    assert len(_markers(params)) == 4


# ------------------------------------------------------------------------------ item 61


def test_item_61_consecutive_tool_results_become_one_user_message():
    params = anthropic_params(
        _anthropic_api_model(),
        _cache_context(True),
        StreamOptions(cache_retention="none", env={}),
        oauth=False,
    )
    roles = [m["role"] for m in params["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user"]
    results = params["messages"][4]["content"]
    assert [(b["type"], b["tool_use_id"], b["content"], b["is_error"]) for b in results] == [
        ("tool_result", "t1", "A", False),
        ("tool_result", "t2", "B", False),
    ]


# ------------------------------------------------------------------------------ item 62


def test_item_62_error_and_aborted_dropped_and_orphans_answered():
    model = Model(id="m", api="openai-completions", provider="openai")

    def assistant(stop: str, *content: object) -> AssistantMessage:
        return AssistantMessage(
            api="openai-completions",
            provider="openai",
            model="m",
            stop_reason=stop,
            content=list(content),
        )  # type: ignore[arg-type]

    messages = [
        UserMessage(content="1"),
        assistant("error", TextContent(text="boom")),
        assistant("aborted", ToolCall(id="dropped", name="bash", arguments={})),
        UserMessage(content="2"),
        assistant(
            "toolUse",
            ToolCall(id="a", name="read", arguments={}),
            ToolCall(id="b", name="read", arguments={}),
        ),
        ToolResultMessage(tool_call_id="a", tool_name="read", content=[TextContent(text="A")]),
        UserMessage(content="3"),
        assistant("toolUse", ToolCall(id="c", name="ls", arguments={})),
    ]
    out = transform_messages(messages, model)
    summary = [
        (m.role, getattr(m, "tool_call_id", None), m.is_error if m.role == "toolResult" else None)
        for m in out
    ]
    assert summary == [
        ("user", None, None),
        ("user", None, None),
        ("assistant", None, None),
        ("toolResult", "a", False),
        ("toolResult", "b", True),  # orphan answered before the next user message
        ("user", None, None),
        ("assistant", None, None),
        ("toolResult", "c", True),  # orphan at the end
    ]
    synthetic = out[4]
    assert isinstance(synthetic, ToolResultMessage)
    assert synthetic.content == [TextContent(text="No result provided")]
    assert synthetic.tool_name == "read"


# ------------------------------------------------------------------------------ item 63


def test_item_63_cost_per_category_and_1h_cache_writes():
    model = Model(
        id="m",
        api="x",
        provider="p",
        cost=ModelCost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
    )
    usage = Usage(
        input=1_000_000,
        output=200_000,
        cache_read=500_000,
        cache_write=300_000,
        cache_write_1h=100_000,
    )
    calculate_cost(model, usage)
    assert usage.cost.input == pytest.approx(3.0)
    assert usage.cost.output == pytest.approx(3.0)
    assert usage.cost.cache_read == pytest.approx(0.15)
    # 200k short writes at 3.75/M + 100k 1-hour writes at 2 × input (6/M)
    assert usage.cost.cache_write == pytest.approx(0.75 + 0.6)
    assert usage.cost.total == pytest.approx(3.0 + 3.0 + 0.15 + 1.35)
    assert usage.total_tokens == 2_000_000


# ------------------------------------------------------------------------------ item 64


def test_item_64_env_key_lookup():
    env = {
        "ANTHROPIC_API_KEY": "sk-ant-api",
        "ANTHROPIC_OAUTH_TOKEN": "sk-ant-oat-1",
        "GEMINI_API_KEY": "g-key",
        "OPENAI_API_KEY": "  ",
    }
    assert get_env_api_key("anthropic", env) == "sk-ant-oat-1"
    assert get_env_api_key("anthropic", {"ANTHROPIC_API_KEY": "sk-ant-api"}) == "sk-ant-api"
    assert get_env_api_key("google", env) == "g-key"
    assert get_env_api_key("openai", env) is None  # whitespace counts as missing
    assert get_env_api_key("openai", {"MINE": "k"}, api_key_env="MINE") == "k"


# ------------------------------------------------------------------------------ item 65


def test_item_65_thinking_budgets():
    assert thinking_budget("medium", 64_000) == (64_000, 8192)
    assert thinking_budget("medium", 64_000, caller_max_tokens=4_000) == (12_192, 8192)
    assert thinking_budget("high", 20_000, caller_max_tokens=8_000) == (20_000, 16_384)
    assert thinking_budget("xhigh", 64_000) == (64_000, 16_384)  # clamped to high
    assert thinking_budget("minimal", 64_000, 1000) == (2024, 1024)
    # no room left for output: the budget shrinks
    assert thinking_budget("high", 8_000) == (8_000, 6_976)
    assert thinking_budget("low", 64_000, budgets={"low": 4096}) == (64_000, 4096)


def test_item_65_budget_reaches_the_anthropic_request():
    model = _anthropic_api_model()
    params = anthropic_params(
        model,
        context(),
        StreamOptions(reasoning="medium", max_tokens=4000, temperature=0.5, env={}),
        oauth=False,
    )
    assert params["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    assert params["max_tokens"] == 12_192
    assert "temperature" not in params  # dropped when thinking is on
    tiny = model.model_copy(update={"max_tokens": 1000})
    params = anthropic_params(tiny, context(), StreamOptions(reasoning="low", env={}), oauth=False)
    assert params["thinking"] == {"type": "enabled", "budget_tokens": 1024}  # budget 0 → 1024


def test_item_65_adaptive_thinking_for_new_models():
    model = _anthropic_api_model().model_copy(update={"id": "claude-opus-4-6"})
    params = anthropic_params(
        model, context(), StreamOptions(reasoning="minimal", env={}), oauth=False
    )
    assert params["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert params["output_config"] == {"effort": "low"}
    forced = _anthropic_api_model().model_copy(update={"compat": {"forceAdaptiveThinking": True}})
    params = anthropic_params(
        forced, context(), StreamOptions(reasoning="xhigh", env={}), oauth=False
    )
    assert params["output_config"] == {"effort": "high"}


def test_images_to_a_text_only_model_become_placeholders():
    model = Model(id="m", api="openai-completions", provider="openai", input=["text"])
    img = ImageContent(data="AAAA", mime_type="image/png")
    out = transform_messages([UserMessage(content=[TextContent(text="see"), img, img])], model)
    assert out[0].content == [  # type: ignore[union-attr]
        TextContent(text="see"),
        TextContent(text="(image omitted: model does not support images)"),
    ]
