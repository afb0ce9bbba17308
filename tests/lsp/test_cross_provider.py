"""A conversation started on one wire API continues on another after ``pi/setModel``: Pi's
transform rules (thinking from another model becomes text, signatures stay behind, tool-call
ids are normalised and their results follow). Three custom models of one local server, each
on its own API (Anthropic Messages → OpenAI Responses → Gemini), in the in-process tier."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from tests.ai.helpers import an_end, an_start, an_text_block, an_tool_block
from tests.support.http_server import ScriptedHTTPServer, sse_response

from .conftest import Start, http_settings


def anthropic_thinking(index: int, text: str, signature: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "thinking", "thinking": ""},
        },
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "thinking_delta", "thinking": text},
        },
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "signature_delta", "signature": signature},
        },
        {"type": "content_block_stop", "index": index},
    ]


def anthropic(events: list[dict[str, Any]]) -> Any:
    return sse_response(events, named=True, done=False)


def responses_answer(text: str) -> Any:
    item = {"type": "message", "id": "msg_r1", "role": "assistant"}
    return sse_response(
        [
            {"type": "response.created", "response": {"id": "resp_1"}},
            {
                "type": "response.output_item.added",
                "item": {"type": "reasoning", "id": "rs_1", "summary": []},
            },
            {
                "type": "response.output_item.done",
                "item": {
                    "type": "reasoning",
                    "id": "rs_1",
                    "summary": [{"type": "summary_text", "text": "Responses reasoning."}],
                    "encrypted_content": "opaque==",
                },
            },
            {"type": "response.output_item.added", "item": {**item, "content": []}},
            {"type": "response.content_part.added", "part": {"type": "output_text", "text": ""}},
            {"type": "response.output_text.delta", "delta": text},
            {
                "type": "response.output_item.done",
                "item": {**item, "content": [{"type": "output_text", "text": text}]},
            },
            {
                "type": "response.completed",
                "response": {"id": "resp_1", "status": "completed", "usage": {}},
            },
        ],
        named=True,
        done=False,
    )


def gemini_answer(text: str) -> Any:
    candidate = {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
    return sse_response([{"candidates": [candidate]}], done=False)


async def test_a_conversation_moves_across_three_apis(
    pi_in_process: Start, srv: ScriptedHTTPServer, workspace: Path
) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    local = {"provider": "openai-compatible", "reasoning": True}
    models = [
        {**local, "id": "claude-local", "api": "anthropic-messages"},
        {**local, "id": "gpt-local", "api": "openai-responses"},
        {
            **local,
            "id": "gemini-local",
            "api": "google-generative-ai",
            "baseUrl": srv.url + "/v1beta",
        },
    ]
    h = await pi_in_process(pi=http_settings(srv, models=models))
    sid = (await h.call("pi/newSession"))["sessionId"]
    await h.call(
        "pi/setModel", {"sessionId": sid, "provider": "openai-compatible", "model": "claude-local"}
    )

    # 1. Anthropic: thinking (signed) and a tool call, then an answer
    srv.enqueue(
        anthropic(
            [
                an_start(),
                *anthropic_thinking(0, "Claude thinks.", "c2lnLWFudGhyb3BpYw=="),
                *an_tool_block(1, "toolu_01ABC", "read", json.dumps({"path": "a.py"})),
                *an_end("tool_use"),
            ]
        ),
        path="/v1/messages",
    )
    srv.enqueue(
        anthropic([an_start(), *an_text_block(0, "x is 1."), *an_end()]), path="/v1/messages"
    )
    await h.run("What is x in a.py?", sessionId=sid)
    assert [r.path for r in srv.requests] == ["/v1/messages", "/v1/messages"]

    # 2. OpenAI Responses: the history replayed by another model's rules
    await h.call(
        "pi/setModel", {"sessionId": sid, "provider": "openai-compatible", "model": "gpt-local"}
    )
    srv.enqueue(responses_answer("Still 1."), path="/v1/responses")
    await h.run("And now?", sessionId=sid)
    body = srv.requests[-1].json
    assert body["model"] == "gpt-local"
    assert body["prompt_cache_key"] == sid  # OpenAI's prompt cache follows the session
    assert body["store"] is False
    items = body["input"]
    texts = [c["text"] for i in items if i.get("type") == "message" for c in i["content"]]
    assert "Claude thinks." in texts  # thinking from another model: plain text
    assert not any(i.get("type") == "reasoning" for i in items)
    call = next(i for i in items if i.get("type") == "function_call")
    assert call["call_id"] == "toolu_01ABC"
    assert "id" not in call  # a foreign call has no item id
    output = next(i for i in items if i.get("type") == "function_call_output")
    assert output["call_id"] == "toolu_01ABC"
    assert "x = 1" in output["output"]

    # 3. Gemini: everything earlier is another model's; signatures stay behind
    await h.call(
        "pi/setModel", {"sessionId": sid, "provider": "openai-compatible", "model": "gemini-local"}
    )
    srv.enqueue(gemini_answer("One."), path="/v1beta/models/gemini-local:streamGenerateContent")
    await h.run("Once more?", sessionId=sid)
    body = srv.requests[-1].json
    contents = body["contents"]
    assert [c["role"] for c in contents] == [
        "user",
        "model",
        "user",
        "model",
        "user",
        "model",
        "user",
    ]
    dumped = json.dumps(contents)
    assert "thoughtSignature" not in dumped
    assert "c2lnLWFudGhyb3BpYw==" not in dumped
    assert {"text": "Claude thinks."} in contents[1]["parts"]
    assert {"text": "Responses reasoning."} in contents[5]["parts"]
    assert {"functionCall": {"name": "read", "args": {"path": "a.py"}}} in contents[1]["parts"]
    response = contents[2]["parts"][0]["functionResponse"]
    assert response["name"] == "read"
    assert "x = 1" in response["response"]["output"]
    end = h.session_events(sid)[-1]["event"]
    assert end["messages"][-1]["content"][0]["text"] == "One."


async def test_google_models_are_offered_and_chosen_by_id(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    h = await pi_in_process(pi=http_settings(srv))
    offered = (await h.call("pi/models"))["models"]
    gemini = {m["id"]: m for m in offered if m["provider"] == "google"}
    assert gemini["gemini-2.5-pro"]["contextWindow"] == 1_048_576
    assert gemini["gemini-2.5-pro"]["cost"]["output"] == 10.0
    assert gemini["gemini-3-pro-preview"]["reasoning"] is True
    assert {m["id"] for m in offered if m["provider"] == "openai"} >= {"gpt-5.4", "o3"}
    sid = (await h.call("pi/newSession"))["sessionId"]
    state = await h.call(
        "pi/setModel", {"sessionId": sid, "provider": "google", "model": "gemini-2.5-flash"}
    )
    assert (state["model"]["provider"], state["model"]["id"]) == ("google", "gemini-2.5-flash")
    assert state["contextWindow"] == 1_048_576
    with pytest.raises(JsonRpcInvalidParams, match="gemini-9000"):
        await h.call(
            "pi/setModel", {"sessionId": sid, "provider": "google", "model": "gemini-9000"}
        )
