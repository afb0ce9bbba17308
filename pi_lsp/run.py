"""``pi-lsp run``: the headless one-shot agent run (being built; see issue 6)."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str]) -> int:
    print("pi-lsp run: not available in this build yet", file=sys.stderr)
    return 2
