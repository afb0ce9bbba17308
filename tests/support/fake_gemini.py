"""A fake Gemini API (``POST /v1beta/models/{model}:streamGenerateContent?alt=sse``), written
from Google's API reference rather than from our own fixtures, to run on
``ScriptedHTTPServer.handler``.

Checks a request as the service does where a client can get it wrong:

- the key in ``x-goog-api-key``; ``contents`` turns of role ``user`` / ``model``;
- a ``functionCall`` part this server sent with an ``id`` is replayed with that ``id``, and
  the ``functionResponse`` answering it carries the matching ``id`` ("The id of the function
  call this response is for. Populated by the client to match the corresponding function call
  id."); a turn of function responses answers every call of the turn before it, by name.

Quota errors are the ``google.rpc.Status`` body the service sends with HTTP 429
(``RESOURCE_EXHAUSTED``): "You exceeded your current quota, please check your plan and
billing details…", with a ``QuotaFailure`` naming the quota and a ``RetryInfo.retryDelay``.
``limit_per_minute(n)`` answers the next ``n`` requests with the per-minute one
(``GenerateRequestsPerMinutePerProjectPerModel-FreeTier``); ``exhaust_daily_quota()`` answers
every request with the per-day one from then on.

Answers stream as whole ``GenerateContentResponse`` chunks (``data:`` lines, no ``[DONE]``):
a ``functionCall`` of the first declared function (with an ``id``) when the last turn is the
user's text and tools are declared, else text; ``usageMetadata`` with ``thoughtsTokenCount``.
Imports nothing of ``pi_lsp``.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from tests.support.http_server import (
    RecordedRequest,
    ScriptedResponse,
    json_response,
    sse_response,
)

PER_MINUTE_QUOTA = "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"
PER_DAY_QUOTA = "GenerateRequestsPerDayPerProjectPerModel-FreeTier"
_PATH = re.compile(r"^/v1beta/models/([^/:]+):streamGenerateContent$")
THOUGHT_TOKENS = 48


def _status(
    code: int, status: str, message: str, details: list[Any] | None = None
) -> ScriptedResponse:
    error: dict[str, Any] = {"code": code, "message": message, "status": status}
    if details is not None:
        error["details"] = details
    return json_response(code, {"error": error})


def quota_error(model: str, quota_id: str, limit: int, retry_delay: str) -> ScriptedResponse:
    """The 429 body of an exceeded quota, as the service sends it."""
    metric = "generativelanguage.googleapis.com/generate_content_free_tier_requests"
    seconds = retry_delay.rstrip("s")
    message = (
        "You exceeded your current quota, please check your plan and billing details. For more "
        "information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. "
        "To monitor your current usage, head to: https://ai.dev/usage?tab=rate-limit. \n"
        f"* Quota exceeded for metric: {metric}, limit: {limit}, model: {model}\n"
        f"Please retry in {seconds}s."
    )
    details = [
        {
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            "violations": [
                {
                    "quotaMetric": metric,
                    "quotaId": quota_id,
                    "quotaDimensions": {"location": "global", "model": model},
                    "quotaValue": str(limit),
                }
            ],
        },
        {
            "@type": "type.googleapis.com/google.rpc.Help",
            "links": [
                {
                    "description": "Learn more about Gemini API quotas",
                    "url": "https://ai.google.dev/gemini-api/docs/rate-limits",
                }
            ],
        },
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retry_delay},
    ]
    return _status(429, "RESOURCE_EXHAUSTED", message, details)


@dataclass
class FakeGeminiAPI:
    key: str
    issue_ids: bool = True
    """Give each ``functionCall`` an ``id`` (as the service does for newer models)."""
    retry_delay: str = "0.05s"
    issued: dict[str, str] = field(default_factory=dict)
    """call id → function name, for every call this server sent."""
    rejected: list[str] = field(default_factory=list)
    _rate_limited: int = 0
    _daily_spent: bool = False
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def limit_per_minute(self, requests: int) -> None:
        self._rate_limited = requests

    def exhaust_daily_quota(self) -> None:
        self._daily_spent = True

    def __call__(self, request: RecordedRequest) -> ScriptedResponse:
        response = self._answer(request)
        if response.status != 200:
            self.rejected.append(json.loads(response.body)["error"]["message"])  # type: ignore[arg-type]
        return response

    def _answer(self, request: RecordedRequest) -> ScriptedResponse:
        match = _PATH.match(request.path)
        if request.method != "POST" or match is None:
            return _status(404, "NOT_FOUND", f"Method not found: {request.path}")
        if request.headers.get("x-goog-api-key") != self.key:
            return _status(
                400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key."
            )
        model = match.group(1)
        if self._daily_spent:
            return quota_error(model, PER_DAY_QUOTA, 250, "43200s")
        if self._rate_limited > 0:
            self._rate_limited -= 1
            return quota_error(model, PER_MINUTE_QUOTA, 10, self.retry_delay)
        body = request.json
        contents = body.get("contents") if isinstance(body, dict) else None
        if not isinstance(contents, list) or not contents:
            return _status(
                400,
                "INVALID_ARGUMENT",
                "* GenerateContentRequest.contents: contents is not specified",
            )
        problem = self._check_contents(contents)
        if problem is not None:
            return _status(400, "INVALID_ARGUMENT", problem)
        return self._respond(model, body, contents)

    def _check_contents(self, contents: list[Any]) -> str | None:
        previous_calls: list[dict[str, Any]] = []
        for turn in contents:
            role = turn.get("role") if isinstance(turn, dict) else None
            parts = turn.get("parts") if isinstance(turn, dict) else None
            if role not in ("user", "model") or not isinstance(parts, list):
                return "Please use a valid role: user, model."
            calls = [
                p["functionCall"] for p in parts if isinstance(p, dict) and "functionCall" in p
            ]
            answers = [
                p["functionResponse"]
                for p in parts
                if isinstance(p, dict) and "functionResponse" in p
            ]
            for call in calls:
                call_id = call.get("id")
                sent = [i for i, name in self.issued.items() if name == call.get("name")]
                if sent and call_id not in self.issued:
                    return (
                        f"Function call for '{call.get('name')}' was replayed without the id "
                        "the model gave it"
                    )
            if answers:
                if len(answers) != len(previous_calls):
                    return (
                        "Please ensure that the number of function response parts is equal to "
                        "the number of function call parts of the function call turn."
                    )
                for answer in answers:
                    wanted = [c for c in previous_calls if c.get("name") == answer.get("name")]
                    if not wanted:
                        return f"Function response for '{answer.get('name')}' has no function call"
                    ids = {c.get("id") for c in wanted if c.get("id")}
                    if ids and answer.get("id") not in ids:
                        return (
                            f"Function response id {answer.get('id')!r} does not match the id "
                            f"of the function call it answers ({', '.join(sorted(ids))})"
                        )
            previous_calls = calls
        return None

    def _respond(self, model: str, body: dict[str, Any], contents: list[Any]) -> ScriptedResponse:
        n = next(self._ids)
        declarations = [
            d for tool in body.get("tools") or [] for d in tool.get("functionDeclarations") or []
        ]
        last_parts = contents[-1].get("parts") or []
        answered = any("functionResponse" in p for p in last_parts)
        if declarations and not answered:
            call: dict[str, Any] = {"name": declarations[0]["name"], "args": {"path": "README.md"}}
            if self.issue_ids:
                call["id"] = f"fc{n:03d}x7k2"
                self.issued[call["id"]] = call["name"]
            part: dict[str, Any] = {"functionCall": call}
        else:
            part = {"text": "done" if declarations else "hello"}
        chunk = {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 50,
                "candidatesTokenCount": 10,
                "thoughtsTokenCount": THOUGHT_TOKENS,
                "totalTokenCount": 50 + 10 + THOUGHT_TOKENS,
            },
            "modelVersion": model,
            "responseId": f"resp{n:04d}",
        }
        return sse_response([chunk], done=False)
