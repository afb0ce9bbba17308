"""``pi-lsp acp``: parse the flags, keep stdout for the protocol, serve until the client
leaves; then abort what still runs and let the session files finish."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from typing import cast

from ..runtime.event_loop import run as run_event_loop
from .args import build_parser

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


async def serve(protocol_fd: int, agent: object) -> None:
    from acp.agent.connection import AgentSideConnection
    from acp.interfaces import Agent

    from .server import PiAcpAgent
    from .stdio import open_stdio

    assert isinstance(agent, PiAcpAgent)
    transport = await open_stdio(protocol_fd)
    conn = AgentSideConnection(
        cast(Agent, agent), transport, listening=False, use_unstable_protocol=True
    )
    try:
        await conn.listen()
    finally:
        log.info("the client closed the connection")
        await agent.close_all()
        await conn._conn.close()


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    _logging(args.log_file, args.log_level)
    from .factory import UsageError, provision

    try:
        prov = provision(args)
    except UsageError as exc:
        print(f"pi-lsp acp: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from .server import PiAcpAgent
    from .stdio import protect_stdout

    protocol_fd = protect_stdout()
    agent = PiAcpAgent(prov)
    run_event_loop(serve(protocol_fd, agent))
    return EXIT_OK
