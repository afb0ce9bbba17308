"""The ``CodeIntel`` seam: who answers the ``lsp`` tool's questions (docs/tools.md#lsp).

``tools/lsp.py`` knows nothing but this protocol. Two implementations: language servers
pi-lsp starts itself (``langserv.ServerPool``), and the editor's own servers answering
``pi/lspQuery`` (the LSP front end). Params and results are standard LSP JSON: params in
UTF-16 code units, 0-based; ``IntelAnswer.encoding`` says how the result's positions count.
Must not import pygls/lsprotocol or anything above tools/.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from ..agent.types import ToolFailure
from ..ai.abort import AbortSignal

Encoding = Literal["utf-8", "utf-16", "utf-32"]
Progress = Callable[[str], None]


class CodeIntelError(ToolFailure):
    """No backend could answer; ``str(exc)`` is written for the model to act on (``No
    language server for *.rs files``, ``did not answer within 10 s``)."""


@dataclass(frozen=True, slots=True)
class IntelAnswer:
    result: Any
    """The standard LSP result JSON (``None`` when no server had an answer)."""
    encoding: Encoding = "utf-16"
    """How the result's positions count characters."""
    seen: dict[Path, str] = field(default_factory=dict)
    """The text each document had when the server answered (for a rename's staleness check);
    a file missing here was read by the server from disk."""
    note: str | None = None
    """Something the model should know about the answer ("the server may still be
    indexing")."""


@runtime_checkable
class CodeIntel(Protocol):
    def serves(self, path: Path) -> bool:
        """Whether some server answers for ``path``'s language."""
        ...

    def languages(self) -> str:
        """What is served, for an error message (``*.py, *.pyi``); empty: nothing."""
        ...

    async def query(
        self,
        method: str,
        params: dict[str, Any],
        *,
        path: Path | None,
        signal: AbortSignal | None = None,
        progress: Progress | None = None,
        text: str | None = None,
    ) -> IntelAnswer:
        """Send ``method`` to the server(s) of ``path`` (every server when ``None``: the
        answers' lists merged), the document synced first — from ``text`` when the caller has
        just read it, else read again. Raises ``CodeIntelError``."""
        ...
