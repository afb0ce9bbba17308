"""``capabilities.experimental.pi`` (docs/protocol.md#declared-features): the server declares
its ``pi/*`` features with versions in its ``initialize`` answer, the VS Code client reads them
instead of probing. Every declared feature must be real: one of its methods answers on this
server, and the answer has the shape the schema (``protocol.contract``) gives the clients."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from pi_lsp.lsp.protocol import contract, features, methods
from pi_lsp.lsp.serve.stdio import initialize_result

from .conftest import Start
from .harness import Harness


def declared(h: Harness) -> dict[str, Any]:
    assert h.initialize_result is not None
    experimental = h.initialize_result.capabilities.experimental
    assert isinstance(experimental, dict)
    pi = experimental["pi"]
    assert isinstance(pi, dict)
    return pi


async def test_initialize_declares_the_pi_features_with_versions(pi_in_process: Start) -> None:
    h = await pi_in_process()
    pi = declared(h)
    assert pi == contract.declared()
    assert pi["protocolVersion"] == features.PROTOCOL_VERSION == 3
    assert {"queue", "interrupt", "review", "checkpoints", "models", "mcp", "planMode"} <= set(
        pi["features"]
    )
    assert all(isinstance(v, int) and v >= 1 for v in pi["features"].values())
    # the stdio fast path answers initialize before pygls is loaded: the same declaration
    assert initialize_result({})["capabilities"]["experimental"] == {"pi": pi}


async def test_every_declared_feature_answers_in_the_schema_shape(pi_in_process: Start) -> None:
    """One request per feature: it is not MethodNotFound, and its result validates against
    the result model the generated client types are made from."""
    h = await pi_in_process()
    sid = (await h.raw_call(methods.NEW_SESSION, {}))["sessionId"]
    probes: dict[str, tuple[str, dict[str, Any]]] = {
        "queue": (methods.QUEUE, {"sessionId": sid, "op": "clear"}),
        "permissionRules": (methods.PERMISSIONS, {"op": "list"}),
        "review": (methods.REVIEW, {"sessionId": sid}),
        "checkpoints": (methods.CHECKPOINTS, {"sessionId": sid}),
        "models": (methods.MODELS, {"sessionId": sid}),
        "reconnect": (methods.REPLAY, {"sessionId": sid, "afterSeq": 0}),
        "mcp": (methods.MCP, {}),
        "planMode": (methods.SET_MODE, {"sessionId": sid, "mode": "plan"}),
    }
    for name, (method, params) in probes.items():
        assert name in declared(h)["features"], name
        result = await h.raw_call(method, params)
        _, result_model = contract.REQUEST_TYPES[method]
        assert result_model is not None
        result_model.model_validate(result)  # raises on a shape the clients do not expect
    state = await h.raw_call(methods.STATE, {"sessionId": sid})
    assert contract.StateReply.model_validate(state).mode == "plan"  # planMode, todo, mcp
    assert "todo" in state
    assert "mcp" in state


async def test_a_client_without_experimental_support_still_initializes(
    pi_in_process: Start,
) -> None:
    """``experimental`` is plain LSP: a client that ignores it (Neovim's, a plain one) is
    unaffected; the declaration does not depend on what the client declared."""
    h = await pi_in_process(capabilities=types.ClientCapabilities())
    assert declared(h)["features"] == features.FEATURES
