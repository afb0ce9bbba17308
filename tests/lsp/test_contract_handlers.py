"""The ``pi/*`` handlers are driven by the contract (``protocol/contract.py``'s table): one
typed handler per method, registered from the table, and one place that turns domain errors
into JSON-RPC errors."""

from __future__ import annotations

import inspect
from typing import get_type_hints

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from pi_lsp.lsp.handlers.dispatch import handler_name, wire_handler
from pi_lsp.lsp.handlers.errors import (
    REQUEST_FAILED,
    SERVER_NOT_INITIALIZED,
    InvalidRequest,
    NotInitializedError,
    RequestFailed,
    jsonrpc_error,
)
from pi_lsp.lsp.handlers.requests import PiApi
from pi_lsp.lsp.host.agent_setup import SetupError
from pi_lsp.lsp.host.session_manager import UnknownSessionError, UnknownTargetError
from pi_lsp.lsp.protocol.contract import REQUEST_TYPES
from pi_lsp.lsp.protocol.models import AbortResult, SessionParams
from pi_lsp.sessions import CompactionError
from pi_lsp.sessions.session_queues import NotQueuedError


def test_every_request_of_the_table_has_a_handler_typed_as_the_table_says() -> None:
    assert handler_name("pi/reviewDecision") == "review_decision"
    for method, (params, result) in REQUEST_TYPES.items():
        handler = getattr(PiApi, handler_name(method))
        assert inspect.iscoroutinefunction(handler), method
        hints = get_type_hints(handler)
        (param,) = [name for name in inspect.signature(handler).parameters if name != "self"]
        assert hints[param] is params, method
        assert result is not None
        # the table's result, or the part of it a method sends (pi/setModel: the state
        # without the MCP servers)
        assert issubclass(result, hints["return"]), method


async def test_the_wrapper_validates_calls_and_sends_the_wire_form() -> None:
    seen: list[SessionParams] = []

    async def abort(p: SessionParams) -> AbortResult:
        seen.append(p)
        return AbortResult(aborted=True)

    handler = wire_handler("pi/abort", abort)
    assert await handler({"sessionId": "s1"}) == {"aborted": True}
    assert seen[0].session_id == "s1"
    with pytest.raises(JsonRpcInvalidParams, match="Invalid params for pi/abort"):
        await handler({"sessionId": 3})

    async def unknown(p: SessionParams) -> AbortResult:
        raise UnknownSessionError("s2")

    with pytest.raises(JsonRpcInvalidParams, match="Unknown session: s2"):
        await wire_handler("pi/abort", unknown)({})


@pytest.mark.parametrize(
    ("error", "code", "message"),
    [
        (UnknownSessionError("s"), -32602, "Unknown session: s"),
        (UnknownTargetError("unknown session: s"), -32602, "unknown session: s"),
        (
            NotQueuedError("q1", "s"),
            -32602,
            "Invalid params for pi/queue: id 'q1' is not queued in session s (unknown, or "
            "already delivered or removed)",
        ),
        (InvalidRequest("revoke needs an id"), -32602, "Invalid params for pi/queue: revoke"),
        (SetupError("fix pi.model"), REQUEST_FAILED, "fix pi.model"),
        (CompactionError("no summary"), REQUEST_FAILED, "no summary"),
        (RequestFailed("running"), REQUEST_FAILED, "running"),
        (NotInitializedError(), SERVER_NOT_INITIALIZED, "Server not initialized"),
    ],
)
def test_one_place_maps_domain_errors_to_json_rpc(
    error: Exception, code: int, message: str
) -> None:
    answer = jsonrpc_error("pi/queue", error)
    assert answer is not None
    assert answer.code == code
    assert str(answer.message).startswith(message)


def test_other_errors_are_not_domain_errors() -> None:
    assert jsonrpc_error("pi/queue", KeyError("q1")) is None
    assert jsonrpc_error("pi/queue", RuntimeError("bug")) is None
