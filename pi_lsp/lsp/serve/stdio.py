"""Serving on stdio, with ``initialize`` answered before the heavy imports.

pygls and lsprotocol take most of a second to import (lsprotocol builds ~1000 attrs
classes); the agent stack as much again. The client's ``initialize`` only needs our static
capabilities, so this module — stdlib only — answers it at once and then loads the rest;
pygls replays the same ``initialize`` with its own (identical, tested) answer suppressed.
Messages sent meanwhile wait in the pipe. Owns the private protocol streams too.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import Any, BinaryIO

from ... import __version__
from ...ai import tls
from ..connection.attrs_cache import attrs_code_cache
from ..connection.framing import BlockingFrameReader, frame
from ..connection.outbox import Outbox
from ..protocol.features import experimental
from ..protocol.methods import CODE_ACTION_KINDS, COMMANDS

log = logging.getLogger(__name__)

_ENCODINGS = ("utf-8", "utf-16", "utf-32")


def read_frame(stream: BinaryIO | BlockingFrameReader) -> bytes | None:
    """The next well-framed body (``None`` at end of input); badly framed input is skipped
    (the dispatch loop answers it; see ``framing``)."""
    reader = stream if isinstance(stream, BlockingFrameReader) else BlockingFrameReader(stream)
    while True:
        item = reader.read()
        if item is None or isinstance(item, bytes):
            return item
        log.warning("%s", item.message)


def position_encoding(params: Any) -> str:
    """The first of the client's ``general.positionEncodings`` we support (pygls' rule)."""
    try:
        offered = params["capabilities"]["general"]["positionEncodings"]
    except (KeyError, TypeError):
        return "utf-16"
    for encoding in offered or ():
        if encoding in _ENCODINGS:
            return str(encoding)
    return "utf-16"


def initialize_result(params: Any) -> dict[str, Any]:
    """What pygls computes for this server's features (see ``test_stdio``)."""
    return {
        "capabilities": {
            "positionEncoding": position_encoding(params),
            "textDocumentSync": {
                "openClose": True,
                "change": 2,
                "willSave": False,
                "willSaveWaitUntil": False,
                "save": False,
            },
            "codeActionProvider": {"codeActionKinds": list(CODE_ACTION_KINDS)},
            "executeCommandProvider": {"commands": list(COMMANDS)},
            "workspace": {
                "workspaceFolders": {"supported": True, "changeNotifications": True},
                "fileOperations": {},
            },
            "experimental": experimental(),
        },
        "serverInfo": {"name": "pi-lsp", "version": __version__},
    }


def answer_initialize(body: bytes, outbox: Outbox) -> Any:
    """If ``body`` is an ``initialize`` request, answer it now; returns its id (else None)."""
    try:
        message = json.loads(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None
    msg_id = message.get("id")
    if not isinstance(msg_id, str | int) or not isinstance(message.get("params"), dict):
        return None
    response = {"jsonrpc": "2.0", "id": msg_id, "result": initialize_result(message["params"])}
    outbox.write(frame(json.dumps(response, separators=(",", ":")).encode("utf-8")))
    return msg_id


def protocol_stdio() -> tuple[BinaryIO, BinaryIO]:
    """Private copies of stdin/stdout for the protocol; fds 0/1 then point at /dev/null and
    stderr, so a stray print or a child process can never corrupt or steal the stream."""
    proto_in = os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    proto_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), 1)
    return proto_in, proto_out


def serve_stdio() -> int:
    stdin, stdout = protocol_stdio()
    outbox = Outbox(stdout)
    reader = BlockingFrameReader(stdin)  # keeps what it read past the first frame
    first = read_frame(reader)
    answered = answer_initialize(first, outbox) if first is not None else None
    tls.warm_up()  # the providers' SSL context loads on another core during the imports
    with attrs_code_cache():  # lsprotocol's generated methods, compiled once per machine
        from ..server import run_stdio  # the heavy part

    try:
        return run_stdio(reader, outbox, first, answered)
    finally:
        outbox.close(timeout=2.0)
