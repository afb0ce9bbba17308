"""One language server process: pygls' ``LanguageClient`` held by one owner task.

The owner task starts the server under the process guard (``security/process_guard.py``: it dies
with pi-lsp, even after ``kill -9``) in its own process group, drains its stderr (pygls pipes
it and never reads it: a chatty server would stall once the pipe fills), initializes it,
answers its requests (``workspace/configuration`` from ``settings``, progress and capability
registration, ``workspace/workspaceFolders``, ``window/showMessageRequest`` → ``null``),
keeps its published diagnostics, and at the end sends ``shutdown`` + ``exit`` and kills the
process group after ``shutdownTimeout`` (pygls' ``stop()`` would wait for the process for
ever). Queries run in the callers' tasks through the connected client, each bounded by a
timeout and the run's abort signal, and ``$/cancelRequest``ed when either ends them.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import logging
import os
import signal
import time
from pathlib import Path
from typing import Any, Literal

from .. import __version__
from ..ai.abort import AbortSignal, done_before_abort
from ..security.env_secrets import scrub_env
from ..security.process_guard import guarded_argv
from ..tools.code_intel import CodeIntelError, Encoding
from .config import LspServerConfig

log = logging.getLogger(__name__)

State = Literal["stopped", "starting", "ready", "failed"]
KEEP_STDERR = 5
_ids = itertools.count(1)


class LanguageServerProcess:
    """One configured server for one root."""

    def __init__(self, config: LspServerConfig, root: Path) -> None:
        self.config = config
        self.root = root
        self.state: State = "stopped"
        self.message: str | None = None
        self.capabilities: dict[str, Any] = {}
        self.encoding: Encoding = "utf-16"
        self.server_info: str | None = None
        """``serverInfo`` from its ``initialize`` answer (``name version``)."""
        self.documents: dict[Path, tuple[int, str]] = {}
        """What the server has of each open document: ``(version, text)``."""
        self.document_used: dict[Path, float] = {}
        """When each open document was last asked about (``time.monotonic()``)."""
        self.diagnostics: dict[str, tuple[int | None, list[Any]]] = {}
        self.started_at = 0.0
        self.last_used = time.monotonic()
        self.busy = 0
        """Requests in flight: an idle stop waits for them."""
        self.pid: int | None = None
        self.stderr: collections.deque[str] = collections.deque(maxlen=KEEP_STDERR)
        self._client: Any = None
        self._converter: Any = None
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._published = asyncio.Event()

    @property
    def name(self) -> str:
        return self.config.name

    def is_ready(self) -> bool:
        return self.state == "ready"

    # ------------------------------------------------------------------ lifecycle

    async def ensure_started(self) -> None:
        """Start (once) and wait until initialized; ``CodeIntelError`` when it cannot."""
        if self.state == "failed":
            raise CodeIntelError(self.message or f"The language server {self.name} failed")
        if self._task is None:
            self.state = "starting"
            self.started_at = time.monotonic()
            self._task = asyncio.get_running_loop().create_task(
                self._own(), name=f"language server {self.name}"
            )
        if self.is_ready():
            return
        ready = asyncio.ensure_future(self._ready.wait())
        try:
            await asyncio.wait({ready, self._task}, return_when="FIRST_COMPLETED")
        finally:
            ready.cancel()
        if not self.is_ready():  # the owner task set it
            raise CodeIntelError(self.message or f"The language server {self.name} did not start")

    async def stop(self) -> None:
        """shutdown + exit, then the process group is killed; waits for the owner task.

        A caller cancelled while it waits is cancelled (its ``CancelledError`` propagates:
        the pool's idle reaper must end when the pool closes), but the owner task is not: it
        still finishes the stop — the process group killed within ``shutdownTimeout`` — and
        another ``stop()`` (the pool's ``aclose``) waits for it."""
        self._stop.set()
        task = self._task
        if task is not None and not task.done():
            await asyncio.wait({task})  # never cancels the task; raises only our cancellation
        if task is not None and task.done() and not task.cancelled():
            task.exception()  # retrieved: its failure is in ``state`` / ``message``
        if self.state != "failed":
            self.state = "stopped"

    def _explain(self, message: str) -> str:
        if self.stderr:
            return f"{message} (its stderr: {self.stderr[-1]})"
        return message

    async def _own(self) -> None:
        from lsprotocol import types as lsp
        from pygls.lsp.client import LanguageClient
        from pygls.protocol import default_converter

        config = self.config
        self._converter = default_converter()  # type: ignore[no-untyped-call]
        client = LanguageClient("pi-lsp", __version__)
        self._register(client, lsp)
        env = {**scrub_env(os.environ), **config.env}
        drain: asyncio.Task[None] | None = None
        process: Any = None
        try:
            try:
                await client.start_io(
                    *guarded_argv(config.command, config.args),
                    cwd=str(self.root),
                    env=env,
                    start_new_session=True,
                )
            except OSError as exc:
                raise CodeIntelError(
                    f"The language server {self.name} could not start: {exc.strerror or exc}"
                ) from None
            process = client._server  # private: pygls keeps the process there (its stderr)
            self.pid = process.pid
            drain = asyncio.ensure_future(self._drain(process.stderr))
            self._client = client
            params = lsp.InitializeParams(
                process_id=os.getpid(),
                root_uri=self.root.as_uri(),
                root_path=str(self.root),
                workspace_folders=[
                    lsp.WorkspaceFolder(uri=self.root.as_uri(), name=self.root.name)
                ],
                capabilities=_capabilities(lsp),
                initialization_options=config.initialization_options,
                client_info=lsp.ClientInfo(name="pi-lsp", version=__version__),
            )
            init = asyncio.ensure_future(client.initialize_async(params))
            exited = asyncio.ensure_future(process.wait())
            try:
                done, _ = await asyncio.wait(
                    {init, exited},
                    timeout=config.startup_timeout_ms / 1000,
                    return_when="FIRST_COMPLETED",
                )
            finally:
                exited.cancel()
            if init not in done:
                init.cancel()
                if process.returncode is not None:
                    await asyncio.sleep(0.05)  # let its last stderr line arrive
                    raise CodeIntelError(
                        self._explain(
                            f"The language server {self.name} exited at start "
                            f"(status {process.returncode})"
                        )
                    )
                raise CodeIntelError(
                    f"The language server {self.name} did not start within "
                    f"{config.startup_timeout_ms / 1000:g} s"
                )
            result = init.result()
            self.capabilities = self._converter.unstructure(result.capabilities) or {}
            info = result.server_info
            if info is not None:
                self.server_info = f"{info.name} {info.version or ''}".strip()
            encoding = self.capabilities.get("positionEncoding")
            self.encoding = (
                "utf-8" if encoding == "utf-8" else "utf-32" if encoding == "utf-32" else "utf-16"
            )
            client.initialized(lsp.InitializedParams())
            if config.settings is not None:
                client.workspace_did_change_configuration(
                    lsp.DidChangeConfigurationParams(settings=config.settings)
                )
            self.state = "ready"
            self._ready.set()
            log.info("language server %s started for %s (pid %s)", self.name, self.root, self.pid)
            gone = asyncio.ensure_future(process.wait())
            stop = asyncio.ensure_future(self._stop.wait())
            try:
                await asyncio.wait({gone, stop}, return_when="FIRST_COMPLETED")
            finally:
                gone.cancel()
                stop.cancel()
            if process.returncode is not None and not self._stop.is_set():
                await asyncio.sleep(0.05)
                self.message = self._explain(
                    f"The language server {self.name} exited (status {process.returncode})"
                )
                self.state = "failed"
        except CodeIntelError as exc:
            self.state, self.message = "failed", str(exc)
        except Exception as exc:
            self.state = "failed"
            self.message = self._explain(f"The language server {self.name} failed: {exc}")
        finally:
            self._client = None
            try:
                await self._shutdown(client, process)
            finally:  # even when this task is cancelled
                if drain is not None:
                    drain.cancel()
                if self.state in ("starting", "ready"):
                    self.state = "stopped"
                self._ready.set()

    async def _shutdown(self, client: Any, process: Any) -> None:
        """shutdown + exit (when it still runs), then the process group is killed."""
        if process is None:
            return
        grace = self.config.shutdown_timeout_ms / 1000
        try:
            if process.returncode is None:
                with contextlib.suppress(Exception):
                    async with asyncio.timeout(grace):
                        await client.shutdown_async(None)
                        client.exit(None)
                        # its input ends too: a server whose stdin reader is a thread (pygls':
                        # jedi-language-server) is held by it until then, and was killed after
                        # the whole grace period instead of ending by itself
                        if process.stdin is not None:
                            process.stdin.close()
                        await process.wait()
        finally:  # cancelled or not: no server process is left
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)  # the guard leads its group: all of it
        with contextlib.suppress(Exception):
            async with asyncio.timeout(grace):
                await process.wait()
        client._stop_event.set()  # private: pygls' reader loop ends on it
        for task in list(getattr(client, "_async_tasks", ())):
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*getattr(client, "_async_tasks", ()), return_exceptions=True)
        log.info("language server %s stopped", self.name)

    async def _drain(self, stream: asyncio.StreamReader | None) -> None:
        if stream is None:
            return
        while True:
            try:
                line = await stream.readline()
            except (ValueError, asyncio.LimitOverrunError):  # a huge line: skip a chunk
                with contextlib.suppress(Exception):
                    await stream.read(65536)
                continue
            if not line:
                return
            text = line.decode("utf-8", "replace").rstrip()
            if text:
                self.stderr.append(text[:300])
                log.debug("language server %s (stderr): %s", self.name, text[:300])

    def _register(self, client: Any, lsp: Any) -> None:
        settings = self.config.settings
        root = lsp.WorkspaceFolder(uri=self.root.as_uri(), name=self.root.name)

        def publish(params: Any) -> None:
            items = [self._converter.unstructure(d) for d in params.diagnostics]
            self.diagnostics[params.uri] = (params.version, items)
            self._published.set()

        handlers: dict[str, Any] = {
            lsp.WORKSPACE_CONFIGURATION: lambda params: [
                _section(settings, item.section) for item in params.items
            ],
            lsp.WINDOW_WORK_DONE_PROGRESS_CREATE: lambda params: None,
            lsp.CLIENT_REGISTER_CAPABILITY: lambda params: None,
            lsp.CLIENT_UNREGISTER_CAPABILITY: lambda params: None,
            lsp.WORKSPACE_WORKSPACE_FOLDERS: lambda params: [root],
            lsp.WINDOW_SHOW_MESSAGE_REQUEST: lambda params: None,
            lsp.WINDOW_LOG_MESSAGE: lambda params: log.debug(
                "language server %s: %s", self.name, params.message
            ),
            lsp.WINDOW_SHOW_MESSAGE: lambda params: log.info(
                "language server %s: %s", self.name, params.message
            ),
            lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
        }
        for method, handler in handlers.items():
            client.feature(method)(handler)

    # ---------------------------------------------------------------------- calls

    def supports(self, capability: str) -> bool:
        value = self.capabilities.get(capability)
        return value is not None and value is not False

    def notify(self, method: str, params: dict[str, Any]) -> None:
        from lsprotocol import types as lsp

        client = self._client
        if client is None:
            raise CodeIntelError(self.message or f"The language server {self.name} is not running")
        params_type = lsp.METHOD_TO_TYPES[method][2]
        client.protocol.notify(method, self._converter.structure(params, params_type))

    async def request(
        self, method: str, params: dict[str, Any], *, limit: float, signal: AbortSignal | None
    ) -> Any:
        """The result JSON of ``method``; ``CodeIntelError`` on a timeout, an abort, the
        server's error or its exit."""
        from lsprotocol import types as lsp
        from pygls.exceptions import JsonRpcException

        client = self._client
        if client is None or self.state != "ready":
            raise CodeIntelError(self.message or f"The language server {self.name} is not running")
        self.last_used = time.monotonic()
        params_type = lsp.METHOD_TO_TYPES[method][2]
        typed = self._converter.structure(params, params_type) if params_type else params
        msg_id = f"pi-{next(_ids)}"
        future = client.protocol.send_request_async(method, typed, msg_id=msg_id)
        self.busy += 1
        try:
            async with asyncio.timeout(limit):
                finished = await done_before_abort(future, signal)
        except asyncio.CancelledError:  # the caller went away: so does the request
            self._cancel(client, msg_id, future)
            raise
        except TimeoutError:
            self._cancel(client, msg_id, future)
            raise CodeIntelError(
                f"The language server {self.name} did not answer {method} within {limit:g} s"
            ) from None
        finally:
            self.busy -= 1
        if not finished:
            self._cancel(client, msg_id, future)
            raise CodeIntelError("Operation aborted")
        try:
            result = future.result()
        except JsonRpcException as exc:
            raise CodeIntelError(
                f"The language server {self.name} refused {method}: {exc}"
            ) from None
        except RuntimeError:  # pygls: the server process exited
            await asyncio.sleep(0.05)
            raise CodeIntelError(
                self._explain(f"The language server {self.name} exited while answering {method}")
            ) from None
        finally:
            self.last_used = time.monotonic()
        return self._converter.unstructure(result)

    def _cancel(self, client: Any, msg_id: str, future: asyncio.Future[Any]) -> None:
        from lsprotocol import types as lsp

        future.cancel()
        client.protocol._request_futures.pop(msg_id, None)  # private: no late result lands
        with contextlib.suppress(Exception):
            client.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id=msg_id))

    async def wait_for_diagnostics(self, uri: str, version: int, limit: float) -> list[Any] | None:
        """The published diagnostics of ``uri`` for ``version`` (or without a version),
        waiting at most ``limit`` seconds; ``None`` when none came."""
        deadline = time.monotonic() + limit
        while True:
            found = self.diagnostics.get(uri)
            if found is not None and found[0] in (None, version):
                return found[1]
            left = deadline - time.monotonic()
            if left <= 0:
                return found[1] if found is not None else None
            self._published.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await self._published.wait()


