"""The ``pi-lsp`` process: the language server (stdio by default), ``pi-lsp run`` or
``pi-lsp acp``.

``pi-lsp [--stdio | --tcp HOST:PORT | --socket PATH] [--idle-timeout S] [--log-file F]
[--log-level L] [--version]`` serves LSP (``lsp/``). ``pi-lsp run "PROMPT" ...`` runs one
headless agent trace in a directory (``cli/``); ``pi-lsp export SESSION`` writes a saved
session as an HTML page (``cli/export.py``). ``pi-lsp acp [provider flags]`` serves the
Agent Client Protocol on stdio (``acp/``). ``pi-lsp review [--base REF | --commit SHA] ...``
reviews a git diff headless (``cli/review.py``, docs/review.md). ``pi-lsp lsp doctor`` checks
the ``lsp`` tool's language servers (``cli/lsp_doctor.py``). This module only picks the
front end; they never import each other.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from . import __version__

log = logging.getLogger("pi_lsp")


def _server_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pi-lsp",
        description="A coding agent as a language server. Subcommand: `pi-lsp run PROMPT`.",
    )
    transport = p.add_mutually_exclusive_group()
    transport.add_argument(
        "--stdio", action="store_true", help="serve LSP over stdin/stdout (the default)"
    )
    transport.add_argument("--tcp", metavar="HOST:PORT", help="serve LSP over TCP instead")
    transport.add_argument(
        "--socket",
        metavar="PATH",
        help="serve LSP on a Unix domain socket only this user may open (mode 0600)",
    )
    p.add_argument(
        "--idle-timeout",
        type=float,
        metavar="SECONDS",
        help="with --tcp/--socket: exit after this long with no client and no run going",
    )
    p.add_argument("--log-file", metavar="PATH", help="write logs here (default: stderr)")
    p.add_argument(
        "--log-level",
        default="INFO",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="log verbosity (default: INFO)",
    )
    p.add_argument("--version", action="version", version=f"pi-lsp {__version__}")
    return p


def setup_logging(log_file: str | None, level: str) -> None:
    handler: logging.Handler = (
        logging.FileHandler(log_file, encoding="utf-8") if log_file else logging.StreamHandler()
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    if level != "DEBUG":  # pygls logs every message body at INFO
        logging.getLogger("pygls").setLevel(logging.WARNING)


def _parse_tcp(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        raise SystemExit(f"pi-lsp: --tcp expects HOST:PORT, got {value!r}")
    return host or "127.0.0.1", int(port)


def protect_secrets() -> None:
    """Move the secrets out of ``os.environ`` and out of reach of the commands we run
    (``security.vault``): before anything else runs, in the server and in ``pi-lsp run``."""
    from .security import vault

    vault.capture()


def main(argv: Sequence[str] | None = None) -> int:
    protect_secrets()
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] == "acp":
        from .acp.main import main as acp_main

        return acp_main(args_list[1:])
    if args_list and args_list[0] == "review":
        from .cli.review import main as review_main

        return review_main(args_list[1:])
    if args_list and args_list[0] == "worktrees":
        from .cli.worktrees import main as worktrees_main

        return worktrees_main(args_list[1:])
    if args_list and args_list[0] == "lsp":
        from .cli.lsp_doctor import main as lsp_main

        return lsp_main(args_list[1:])
    if args_list and args_list[0] == "export":
        from .cli.export import main as export_main

        return export_main(args_list[1:])
    if args_list and args_list[0] == "run":
        from .ai.tls import warm_up
        from .cli.prefetch import start

        warm_up()  # the providers' SSL context loads on another core while the CLI imports
        prefetch = start(args_list[1:])  # the first request, on its way before the imports
        from .cli.run import main as run_main

        return run_main(args_list[1:], prefetch)

    args = _server_parser().parse_args(args_list)
    setup_logging(args.log_file, args.log_level)
    if args.tcp or args.socket:
        from .lsp.connection.attrs_cache import attrs_code_cache

        with attrs_code_cache():  # lsprotocol's generated methods, compiled once per machine
            from .lsp.serve.tcp import serve_socket, serve_tcp

        if args.socket:
            log.info("pi-lsp %s serving on socket %s", __version__, args.socket)
            code = serve_socket(args.socket, idle_timeout=args.idle_timeout)
        else:
            host, port = _parse_tcp(args.tcp)
            log.info("pi-lsp %s serving on tcp %s:%d", __version__, host, port)
            code = serve_tcp(host, port, idle_timeout=args.idle_timeout)
    else:
        from .lsp.serve.stdio import serve_stdio  # answers initialize before the heavy imports

        log.info("pi-lsp %s serving on stdio", __version__)
        code = serve_stdio()
    # Runs are over, tool processes killed, session files flushed and the outbox drained:
    # skip the interpreter's slow teardown of every imported module (and so atexit: the
    # session files' background fsyncs are finished here).
    from .sessions.fsync_worker import drain_background_fsync

    drain_background_fsync()
    if "pi_lsp.security.sandbox" in sys.modules:  # a bubblewrap probe may still be running
        from .security.sandbox import settle_probe

        settle_probe()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
