"""OpenAI Chat Completions SSE bodies for the scripted HTTP server (e2e tests)."""

from __future__ import annotations

import json
from typing import Any

from tests.support.http_server import Pause, ScriptedResponse, Step, json_response, sse


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def text_events(text: str, pieces: int = 4) -> list[dict[str, Any]]:
    size = max(1, -(-len(text) // pieces))
    parts = [text[i : i + size] for i in range(0, len(text), size)]
    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": p}) for p in parts]
    events.append(chunk({}, "stop"))
    return events


def tool_events(calls: list[tuple[str, dict[str, Any]]], text: str = "") -> list[dict[str, Any]]:
    events = [chunk({"role": "assistant", "content": text})]
    for index, (name, args) in enumerate(calls):
        raw = json.dumps(args)
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": f"call_{index}_{name}",
                            "type": "function",
                            "function": {"name": name, "arguments": ""},
                        }
                    ]
                }
            )
        )
        for i in range(0, len(raw), 7):
            events.append(
                chunk({"tool_calls": [{"index": index, "function": {"arguments": raw[i : i + 7]}}]})
            )
    events.append(chunk({}, "tool_calls"))
    return events


def response(
    events: list[dict[str, Any]],
    *,
    gate: Pause | None = None,
    gate_after: int = 2,
    tail: list[Step] | None = None,
    done: bool = True,
) -> ScriptedResponse:
    """An SSE response; with ``gate``, the body stops after ``gate_after`` events until the
    test sets the gate's event."""
    steps: list[Step]
    if gate is None:
        steps = sse(events, done=done)
    else:
        steps = [*sse(events[:gate_after], done=False), gate, *sse(events[gate_after:], done=done)]
    steps += list(tail or [])
    return ScriptedResponse(
        status=200,
        headers={"content-type": "text/event-stream", "cache-control": "no-cache"},
        body=steps,
    )


def error(status: int, message: str, **headers: str) -> ScriptedResponse:
    return json_response(status, {"error": {"message": message}}, headers=headers)