def _section(settings: Any, section: str | None) -> Any:
    if not section:
        return settings
    value = settings
    for part in section.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _capabilities(lsp: Any) -> Any:
    """What pi-lsp's client understands (UTF-16 positions, hierarchical symbols, links)."""
    return lsp.ClientCapabilities(
        general=lsp.GeneralClientCapabilities(position_encodings=[lsp.PositionEncodingKind.Utf16]),
        workspace=lsp.WorkspaceClientCapabilities(
            configuration=True,
            workspace_folders=True,
            workspace_edit=lsp.WorkspaceEditClientCapabilities(document_changes=True),
            symbol=lsp.WorkspaceSymbolClientCapabilities(),
        ),
        text_document=lsp.TextDocumentClientCapabilities(
            synchronization=lsp.TextDocumentSyncClientCapabilities(did_save=False),
            hover=lsp.HoverClientCapabilities(
                content_format=[lsp.MarkupKind.Markdown, lsp.MarkupKind.PlainText]
            ),
            definition=lsp.DefinitionClientCapabilities(link_support=True),
            type_definition=lsp.TypeDefinitionClientCapabilities(link_support=True),
            implementation=lsp.ImplementationClientCapabilities(link_support=True),
            references=lsp.ReferenceClientCapabilities(),
            document_symbol=lsp.DocumentSymbolClientCapabilities(
                hierarchical_document_symbol_support=True
            ),
            rename=lsp.RenameClientCapabilities(prepare_support=True),
            publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(version_support=True),
            diagnostic=lsp.DiagnosticClientCapabilities(),
            call_hierarchy=lsp.CallHierarchyClientCapabilities(),
        ),
        window=lsp.WindowClientCapabilities(work_done_progress=True),
    )
