"""``pi/*`` requests driven by the contract (``protocol/contract.py``'s ``REQUEST_TYPES``):
for each method the table names, the handler ``async def <method in snake case>(params:
XParams) -> XResult`` is found on the API object and wrapped once here — the params are
validated into the table's model (``InvalidParams`` naming the field), a domain error
becomes its JSON-RPC error (``errors.jsonrpc_error``), the result goes out as its model's
wire form (``to_wire``).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from ..protocol.contract import REQUEST_TYPES
from ..protocol.models import WireParams, parse_params
from .errors import jsonrpc_error

WireHandler = Callable[[Any], Awaitable[dict[str, Any]]]
TypedHandler = Callable[[Any], Awaitable[WireParams]]


def handler_name(method: str) -> str:
    """``pi/reviewDecision`` → ``review_decision``."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", method.removeprefix("pi/")).lower()


def wire_handler(method: str, handler: TypedHandler) -> WireHandler:
    params_model, _ = REQUEST_TYPES[method]

    async def pi_request(raw: Any) -> dict[str, Any]:
        params = parse_params(method, params_model, raw)
        try:
            result = await handler(params)
        except Exception as exc:
            error = jsonrpc_error(method, exc)
            if error is None:
                raise
            raise error from None
        return result.to_wire()

    return pi_request


def wire_handlers(api: object) -> dict[str, WireHandler]:
    """Every request of the contract, served by ``api``'s handler of the same name."""
    return {
        method: wire_handler(method, getattr(api, handler_name(method))) for method in REQUEST_TYPES
    }
