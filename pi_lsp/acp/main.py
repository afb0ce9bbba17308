"""``pi-lsp acp``: parse the flags, keep stdout for the protocol, answer ``initialize``
before the heavy imports (``early``), serve until the client leaves; then abort what still
runs and let the session files finish.

Start-up order: the flags, the protocol's fd, the client's first line (answered at once when
it is ``initialize``), then the provider check and the imports. A terminal on stdin (someone
trying the command by hand) gets the check first, so a missing key is said without waiting
for input; an editor's pipe gets the answer first and, on a bad flag or a missing key, the
same line on stderr and exit status 2 right after it.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from .args import build_parser

if TYPE_CHECKING:
    from .server import PiAcpAgent
    from .stdio import LineTransport

EXIT_OK, EXIT_USAGE = 0, 2
log = logging.getLogger("pi_lsp.acp")


def _logging(log_file: str | None, level: str) -> None:
    handler: logging.Handler = (
        logging.FileHandler(log_file, encoding="utf-8")
        if log_file
        else logging.StreamHandler(sys.stderr)
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


async def serve(transport: LineTransport, agent: PiAcpAgent) -> None:
    """Serve ``agent`` over ``transport`` until the client closes it; then abort what still
    runs and release every session (their files are complete when this returns)."""
    from acp.agent.connection import AgentSideConnection
    from acp.interfaces import Agent

    conn = AgentSideConnection(
        cast(Agent, agent), transport, listening=False, use_unstable_protocol=True
    )
    try:
        await conn.listen()
    finally:
        log.info("the client closed the connection")
        await agent.close_all()
        await conn.close()


async def _serve_stdio(
    protocol_fd: int, agent: PiAcpAgent, read_ahead: bytes, answered: Any
) -> None:
    from .stdio import open_stdio

    await serve(await open_stdio(protocol_fd, read_ahead, answered), agent)


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    _logging(args.log_file, args.log_level)
    from .early import answer_initialize, protect_stdout, read_first_line

    read_ahead, answered = b"", None
    early = not os.isatty(0)
    if early:
        protocol_fd = protect_stdout()
        read_ahead = read_first_line(0)
        answered = answer_initialize(read_ahead, protocol_fd)
    from .factory import UsageError, provision

    try:
        prov = provision(args)
    except UsageError as exc:
        print(f"pi-lsp acp: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from ..runtime.event_loop import run as run_event_loop
    from .server import PiAcpAgent

    if not early:
        protocol_fd = protect_stdout()
    agent = PiAcpAgent(prov)
    run_event_loop(_serve_stdio(protocol_fd, agent, read_ahead, answered))
    from ..sessions.fsync_worker import drain_background_fsync

    drain_background_fsync()  # the session files' queued fsyncs, before the process ends
    return EXIT_OK
