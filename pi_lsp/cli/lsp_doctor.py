"""``pi-lsp lsp doctor [--cwd DIR] [--no-start] [--timeout S]``: the ``lsp`` tool's configured
language servers in a project — files covered, command found, project config trusted, and a
real start + ``initialize`` (``langserv/doctor.py``). Exit status 0 when every enabled server
starts, 1 otherwise (none configured, a problem in the configuration, a server that fails)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

USAGE = "usage: pi-lsp lsp doctor [--cwd DIR] [--no-start] [--timeout SECONDS]"


def main(argv: Sequence[str]) -> int:
    args = list(argv)
    if args[:1] != ["doctor"]:
        print(USAGE, file=sys.stderr)
        return 2
    p = argparse.ArgumentParser(prog="pi-lsp lsp doctor", description=__doc__)
    p.add_argument("--cwd", default=".", help="the project (default: the current directory)")
    p.add_argument("--no-start", action="store_true", help="do not start the servers")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds a server has to initialize")
    ns = p.parse_args(args[1:])
    from ..langserv.doctor import diagnose, render
    from ..resources import ResourceOptions, agent_dir
    from ..runtime import saved_trust

    cwd = Path(ns.cwd).expanduser().resolve()
    if not cwd.is_dir():
        print(f"pi-lsp lsp doctor: not a directory: {cwd}", file=sys.stderr)
        return 2
    options = ResourceOptions()
    trusted = saved_trust(cwd, options).load_project
    user = Path(agent_dir(options)) / "settings.json"
    diagnosis = asyncio.run(
        diagnose(
            cwd, trusted=trusted, user_settings=user, start=not ns.no_start, start_within=ns.timeout
        )
    )
    print("\n".join(render(diagnosis)))
    return 0 if diagnosis.ok else 1
