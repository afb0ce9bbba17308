"""``pi-lsp worktrees list|prune [--all]``: the worktrees of ``task`` children
(docs/subagents.md#worktree-isolation). ``list`` prints one JSON object per worktree;
``prune`` removes the ones not kept for the user (``--all``: those too) and prints their
paths."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence

USAGE = "usage: pi-lsp worktrees list | prune [--all]"


def main(argv: Sequence[str]) -> int:
    from ..runtime.children import list_worktrees, prune_worktrees, worktree_summary

    args = list(argv)
    if args[:1] == ["list"] and len(args) == 1:
        for info in list_worktrees():
            print(json.dumps(worktree_summary(info)))
        return 0
    if args[:1] == ["prune"] and args[1:] in ([], ["--all"]):
        for path in asyncio.run(prune_worktrees(kept_too=args[1:] == ["--all"])):
            print(path)
        return 0
    print(USAGE, file=sys.stderr)
    return 2
