"""The one place a ``pi/*`` handler's domain error becomes a JSON-RPC error.

Handlers raise what went wrong in their own terms; ``jsonrpc_error`` answers for all of them:

- a request that names nothing usable — ``UnknownSessionError``, ``UnknownTargetError`` (an
  entry, a restore, a checkpoint, a tool call), ``NotQueuedError`` — and ``InvalidRequest``
  (params that do not fit together) are ``InvalidParams`` (-32602), the latter two named
  ``Invalid params for <method>: …``;
- a valid request that cannot be done now — ``SetupError`` (a setting the user must fix),
  ``CompactionError``, ``RequestFailed`` (a running session, a file that could not be
  written) — is ``RequestFailed`` (-32803);
- a request before ``initialize`` is ``ServerNotInitialized`` (-32002).
"""

from __future__ import annotations

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from ...sessions import CompactionError
from ...sessions.session_queues import NotQueuedError
from ..host.agent_setup import SetupError
from ..host.session_manager import UnknownSessionError, UnknownTargetError

REQUEST_FAILED = -32803
SERVER_NOT_INITIALIZED = -32002


class InvalidRequest(ValueError):
    """The params are well formed but do not fit (an ``op`` without the ``id`` it needs, a
    model that cannot be used): ``Invalid params for <method>: <message>``."""


class RequestFailed(Exception):
    """A valid request that cannot be done now; the message says why."""


class NotInitializedError(Exception):
    """A ``pi/*`` request before ``initialize``."""


def jsonrpc_error(method: str, exc: Exception) -> JsonRpcException | None:
    """The JSON-RPC error for ``exc`` (``None``: not a domain error, it propagates)."""
    if isinstance(exc, UnknownSessionError | UnknownTargetError):
        return JsonRpcInvalidParams(str(exc))
    if isinstance(exc, NotQueuedError | InvalidRequest):
        return JsonRpcInvalidParams(f"Invalid params for {method}: {exc}")
    if isinstance(exc, SetupError | CompactionError | RequestFailed):
        return JsonRpcException(str(exc), code=REQUEST_FAILED)
    if isinstance(exc, NotInitializedError):
        return JsonRpcException("Server not initialized", code=SERVER_NOT_INITIALIZED)
    return None
