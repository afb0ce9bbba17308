"""The ``pi/*`` features this server has, declared in ``initialize`` as
``capabilities.experimental.pi`` (docs/protocol.md#declared-features). Stdlib only: the fast
start-up path (``serve.stdio``) answers ``initialize`` from it before pydantic is loaded.

A version is bumped when a feature's contract changes in a way a client must know about; a
feature this server does not have is left out. ``contract.PiServerCapabilities`` is the model
(``contract.declared()`` validates this table against it).
"""

from __future__ import annotations

PROTOCOL_VERSION = 3
"""1: the v1 contract; 2: the v2 additions (§7–§14); 3: plan mode, the todo list, ``pi/ask``."""

FEATURES: dict[str, int] = {
    "queue": 1,  # §7: pi/queue, queue_update, queuedId / deliveredAs
    "interrupt": 1,  # §7: pi/prompt deliverAs "interrupt"
    "permissionRules": 1,  # §8: pi/requestPermission options, pi/permissions
    "review": 1,  # §9.1-§9.4: review_update, pi/review, pi/reviewDecision, pi/diagnostics
    "checkpoints": 1,  # §9.5: pi/checkpoints, pi/restore, pi/undoRestore, pi/revertToolCall
    "attachments": 1,  # §10: pi/prompt attachments
    "models": 1,  # §11: pi/models, pi/setModel, usage in pi/state
    "reconnect": 1,  # §13: pi/replay, isStreaming in pi/sessions
    "mcp": 1,  # §14: pi/mcp, pi/state.mcp
    "planMode": 1,  # v3: pi/setMode, mode in pi/state, mode_update
    "todo": 1,  # v3: todo_update, pi/state.todo
    "ask": 1,  # v3: pi/ask
    "context": 1,  # pi/commands, pi/context, pi/reload, resources_update, resource_notice
    "processes": 1,  # pi/processes, processes_update (background processes)
    "export": 1,  # pi/export
}


def experimental() -> dict[str, object]:
    """The ``experimental`` member of the server's capabilities."""
    return {"pi": {"protocolVersion": PROTOCOL_VERSION, "features": dict(FEATURES)}}
