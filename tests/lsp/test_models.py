"""Models, usage and the context meter: ``pi/models``, per-session ``pi/setModel`` (a
``model_change`` entry, reported at once, kept across settings changes and restarts, used from
the next model call of a running run), ``pi/state`` usage totals / ``contextTokens`` /
``contextWindow``, and compaction that triggers for a small (4k) local model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from tests.support.http_server import Pause, ScriptedHTTPServer

from .conftest import Start, http_settings
from .harness import NVIM_07, stop
from .openai_sse import response, text_events, tool_events


def with_usage(
    events: list[dict[str, Any]], prompt: int, completion: int, reasoning: int | None = None
) -> list[dict[str, Any]]:
    counts: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion}
    if reasoning is not None:  # a part of completion_tokens (OpenAI's usage object)
        counts["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    usage = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [],
        "usage": counts,
    }
    return [*events, usage]


def session_file(data_dir: Path, sid: str) -> list[dict[str, Any]]:
    (path,) = data_dir.rglob(f"*{sid}*.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def test_models_lists_catalog_custom_and_configured(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    custom = {
        "id": "qwen-local",
        "name": "Qwen (local)",
        "contextWindow": 8192,
        "maxTokens": 1024,
        "input": ["text", "image"],
        "cost": {"input": 1.0, "output": 2.0},
    }
    h = await pi_in_process(pi=http_settings(srv, contextWindow=4096, models=[custom]))
    result = await h.call("pi/models")
    by_key = {(m["provider"], m["id"]): m for m in result["models"]}
    assert result["current"] == {"provider": "openai-compatible", "id": "test-model"}
    assert by_key[("openai-compatible", "test-model")]["contextWindow"] == 4096
    qwen = by_key[("openai-compatible", "qwen-local")]
    assert qwen == {
        "provider": "openai-compatible",
        "id": "qwen-local",
        "name": "Qwen (local)",
        "contextWindow": 8192,
        "maxTokens": 1024,
        "reasoning": False,
        "input": ["text", "image"],
        "cost": {"input": 1.0, "output": 2.0, "cacheRead": 0.0, "cacheWrite": 0.0},
    }
    sonnet = by_key[("anthropic", "claude-sonnet-4-5")]
    assert sonnet["contextWindow"] == 200_000
    assert sonnet["cost"]["output"] == 15.0


async def test_set_model_is_per_session_reported_at_once_and_survives_settings_and_restart(
    pi_in_process: Start, workspace: Path, data_dir: Path, srv: ScriptedHTTPServer
) -> None:
    settings = http_settings(srv)
    h = await pi_in_process(capabilities=NVIM_07, pi=settings)
    try:
        a = (await h.call("pi/newSession"))["sessionId"]
        b = (await h.call("pi/newSession"))["sessionId"]
        state = await h.call(
            "pi/setModel", {"sessionId": a, "model": "small-local", "thinkingLevel": "low"}
        )
        assert state["model"]["id"] == "small-local"
        assert state["thinkingLevel"] == "low"
        assert (await h.call("pi/state", {"sessionId": a}))["model"]["id"] == "small-local"
        assert (await h.call("pi/state", {"sessionId": b}))["model"]["id"] == "test-model"
        srv.enqueue(response(text_events("from a")))
        await h.run("hello", sessionId=a)
        assert srv.requests[-1].json["model"] == "small-local"

        # a settings change moves the sessions that follow the settings, not the one that chose
        h.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={"pi": {**settings, "model": "settings-model"}}
            )
        )
        await h.call("pi/sessions")  # processed after the notification
        srv.enqueue(response(text_events("from b")))
        await h.run("hello", sessionId=b)
        assert srv.requests[-1].json["model"] == "settings-model"
        srv.enqueue(response(text_events("a again")))
        await h.run("again", sessionId=a)
        assert srv.requests[-1].json["model"] == "small-local"
    finally:
        await stop(h)

    entries = session_file(data_dir, a)
    changes = [e for e in entries if e["type"] == "model_change"]
    assert changes[-1]["modelId"] == "small-local"
    assert any(
        e["type"] == "thinking_level_change" and e["thinkingLevel"] == "low" for e in entries
    )

    h2 = await pi_in_process(pi=settings)
    try:
        await h2.call("pi/resumeSession", {"sessionId": a})
        state = await h2.call("pi/state", {"sessionId": a})
        assert state["model"]["id"] == "small-local"
        assert state["thinkingLevel"] == "low"
    finally:
        await stop(h2)


async def test_set_model_mid_run_applies_from_the_next_model_call(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    gate = Pause(asyncio.Event())
    srv.enqueue(response(tool_events([("read", {"path": "a.py"})]), gate=gate, gate_after=1))
    srv.enqueue(response(text_events("done")))
    h = await pi_in_process(pi=http_settings(srv))
    sid = (await h.call("pi/prompt", {"text": "read a.py"}))["sessionId"]
    await srv.wait_for_requests(1)
    state = await h.call(
        "pi/setModel", {"sessionId": sid, "provider": "openai-compatible", "model": "bigger"}
    )
    assert state["model"]["id"] == "bigger"
    assert state["isStreaming"] is True
    gate.event.set()
    await h.wait_event(sid, "agent_end")
    assert [r.json["model"] for r in srv.requests] == ["test-model", "bigger"]


async def test_set_model_rejects_unknown_models_naming_them(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    h = await pi_in_process(pi=http_settings(srv))
    sid = (await h.call("pi/newSession"))["sessionId"]
    with pytest.raises(JsonRpcInvalidParams, match="gpt-9000"):
        await h.call("pi/setModel", {"sessionId": sid, "provider": "openai", "model": "gpt-9000"})
    with pytest.raises(JsonRpcInvalidParams, match="thinkingLevel"):
        await h.call("pi/setModel", {"sessionId": sid, "model": "x", "thinkingLevel": "max"})
    state = await h.call(
        "pi/setModel", {"sessionId": sid, "provider": "anthropic", "model": "claude-haiku-4-5"}
    )
    assert state["model"]["provider"] == "anthropic"
    assert state["contextWindow"] == 200_000


async def test_state_reports_usage_totals_and_the_context_meter(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    custom = {"id": "priced", "contextWindow": 32_000, "cost": {"input": 2.0, "output": 10.0}}
    h = await pi_in_process(pi=http_settings(srv, model="priced", models=[custom]))
    sid = (await h.call("pi/newSession"))["sessionId"]
    fresh = await h.call("pi/state", {"sessionId": sid})
    assert fresh["usage"] == {
        "input": 0,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "cost": 0.0,
        "reasoning": 0,
    }
    assert fresh["contextTokens"] > 500  # the system prompt and the tools, estimated
    assert fresh["contextWindow"] == 32_000
    srv.enqueue(response(with_usage(text_events("one"), 1000, 100, reasoning=40)))
    srv.enqueue(response(with_usage(text_events("two"), 1500, 200, reasoning=70)))
    await h.run("first", sessionId=sid)
    await h.run("second", sessionId=sid)
    state = await h.call("pi/state", {"sessionId": sid})
    assert state["usage"]["input"] == 2500
    assert state["usage"]["output"] == 300
    assert state["usage"]["reasoning"] == 110  # of the output, as the server reported
    assert state["usage"]["cost"] == pytest.approx((2500 * 2.0 + 300 * 10.0) / 1e6)
    assert state["contextTokens"] == 1700  # the last request's usage, nothing after it


async def test_compaction_triggers_for_a_4k_local_model(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    h = await pi_in_process(pi=http_settings(srv, contextWindow=4096, maxTokens=512))
    sid = (await h.call("pi/newSession"))["sessionId"]
    long = "x" * 2400  # ~600 tokens a prompt
    srv.enqueue(response(with_usage(text_events("ok 1"), 700, 10)))
    srv.enqueue(response(with_usage(text_events("ok 2"), 1400, 10)))
    srv.enqueue(response(with_usage(text_events("ok 3"), 3400, 10)))  # > 4096 - 1024
    srv.enqueue(response(text_events("## Goal\nsummary of the first exchange")))
    for n in (1, 2, 3):
        await h.run(f"{n} {long}", sessionId=sid)
    end = await h.wait_event(sid, "compaction_end")
    assert end["reason"] == "threshold"
    assert end["tokensBefore"] > 0
    assert "errorMessage" not in end
    assert srv.requests[0].json["max_tokens"] == 512
    summary_request = srv.requests[3].json
    assert summary_request["max_tokens"] <= 1024
    resumed = await h.call("pi/resumeSession", {"sessionId": sid})
    assert resumed["messages"][0]["role"] == "compactionSummary"
