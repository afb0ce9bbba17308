"""``pi-lsp acp``'s ``initialize`` answered before the heavy imports.

Editors spawn the agent for each chat and wait for the ``initialize`` answer before they show
anything. The ACP SDK, pydantic's schema models, the runtime and the tools take most of a
second to import; the answer needs none of them: it is our static capabilities. So this
module — standard library only — reads the client's first line, answers it at once when it
is ``initialize``, and hands the bytes it read to the real transport, which gives the SDK the
same request and drops the SDK's own answer (identical: ``tests/acp/test_acp_startup.py``).
Requests sent meanwhile wait in the pipe. Owns moving the protocol off fd 1, too.
Imports nothing of ours but the version.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from .. import __version__

PROTOCOL_VERSION = 1
"""``acp.PROTOCOL_VERSION``: the version ``initialize`` answers whatever the client asked."""
AGENT_NAME = "pi-lsp"
DELIVERY_META = {"piLsp": {"deliver": ["followUp", "steer"], "defaultDeliver": "followUp"}}
_READ_SIZE = 65536


def protect_stdout() -> int:
    """A private duplicate of fd 1 for the protocol; fd 1 then writes to stderr."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    os.set_inheritable(protocol_fd, False)
    return protocol_fd


def initialize_result() -> dict[str, Any]:
    """What ``PiAcpAgent.initialize`` answers, as the SDK puts it on the wire."""
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
            "mcpCapabilities": {"http": True, "sse": False},
            "sessionCapabilities": {"list": {}, "resume": {}, "close": {}},
        },
        "authMethods": [],
        "agentInfo": {"name": AGENT_NAME, "title": "pi-lsp", "version": __version__},
        "_meta": DELIVERY_META,
    }


def read_first_line(fd: int) -> bytes:
    """What the client wrote up to its first newline (and whatever came with it in the same
    reads); less at end of input."""
    data = b""
    while b"\n" not in data:
        chunk = os.read(fd, _READ_SIZE)
        if not chunk:
            break
        data += chunk
    return data


def initialize_id(data: bytes) -> Any:
    """The id of the ``initialize`` request on the first line of ``data``, if it is one the
    SDK will accept (else ``None``: the SDK answers whatever it is)."""
    line = data.split(b"\n", 1)[0]
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None
    msg_id = message.get("id")
    params = message.get("params")
    if isinstance(msg_id, bool) or not isinstance(msg_id, str | int):
        return None
    if not isinstance(params, dict):
        return None
    version = params.get("protocolVersion")
    if isinstance(version, bool) or not isinstance(version, int):
        return None
    return msg_id


def answer_initialize(data: bytes, protocol_fd: int) -> Any:
    """Answer the ``initialize`` on the first line of ``data`` now; its id, or ``None`` when
    the line is something else."""
    msg_id = initialize_id(data)
    if msg_id is None:
        return None
    response = {"jsonrpc": "2.0", "id": msg_id, "result": initialize_result()}
    payload = json.dumps(response, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    view = memoryview(payload)
    try:
        while view:
            view = view[os.write(protocol_fd, view) :]
    except OSError:  # the client went away: the transport finds out and ends the serving
        return None
    return msg_id
