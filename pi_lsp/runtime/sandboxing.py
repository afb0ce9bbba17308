"""Whether a run's ``bash`` tool runs its commands in the bubblewrap sandbox (asked by a
front end's permission prompt, which may then allow a command without asking)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..agent.types import AgentTool
from ..tools import BashTool


def runs_sandboxed(tools: Sequence[AgentTool[Any]]) -> bool:
    return any(isinstance(t, BashTool) and t.options.sandbox is not None for t in tools)
