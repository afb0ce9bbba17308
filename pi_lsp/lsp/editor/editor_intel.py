"""The ``lsp`` tool's Backend A: the editor's own language servers answer, through
``pi/lspQuery {method, params}`` (docs/protocol.md#lsp-query), for a client that declares
``clientCapabilities.lspQuery``. The editor knows the user's servers, their configuration and
the unsaved text; pi-lsp's own servers (``langserv.ServerPool``) are the fallback: for a
client without the capability, and when the editor answers ``MethodNotFound`` (no server of
its own supports the method for that file).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcException

from ...ai.abort import AbortSignal
from ...tools.code_intel import CodeIntel, CodeIntelError, Encoding, IntelAnswer, Progress
from ..bridge import ClientBridge, RequestAborted
from ..protocol.models import LSP_QUERY, LspQueryParams
from ..settings import ClientFeatures

TIMEOUT_S = 10.0
METHOD_NOT_FOUND = -32601


class EditorIntel:
    """A ``CodeIntel`` asking the editor first, ``fallback`` (may be ``None``) otherwise."""

    def __init__(
        self,
        bridge: ClientBridge,
        features: Callable[[], ClientFeatures],
        fallback: CodeIntel | None,
        *,
        timeout: float = TIMEOUT_S,
    ) -> None:
        self.bridge = bridge
        self.features = features
        self.fallback = fallback
        self.timeout = timeout

    async def refresh(self) -> bool:
        """The fallback servers reload a changed configuration (``ServerPool.refresh``)."""
        refresh = getattr(self.fallback, "refresh", None)
        return bool(await refresh()) if callable(refresh) else False

    def _editor(self) -> bool:
        return self.features().lsp_query and self.bridge.connected

    def serves(self, path: Path) -> bool:
        return self._editor() or (self.fallback is not None and self.fallback.serves(path))

    def languages(self) -> str:
        if self._editor():
            return "the editor's language servers"
        return self.fallback.languages() if self.fallback is not None else ""

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
        if not self._editor():
            return await self._fall_back(method, params, path, signal, progress, None, text)
        try:
            reply = await self._ask_editor(method, params, signal)
        except JsonRpcException as exc:
            if getattr(exc, "code", None) == METHOD_NOT_FOUND:
                return await self._fall_back(method, params, path, signal, progress, str(exc), text)
            raise CodeIntelError(f"The editor could not answer {method}: {exc}") from None
        result = reply.get("result") if isinstance(reply, dict) else None
        encoding = reply.get("positionEncoding") if isinstance(reply, dict) else None
        chosen: Encoding = (
            "utf-8" if encoding == "utf-8" else "utf-32" if encoding == "utf-32" else "utf-16"
        )
        return IntelAnswer(result, chosen)

    async def _ask_editor(
        self, method: str, params: dict[str, Any], signal: AbortSignal | None
    ) -> Any:
        ended = AbortSignal()  # the run's abort or the timeout, whichever comes first
        remove = signal.add_callback(ended.abort) if signal is not None else (lambda: None)
        timer = asyncio.get_running_loop().call_later(self.timeout, ended.abort, "timeout")
        try:
            wire = LspQueryParams(method=method, params=params).to_wire()
            return await self.bridge.request(LSP_QUERY, wire, ended)
        except RequestAborted:
            if ended.reason == "timeout":
                raise CodeIntelError(
                    f"The editor's language server did not answer {method} within "
                    f"{self.timeout:g} s"
                ) from None
            raise CodeIntelError("Operation aborted") from None
        finally:
            timer.cancel()
            remove()

    async def _fall_back(
        self,
        method: str,
        params: dict[str, Any],
        path: Path | None,
        signal: AbortSignal | None,
        progress: Progress | None,
        why: str | None,
        text: str | None,
    ) -> IntelAnswer:
        if self.fallback is not None and (path is None or self.fallback.serves(path)):
            return await self.fallback.query(
                method, params, path=path, signal=signal, progress=progress, text=text
            )
        kind = f"*{path.suffix} files" if path is not None and path.suffix else "this file"
        if why is not None:
            raise CodeIntelError(
                f"No language server in the editor supports {method} for {kind} "
                "(and no lspServers entry does)"
            )
        raise CodeIntelError(f"No language server for {kind} (configure lspServers)")
