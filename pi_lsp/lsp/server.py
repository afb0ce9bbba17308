"""The language server object, its handler registration, and start-up (stdio or TCP).

Orchestration only: settings (``configuration``), the ``pi/*`` requests (``api``), sessions
(``session_manager``), edits (``editor_workspace``), code actions, the transport and the
outbox live in their own modules and are wired together here.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__
from .api import PiApi
from .client import ClientBridge
from .code_actions import code_actions
from .configuration import SECTION, Configuration
from .converter import dict_converter
from .documents import DocumentTracker
from .framing import BlockingFrameReader
from .outbox import Outbox
from .protocol import COMMANDS
from .transport import (
    PiProtocol,
    StreamWriterAdapter,
    dispatch,
    run_loop,
    stream_frames,
    thread_frames,
)

log = logging.getLogger(__name__)


class PiLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "pi-lsp", __version__, protocol_cls=PiProtocol, converter_factory=dict_converter
        )
        self.bridge = ClientBridge(self)
        self.tracker = DocumentTracker()
        self.config = Configuration(self.bridge)
        self.manager: Any = None  # SessionManager, created at initialize (imports are lazy)
        self.api = PiApi(self.bridge, self.tracker, lambda: self.manager, self.config)
        self._stopped = False

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log instead of pygls' "Error in server" popups: request errors are already in the
        response; anything else goes to the client's log, not in the user's face."""
        kind = getattr(source, "__name__", str(source))
        if kind == "FeatureRequestError":  # already answered with an error response
            log.info("request failed: %s", error)
            return
        log.error("server error (%s): %s", kind, error)
        try:
            self.bridge.log_message(types.MessageType.Error, f"pi-lsp: {error}")
        except Exception:
            log.debug("could not log to the client", exc_info=True)

    # ------------------------------------------------------------------- lifecycle

    def initialize_host(self, params: types.InitializeParams) -> None:
        from ..sessions import SessionStore
        from .editor_workspace import EditorWorkspace, EditPolicy
        from .session_manager import SessionManager
        from .text_document import install

        install(self.workspace)  # didChange in time proportional to the change
        self.tracker.workspace = self.workspace
        self.config.initialize(params.initialization_options)
        roots = workspace_roots(params)
        workspace = EditorWorkspace(
            roots,
            bridge=self.bridge,
            tracker=self.tracker,
            policy=lambda: EditPolicy(self.config.settings, self.config.features),
        )
        store = SessionStore.for_workspace(workspace.cwd)
        self.manager = SessionManager(
            bridge=self.bridge,
            workspace=workspace,
            store=store,
            settings=self.config.current,
            features=self.config.features,
        )
        log.info("workspace roots: %s; sessions in %s", ", ".join(map(str, roots)),
                 store.directory)

    async def stop(self) -> None:
        """End every run, kill tool processes, flush sessions (idempotent)."""
        if self._stopped:
            return
        self._stopped = True
        if self.manager is not None:
            await self.manager.stop_all()


def folder_paths(folders: Iterable[types.WorkspaceFolder]) -> list[Path]:
    paths: list[Path] = []
    for folder in folders:
        path = to_fs_path(folder.uri)
        if path:
            paths.append(Path(path))
    return paths


def workspace_roots(params: types.InitializeParams) -> list[Path]:
    roots = folder_paths(params.workspace_folders or ())
    if not roots and params.root_uri:
        path = to_fs_path(params.root_uri)
        if path:
            roots.append(Path(path))
    if not roots and params.root_path:
        roots.append(Path(params.root_path))
    return roots or [Path(os.getcwd())]


def create_server() -> PiLanguageServer:
    server = PiLanguageServer()
    _register(server)
    return server


def _register(server: PiLanguageServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: PiLanguageServer, params: types.InitializeParams) -> None:
        ls.initialize_host(params)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders_changed(
        ls: PiLanguageServer, params: types.DidChangeWorkspaceFoldersParams
    ) -> None:
        """pygls has already updated ``ls.workspace.folders``: the tools follow (we advertise
        ``changeNotifications``, so a folder added in the editor must become reachable)."""
        if ls.manager is None:
            return
        roots = folder_paths(ls.workspace.folders.values())
        ls.manager.workspace.set_roots(roots)
        log.info("workspace roots now: %s", ls.manager.workspace.roots_text())

    @server.feature(types.INITIALIZED)
    async def initialized(ls: PiLanguageServer, params: types.InitializedParams) -> None:
        ls.config.report_pending()
        try:
            await ls.config.refresh()
        finally:
            ls.config.mark_loaded()
        if ls.bridge.cap("workspace.did_change_configuration.dynamic_registration", False):
            await _register_configuration(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: PiLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        await ls.config.refresh(params.settings)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PiLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.tracker.opened(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PiLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.tracker.changed(params.text_document.uri, params.text_document.version)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PiLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.tracker.closed(params.text_document.uri)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(
        ls: PiLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction]:
        return code_actions(params)

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: PiLanguageServer, params: Any) -> None:
        await ls.stop()

    for method, handler in server.api.methods().items():
        server.feature(method)(_request(handler))

    for command in COMMANDS:
        method = "pi/" + command.removeprefix("pi.")
        server.command(command)(_command(server.api.methods()[method]))


def _request(handler: Any) -> Any:
    async def pi_request(params: Any) -> Any:
        return await handler(params)

    return pi_request


def _command(handler: Any) -> Any:
    async def pi_command(*args: Any) -> Any:
        return await handler(args[0] if args else {})

    return pi_command


async def _register_configuration(ls: PiLanguageServer) -> None:
    registration = types.Registration(
        id="pi-configuration",
        method=types.WORKSPACE_DID_CHANGE_CONFIGURATION,
        register_options={"section": SECTION},
    )
    try:
        await ls.bridge.request(
            types.CLIENT_REGISTER_CAPABILITY, types.RegistrationParams([registration])
        )
    except Exception as exc:
        log.info("client/registerCapability for configuration failed: %s", exc)


# ------------------------------------------------------------------------------ serving


def run_stdio(
    stdin: BlockingFrameReader, outbox: Outbox, first: bytes | None, answered: Any = None
) -> int:
    """Serve until ``exit`` / EOF. ``first`` is the frame the start-up path already read;
    ``answered`` the id of the ``initialize`` it already answered."""
    server = create_server()
    protocol = server.protocol
    assert isinstance(protocol, PiProtocol)
    protocol.set_writer(outbox)
    protocol.suppressed_response = answered

    async def main() -> int:
        if first is None:
            await server.stop()
            return 0
        dispatch(protocol, first)
        return await run_loop(protocol, thread_frames(stdin), server.stop)

    return asyncio.run(main())


def serve_tcp(host: str, port: int) -> int:
    server = create_server()
    done: asyncio.Future[int] | None = None

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        assert done is not None
        if done.done():
            writer.close()
            return
        server.protocol.set_writer(StreamWriterAdapter(writer))
        protocol = server.protocol
        assert isinstance(protocol, PiProtocol)
        code = await run_loop(protocol, stream_frames(reader), server.stop)
        await writer.drain()
        writer.close()
        if not done.done():
            done.set_result(code)

    async def main() -> int:
        nonlocal done
        done = asyncio.get_running_loop().create_future()
        tcp = await asyncio.start_server(on_connect, host, port)
        log.info("listening on %s", ", ".join(str(s.getsockname()) for s in tcp.sockets))
        async with tcp:
            return await done

    return asyncio.run(main())
