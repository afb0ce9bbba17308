"""A ``baseUrl`` that answers in another wire API's shape: each provider fails at once,
naming the API the server speaks and the setting to change (a real socket, real SSE)."""

from __future__ import annotations

from typing import Any

import pytest

from pi_lsp.ai import Model, stream
from tests.ai.helpers import collect, context, options
from tests.support.http_server import ScriptedHTTPServer, sse_response

CHUNKS: dict[str, dict[str, Any]] = {
    "openai-completions": {"id": "c", "choices": [{"index": 0, "delta": {"content": "hi"}}]},
    "openai-responses": {"type": "response.created", "response": {"id": "resp_1"}},
    "anthropic-messages": {"type": "message_start", "message": {"id": "msg_1", "usage": {}}},
    "google-generative-ai": {"candidates": [{"content": {"parts": [{"text": "hi"}]}}]},
}
BASE = {
    "openai-completions": "/v1",
    "openai-responses": "/v1",
    "anthropic-messages": "",
    "google-generative-ai": "/v1beta",
}


@pytest.mark.parametrize("api", list(CHUNKS))
async def test_another_apis_stream_is_named(srv: ScriptedHTTPServer, api: str) -> None:
    for other, chunk in CHUNKS.items():
        if other == api:
            continue
        srv.enqueue(sse_response([chunk], done=False))
        model = Model(id="m", api=api, provider="openai-compatible", base_url=srv.url + BASE[api])
        _, final = await collect(stream(model, context(), options(max_retries=0)))
        assert final.stop_reason == "error"
        assert final.error_message == (
            f"The server at `baseUrl` answered in the {other} shape, not {api}: set `api` to "
            f"{other} (the `api` setting / --api), or fix `baseUrl`"
        )
