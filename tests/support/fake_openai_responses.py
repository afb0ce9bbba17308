"""A fake OpenAI Responses API (``POST /v1/responses``, streamed), written from OpenAI's API
reference rather than from our own fixtures, to run on ``ScriptedHTTPServer.handler``.

It checks a request body as the real service does where a client can get it wrong:

- ``store`` defaults to true. Items of a response made with ``store: false`` are not kept, so
  a replayed ``reasoning`` item must carry the ``encrypted_content`` the server handed out
  (only sent when the request's ``include`` asks for ``reasoning.encrypted_content``);
  without it the answer is 404 "Item with id 'rs_…' not found. Items are not persisted when
  `store` is set to false…". Encrypted content the server never issued is a 400.
- A replayed ``function_call`` whose ``id`` the server paired with a reasoning item needs that
  reasoning item in the input before it (400 "… was provided without its required
  'reasoning' item …"); a ``function_call_output`` needs a ``function_call`` with its
  ``call_id`` (400 "No tool call found …").
- o3 / o4-mini take reasoning efforts low / medium / high only.
- Reasoning models (o-series, gpt-5*) always produce a reasoning item, thinking requested or
  not; its summary only with ``reasoning.summary``. Usage reports
  ``output_tokens_details.reasoning_tokens``.

What it answers: a ``function_call`` of the first tool when the input ends with the user's
message and tools are offered, else a short message. Events as the reference lists them
(``event:`` named, ``sequence_number``, no ``[DONE]``). Imports nothing of ``pi_lsp``.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Any

from tests.support.http_server import (
    RecordedRequest,
    ScriptedResponse,
    json_response,
    sse_response,
)

REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")
EFFORTS_O_SERIES = ("low", "medium", "high")
REASONING_TOKENS = 64
TOOL_ARGUMENTS = '{"path":"README.md"}'


def _error(status: int, message: str, param: str | None = None) -> ScriptedResponse:
    return json_response(
        status,
        {
            "error": {
                "message": message,
                "type": "invalid_request_error",
                "param": param,
                "code": None,
            }
        },
    )


def item_not_found(item_id: str) -> ScriptedResponse:
    """The service's 404 for a replayed item it does not have (``store: false``)."""
    return _error(
        404,
        f"Item with id '{item_id}' not found. Items are not persisted when `store` is set to "
        "false. Try again with `store` set to true, or remove this item from your input.",
        "input",
    )


