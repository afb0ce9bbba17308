"""``ServerPool``: the ``CodeIntel`` over the language servers pi-lsp runs itself.

Servers are keyed by (server name, workspace root), started on the first question about one
of their files (a cold start is reported through the tool's progress), and stopped after
``idle_s`` without a question, or when the pool closes. Before each question the file's text
(the ``Workspace``'s: an editor buffer or the disk) is synced: ``didOpen`` the first time,
a full-text ``didChange`` when it changed — so the servers see what the agent edited; a
document not asked about for ``document_idle_s`` is ``didClose``d (a server does not keep
every file ever touched). A server that fails to start stays failed until the configuration
changes (its error is the answer). ``refresh()`` — at the start of each prompted run — loads
the configuration again when one of its files changed and restarts the servers whose entry
changed (or drops the ones removed).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..ai.abort import AbortSignal
from ..tools.code_intel import CodeIntelError, IntelAnswer, Progress
from ..tools.paths import is_within
from ..tools.workspace import Workspace
from .config import LoadedLspConfig, LspServerConfig
from .server import LanguageServerProcess

log = logging.getLogger(__name__)

QUERY_TIMEOUT_S = 10.0
IDLE_S = 600.0
DOCUMENT_IDLE_S = 120.0
DIAGNOSTICS_WAIT_S = 3.0
INDEXING_S = 5.0
"""An empty references / workspace symbols answer this soon after start is asked again once."""
CAPABILITY = {
    "textDocument/definition": "definitionProvider",
    "textDocument/references": "referencesProvider",
    "textDocument/hover": "hoverProvider",
    "textDocument/documentSymbol": "documentSymbolProvider",
    "workspace/symbol": "workspaceSymbolProvider",
    "textDocument/implementation": "implementationProvider",
    "textDocument/typeDefinition": "typeDefinitionProvider",
    "textDocument/prepareCallHierarchy": "callHierarchyProvider",
    "callHierarchy/incomingCalls": "callHierarchyProvider",
    "callHierarchy/outgoingCalls": "callHierarchyProvider",
    "textDocument/prepareRename": "renameProvider",
    "textDocument/rename": "renameProvider",
}
RETRY_WHEN_EMPTY = {"textDocument/references", "workspace/symbol"}


class ServerPool:
    def __init__(
        self,
        config: LoadedLspConfig,
        workspace: Workspace,
        *,
        timeout: float = QUERY_TIMEOUT_S,
        idle_s: float = IDLE_S,
        document_idle_s: float = DOCUMENT_IDLE_S,
        reload: Callable[[], LoadedLspConfig] | None = None,
        changed: Callable[[], bool] | None = None,
    ) -> None:
        """``reload`` loads the configuration again; ``changed`` says whether one of its
        sources changed since the last load (both: ``refresh`` reloads)."""
        self.config = config
        self.workspace = workspace
        self.timeout = timeout
        self.idle_s = idle_s
        self.document_idle_s = document_idle_s
        self._reload = reload
        self._changed = changed
        self._refreshing = asyncio.Lock()
        self.servers: dict[tuple[str, Path], LanguageServerProcess] = {}
        self._by_suffix: dict[str, list[LspServerConfig]] = {}
        self._reaper: asyncio.Task[None] | None = None
        self._stopping: set[LanguageServerProcess] = set()
        """Servers taken out of ``servers`` whose stop has not ended (``aclose`` waits)."""
        self._closed = False

    # ------------------------------------------------------------------ CodeIntel

    def configs_for(self, path: Path) -> list[LspServerConfig]:
        suffix = path.suffix.lower()
        found = self._by_suffix.get(suffix)
        if found is None:  # once per suffix: every call asks, twice
            found = [c for c in self.config.active if c.language_of(path) is not None]
            self._by_suffix[suffix] = found
        return found

    def serves(self, path: Path) -> bool:
        return bool(self.configs_for(path))

    def languages(self) -> str:
        exts = dict.fromkeys(
            f"*{ext}" if ext.startswith(".") else f"*.{ext}"
            for c in self.config.active
            for ext in c.extension_to_language
        )
        return ", ".join(exts)

    def _root(self, path: Path | None) -> Path:
        if path is not None:
            for root in self.workspace.roots:
                if is_within(path, root):
                    return root
        return self.workspace.cwd

    def process(self, config: LspServerConfig, root: Path) -> LanguageServerProcess:
        key = (config.name, root)
        proc = self.servers.get(key)
        if proc is None or (proc.state == "stopped" and proc._task is not None):
            proc = self.servers[key] = LanguageServerProcess(config, root)
        return proc

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
        if self._closed:
            raise CodeIntelError("The language servers are shut down")
        if path is None:
            return await self._ask_all(method, params, signal, progress)
        configs = self.configs_for(path)
        if not configs:
            raise CodeIntelError(
                f"No language server for *{path.suffix} files (configure lspServers)"
            )
        errors: list[str] = []
        for config in configs:
            proc = await self._started(config, self._root(path), progress)
            if method != "textDocument/diagnostic" and not _supports(proc, method):
                errors.append(f"The language server {config.name} does not support {method}")
                continue
            proc.busy += 1  # from the sync on: an idle stop must not come between
            try:
                text = await self._sync(proc, path, config, text)
                result, note = await self._ask(proc, method, params, path, signal)
            finally:
                proc.busy -= 1
            return IntelAnswer(result, proc.encoding, {path: text}, note)
        raise CodeIntelError("; ".join(errors))

    async def _ask_all(
        self,
        method: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        progress: Progress | None,
    ) -> IntelAnswer:
        merged: list[Any] = []
        errors: list[str] = []
        notes: list[str] = []
        asked = 0
        for config in self.config.active:
            try:
                proc = await self._started(config, self._root(None), progress)
                if not _supports(proc, method):
                    continue
                asked += 1
                result, note = await self._ask(proc, method, params, None, signal)
            except CodeIntelError as exc:
                errors.append(str(exc))
                continue
            if note:
                notes.append(note)
            if isinstance(result, list):
                merged.extend(result)
        if not asked and errors:
            raise CodeIntelError("; ".join(errors))
        if not asked:
            raise CodeIntelError(f"No configured language server supports {method}")
        return IntelAnswer(merged, "utf-16", {}, "; ".join(notes) or None)

    async def _started(
        self, config: LspServerConfig, root: Path, progress: Progress | None
    ) -> LanguageServerProcess:
        proc = self.process(config, root)
        if proc.state != "ready":
            if progress is not None and proc.state != "failed":
                progress(f"Starting language server {config.name} ({config.command})…")
            await proc.ensure_started()
            proc.last_used = time.monotonic()  # its start took long: not idle yet
            self._start_reaper()
        return proc

    async def _sync(
        self, proc: LanguageServerProcess, path: Path, config: LspServerConfig, text: str | None
    ) -> str:
        if text is None:
            text = (await self.workspace.read_document(path)).text
        uri = path.as_uri()
        have = proc.documents.get(path)
        if have is None:
            proc.notify(
                "textDocument/didOpen",
                {
                    "textDocument": {
                        "uri": uri,
                        "languageId": config.language_of(path) or "plaintext",
                        "version": 1,
                        "text": text,
                    }
                },
            )
            proc.documents[path] = (1, text)
        elif have[1] != text:
            version = have[0] + 1
            proc.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": text}],
                },
            )
            proc.documents[path] = (version, text)
        proc.document_used[path] = time.monotonic()
        return text

    async def _ask(
        self,
        proc: LanguageServerProcess,
        method: str,
        params: dict[str, Any],
        path: Path | None,
        signal: AbortSignal | None,
    ) -> tuple[Any, str | None]:
        if method == "textDocument/diagnostic":
            assert path is not None
            if proc.supports("diagnosticProvider"):
                result = await proc.request(method, params, limit=self.timeout, signal=signal)
                return result, None
            version = proc.documents[path][0]
            items = await proc.wait_for_diagnostics(path.as_uri(), version, DIAGNOSTICS_WAIT_S)
            if items is None:
                return {"kind": "full", "items": []}, "the server published no diagnostics yet"
            return {"kind": "full", "items": items}, None
        result = await proc.request(method, params, limit=self.timeout, signal=signal)
        young = time.monotonic() - proc.started_at < INDEXING_S
        if method in RETRY_WHEN_EMPTY and not result and young:
            await asyncio.sleep(1.0)
            result = await proc.request(method, params, limit=self.timeout, signal=signal)
            if not result:
                return result, "the server may still be indexing"
        return result, None

    # ------------------------------------------------------------------ lifecycle

    def _start_reaper(self) -> None:
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.get_running_loop().create_task(
                self._reap(), name="language server idle reaper"
            )

    async def _reap(self) -> None:
        while True:
            await asyncio.sleep(max(0.05, min(self.idle_s, self.document_idle_s) / 4))
            now = time.monotonic()
            for key, proc in list(self.servers.items()):
                if proc.state != "ready" or proc.busy:
                    continue
                if now - proc.last_used >= self.idle_s:
                    log.info("language server %s idle: stopping it", proc.name)
                    self.servers.pop(key, None)
                    await self._stop(proc)  # cancelled (aclose): the reaper ends here
                    continue
                for path, used in list(proc.document_used.items()):
                    if now - used >= self.document_idle_s:
                        self._close_document(proc, path)

    def _close_document(self, proc: LanguageServerProcess, path: Path) -> None:
        """``didClose`` a document the pool opened (its next question opens it again)."""
        proc.documents.pop(path, None)
        proc.document_used.pop(path, None)
        proc.diagnostics.pop(path.as_uri(), None)
        try:
            proc.notify("textDocument/didClose", {"textDocument": {"uri": path.as_uri()}})
        except CodeIntelError:
            return
        log.debug("language server %s: closed %s (idle)", proc.name, path)

    # ------------------------------------------------------------------ reload

    async def refresh(self) -> bool:
        """Load the configuration again when a source changed (``lspServers`` in the
        settings, the project's ``.pi/lsp.json`` / ``.lsp.json``, the project's trust); the
        servers whose entry changed or went away are stopped (the next question starts the
        new entry). Whether it reloaded. Never raises."""
        if self._reload is None or self._changed is None or self._closed:
            return False
        async with self._refreshing:
            try:
                if not self._changed():
                    return False
                loaded = self._reload()
            except Exception:
                log.exception("reloading the language server configuration failed")
                return False
            old, self.config = self.config, loaded
            self._by_suffix = {}
            stale = [
                key
                for key, proc in self.servers.items()
                if loaded.servers.get(key[0]) != old.servers.get(key[0])
                or loaded.servers[key[0]].disabled
            ]
            procs = [self.servers.pop(key) for key in stale]
            if procs:
                log.info(
                    "language server configuration changed: restarting %s",
                    ", ".join(p.name for p in procs),
                )
            await asyncio.gather(*(self._stop(p) for p in procs), return_exceptions=True)
            return True

    async def _stop(self, proc: LanguageServerProcess) -> None:
        """``proc.stop()``, remembered until it ends: when the caller is cancelled midway
        (the reaper, by ``aclose``), the stop goes on and ``aclose`` waits for it."""
        self._stopping.add(proc)
        await proc.stop()
        self._stopping.discard(proc)

    async def aclose(self) -> None:
        """Stop every server (shutdown, exit, then its process group is killed), those the
        reaper or a refresh was stopping included: it ends within a ``shutdownTimeout``."""
        self._closed = True
        reaper = self._reaper
        if reaper is not None:
            reaper.cancel()
            await asyncio.wait({reaper})  # raises only aclose's own cancellation
            if not reaper.cancelled() and reaper.exception() is not None:
                log.error("the language server idle reaper failed", exc_info=reaper.exception())
        procs = [*self.servers.values(), *self._stopping]
        self.servers = {}
        await asyncio.gather(*(p.stop() for p in procs), return_exceptions=True)
        self._stopping.clear()


def _supports(proc: LanguageServerProcess, method: str) -> bool:
    capability = CAPABILITY.get(method)
    return capability is None or proc.supports(capability)
