"""An injected client keeps one keep-alive connection across requests: the providers read each
response to its end (past the final event), so httpx can pool the connection."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pi_lsp.ai import Model, stream
from pi_lsp.ai.http import new_http_client
from tests.ai.helpers import (
    an_text_events,
    anthropic_model,
    collect,
    context,
    oa_text_events,
    openai_model,
    options,
)
from tests.support.http_server import ScriptedHTTPServer, sse_response


@pytest.mark.parametrize(
    ("make_model", "events"),
    [(openai_model, oa_text_events), (anthropic_model, an_text_events)],
    ids=["openai-completions", "anthropic-messages"],
)
async def test_two_requests_share_one_connection(
    srv: ScriptedHTTPServer,
    make_model: Callable[[ScriptedHTTPServer], Model],
    events: Callable[[str], list[dict[str, Any]]],
) -> None:
    srv.enqueue(sse_response(events("first")))
    srv.enqueue(sse_response(events("second")))
    model = make_model(srv)
    async with new_http_client() as http:
        for expected in ("first", "second"):
            _, final = await collect(stream(model, context(), options(http_client=http)))
            assert final.stop_reason == "stop"
            assert final.content[0].text == expected  # type: ignore[union-attr]
    assert len(srv.requests) == 2
    assert srv.connections == 1