@dataclass
class FakeResponsesAPI:
    key: str
    stored: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Items of responses made with ``store: true``, by id."""
    issued_encrypted: dict[str, str] = field(default_factory=dict)
    """encrypted_content → the reasoning item id it belongs to."""
    paired: dict[str, str] = field(default_factory=dict)
    """function_call item id → the reasoning item id made with it."""
    rejected: list[str] = field(default_factory=list)
    """The error message of every request this server refused."""
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    # ------------------------------------------------------------------ request

    def __call__(self, request: RecordedRequest) -> ScriptedResponse:
        response = self._answer(request)
        if response.status != 200:
            self.rejected.append(json.loads(response.body)["error"]["message"])  # type: ignore[arg-type]
        return response

    def _answer(self, request: RecordedRequest) -> ScriptedResponse:
        if request.method != "POST" or request.path != "/v1/responses":
            return _error(404, f"Invalid URL ({request.method} {request.path})")
        if request.headers.get("authorization") != f"Bearer {self.key}":
            return json_response(
                401,
                {
                    "error": {
                        "message": "Incorrect API key provided",
                        "type": "invalid_request_error",
                        "param": None,
                        "code": "invalid_api_key",
                    }
                },
            )
        body = request.json
        if not isinstance(body, dict) or not isinstance(body.get("model"), str):
            return _error(400, "Missing required parameter: 'model'.", "model")
        model: str = body["model"]
        reasoning_model = model.startswith(REASONING_PREFIXES)
        effort = (body.get("reasoning") or {}).get("effort")
        if effort is not None and model.startswith(("o3", "o4")) and effort not in EFFORTS_O_SERIES:
            return _error(
                400,
                f"Unsupported value: '{effort}' is not supported with the '{model}' model. "
                "Supported values are: 'low', 'medium', and 'high'.",
                "reasoning.effort",
            )
        items = body.get("input")
        items = [{"role": "user", "content": items}] if isinstance(items, str) else items
        if not isinstance(items, list):
            return _error(400, "Invalid type for 'input'.", "input")
        store = body.get("store", True) is not False
        problem = self._check_input(items, store)
        if problem is not None:
            return problem
        return self._respond(body, items, store, reasoning_model)

    def _check_input(self, items: list[Any], store: bool) -> ScriptedResponse | None:
        seen_reasoning: set[str] = set()
        calls: set[str] = set()
        for item in items:
            if not isinstance(item, dict):
                return _error(400, "Invalid input item.", "input")
            kind = item.get("type")
            if kind == "reasoning":
                item_id = str(item.get("id") or "")
                encrypted = item.get("encrypted_content")
                if encrypted:
                    if self.issued_encrypted.get(encrypted) != item_id:
                        return _error(
                            400,
                            f"The encrypted content for item {item_id} could not be verified.",
                            "input",
                        )
                elif not (store and item_id in self.stored):
                    return item_not_found(item_id)
                seen_reasoning.add(item_id)
            elif kind == "function_call":
                item_id = item.get("id")
                needed = self.paired.get(item_id) if isinstance(item_id, str) else None
                if needed is not None and needed not in seen_reasoning:
                    return _error(
                        400,
                        f"Item '{item_id}' of type 'function_call' was provided without its "
                        f"required 'reasoning' item: '{needed}'.",
                        "input",
                    )
                calls.add(str(item.get("call_id")))
            elif kind == "function_call_output":
                call_id = str(item.get("call_id"))
                if call_id not in calls:
                    return _error(
                        400,
                        f"No tool call found for function call output with call_id {call_id}.",
                        "input",
                    )
        return None

    # ----------------------------------------------------------------- response

    def _respond(
        self, body: dict[str, Any], items: list[Any], store: bool, reasoning_model: bool
    ) -> ScriptedResponse:
        n = next(self._ids)
        rid = f"resp_{n:04d}"
        include = body.get("include") or []
        summary_wanted = bool((body.get("reasoning") or {}).get("summary"))
        events: list[dict[str, Any]] = []
        output: list[dict[str, Any]] = []
        reasoning_id: str | None = None
        if reasoning_model:
            reasoning_id = f"rs_{n:04d}"
            summary = (
                [{"type": "summary_text", "text": "**Planning** Looking at the request."}]
                if summary_wanted
                else []
            )
            item: dict[str, Any] = {"id": reasoning_id, "type": "reasoning", "summary": summary}
            if "reasoning.encrypted_content" in include:
                token = f"gAAAAAB{n:04d}-sealed-{reasoning_id}=="
                self.issued_encrypted[token] = reasoning_id
                item["encrypted_content"] = token
            output.append(item)
        last = items[-1] if items else {}
        tools = body.get("tools") or []
        if tools and isinstance(last, dict) and last.get("type") != "function_call_output":
            fc_id = f"fc_{n:04d}"
            output.append(
                {
                    "id": fc_id,
                    "type": "function_call",
                    "status": "completed",
                    "call_id": f"call_{n:04d}",
                    "name": tools[0]["name"],
                    "arguments": TOOL_ARGUMENTS,
                }
            )
            if reasoning_id is not None:
                self.paired[fc_id] = reasoning_id
        else:
            text = "done" if tools else "hello"
            output.append(
                {
                    "id": f"msg_{n:04d}",
                    "type": "message",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            )
        if store:
            self.stored.update({o["id"]: o for o in output})
        base = {"id": rid, "object": "response", "model": body["model"], "store": store}
        events.append(
            {
                "type": "response.created",
                "response": {**base, "status": "in_progress", "output": []},
            }
        )
        events.append(
            {
                "type": "response.in_progress",
                "response": {**base, "status": "in_progress", "output": []},
            }
        )
        for index, item in enumerate(output):
            events += _item_events(index, item)
        reasoning = REASONING_TOKENS if reasoning_model else 0
        usage = {
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 20 + reasoning,
            "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": 120 + reasoning,
        }
        events.append(
            {
                "type": "response.completed",
                "response": {**base, "status": "completed", "output": output, "usage": usage},
            }
        )
        for seq, event in enumerate(events):
            event["sequence_number"] = seq
        return sse_response(events, named=True, done=False)


def _item_events(index: int, item: dict[str, Any]) -> list[dict[str, Any]]:
    """``output_item.added`` … ``output_item.done`` for one finished item."""
    kind = item["type"]
    opened = {**item, "status": "in_progress"} if kind != "reasoning" else {**item, "summary": []}
    if kind == "message":
        opened["content"] = []
    if kind == "function_call":
        opened["arguments"] = ""
    opened.pop("encrypted_content", None)
    out: list[dict[str, Any]] = [
        {"type": "response.output_item.added", "output_index": index, "item": opened}
    ]
    ids = {"item_id": item["id"], "output_index": index}
    if kind == "reasoning":
        for part_index, part in enumerate(item["summary"]):
            at = {**ids, "summary_index": part_index}
            out += [
                {
                    "type": "response.reasoning_summary_part.added",
                    **at,
                    "part": {"type": "summary_text", "text": ""},
                },
                {"type": "response.reasoning_summary_text.delta", **at, "delta": part["text"]},
                {"type": "response.reasoning_summary_text.done", **at, "text": part["text"]},
                {"type": "response.reasoning_summary_part.done", **at, "part": part},
            ]
    elif kind == "function_call":
        out += [
            {"type": "response.function_call_arguments.delta", **ids, "delta": item["arguments"]},
            {
                "type": "response.function_call_arguments.done",
                **ids,
                "arguments": item["arguments"],
            },
        ]
    else:
        text = item["content"][0]["text"]
        at = {**ids, "content_index": 0}
        empty = {"type": "output_text", "text": "", "annotations": []}
        out += [
            {"type": "response.content_part.added", **at, "part": empty},
            {"type": "response.output_text.delta", **at, "delta": text},
            {"type": "response.output_text.done", **at, "text": text},
            {"type": "response.content_part.done", **at, "part": item["content"][0]},
        ]
    out.append({"type": "response.output_item.done", "output_index": index, "item": item})
    return out
