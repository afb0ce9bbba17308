"""``pi-lsp acp``: parse the flags, keep stdout for the protocol, serve until the client
leaves; then abort what still runs and let the session files finish."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from ..runtime.event_loop import run as run_event_loop
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


async def _serve_stdio(protocol_fd: int, agent: PiAcpAgent) -> None:
    from .stdio import open_stdio

    await serve(await open_stdio(protocol_fd), agent)


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
    run_event_loop(_serve_stdio(protocol_fd, agent))
    return EXIT_OK
