"""The language server object, its handler registration, and start-up (stdio or TCP).

Orchestration only: settings (``configuration``), the ``pi/*`` requests (``handlers/``), sessions
(``session_manager``), edits (``editor_workspace``), code actions, the transport and the
outbox live in their own modules and are wired together here.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__
from ..runtime.event_loop import run as run_event_loop
from .bridge import ClientBridge
from .configuration import SECTION, Configuration
from .connection.converter import dict_converter
from .connection.framing import BlockingFrameReader
from .connection.outbox import Outbox
from .connection.transport import (
    NullWriter,
    PiProtocol,
    dispatch,
    run_loop,
    thread_frames,
)
from .editor.code_actions import code_actions
from .editor.documents import DocumentTracker
from .handlers.requests import PiApi
from .protocol.models import COMMANDS, DIAGNOSTICS

if TYPE_CHECKING:
    from .editor.editor_workspace import EditorWorkspace
    from .editor.review_book import ReviewBook

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
        self.review: ReviewBook | None = None
        self.api = PiApi(self.bridge, self.tracker, lambda: self.manager, self.config)
        self._stopped = False
        self._warm_up: asyncio.Task[None] | None = None
        self.warmed = asyncio.Event()
        """Set when the warm-up after ``initialized`` is over (``start_warm_up``)."""
        self.persistent = False
        """Serving over TCP: the sessions outlive a connection (``shutdown`` / ``exit`` /
        a closed socket end the connection, not the server)."""

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
        from ..review import RestoreLog
        from ..security.rules import RuleStore
        from ..security.sandbox import default_sandbox
        from ..sessions import SessionStore
        from ..sessions.fsync_worker import background_fsync
        from .editor.editor_workspace import EditorWorkspace, EditPolicy
        from .editor.review_book import ReviewBook
        from .editor.text_document import install
        from .handlers.checkpoints import CheckpointApi
        from .handlers.review import ReviewApi
        from .host.permissions import SecurityContext, rules_file
        from .host.session_manager import SessionManager

        install(self.workspace)  # didChange in time proportional to the change
        self.tracker.forget_all(self.workspace)
        self.config.initialize(params.initialization_options)
        if self.manager is not None:  # a new connection to a running server (TCP)
            self.manager.attach_client(self.config.features)
            log.info("client reconnected; %d live sessions", len(self.manager.sessions))
            return
        sandbox = default_sandbox()
        sandbox.start_probe()  # really runs bwrap once, in the background
        roots = workspace_roots(params)
        workspace = EditorWorkspace(
            roots,
            bridge=self.bridge,
            tracker=self.tracker,
            policy=lambda: EditPolicy(self.config.settings, self.config.features),
        )
        # fsync on a worker thread: a slow disk never stalls requests or streams
        store = SessionStore.for_workspace(workspace.cwd, sync=background_fsync())
        self.manager = SessionManager(
            bridge=self.bridge,
            workspace=workspace,
            store=store,
            settings=self.config.current,
            features=self.config.features,
            security=SecurityContext(
                RuleStore(rules_file(workspace.cwd), str(workspace.cwd)), sandbox
            ),
        )
        self.review = ReviewBook(self._publish_review, lambda: self.bridge.encoding)
        workspace.review = self.review
        self.manager.review = self.review
        self.api.review_api = ReviewApi(self.review, workspace, self._session_known)
        self.review.on_change = self._record_change
        self.review.on_notes = self._save_notes
        self.review.warn = self._warn
        self.review.display = lambda uri: _shown_path(workspace, uri)
        self.api.checkpoint_api = CheckpointApi(
            workspace,
            self.api.session,
            self._fork_before,
            RestoreLog(store.directory / "restores"),
            self.review,
        )
        log.info("workspace roots: %s; sessions in %s", ", ".join(map(str, roots)), store.directory)

    def _publish_review(self, session_id: str, event: dict[str, Any]) -> None:
        hosted = self.manager.get(session_id)
        hosted.channel.publish(event)

    def _save_notes(self, session_id: str, notes: list[Any]) -> None:
        hosted = self.manager.sessions.get(session_id)
        if hosted is not None:
            hosted.save_review_notes(notes)

    def _warn(self, text: str) -> None:
        log.warning("%s", text)
        self.bridge.log_message(types.MessageType.Warning, f"pi-lsp: {text}")

    def _record_change(
        self, session_id: str, tool_call_id: str, uri: str, before: str, after: str
    ) -> None:
        self.manager.get(session_id).changes.record(tool_call_id, uri, before, after)

    def _fork_before(self, session_id: str, entry_id: str | None) -> Any:
        """A session holding ``session_id``'s branch up to ``entry_id`` (none: a new one)."""
        if entry_id is None:
            return self.manager.create()
        return self.manager.fork(session_id, entry_id)

    def _session_known(self, session_id: str) -> bool:
        try:
            self.manager.get(session_id)
        except Exception:
            return False
        return True

    def start_warm_up(self) -> None:
        """Once initialized: run what the first prompt would run for the first time, in the
        background (``runtime/warm.py``), so a prompt typed later is answered at once."""
        if self._warm_up is None and self.manager is not None:
            from ..runtime.warm import warm_up

            self._warm_up = asyncio.get_running_loop().create_task(
                warm_up(self.manager.workspace), name="pi-warm-up"
            )
            self._warm_up.add_done_callback(lambda _: self.warmed.set())

    async def security_notice(self) -> None:
        """Say once when ``permissions.bash`` is ``sandbox`` but the sandbox does not work."""
        if self.manager is None:
            return
        text = await self.manager.security.unavailable_notice(self.config.settings)
        if text is not None:
            log.warning("%s", text)
            self.bridge.show_message(types.MessageType.Warning, text)

    def roots_differ(self, params: types.InitializeParams) -> str | None:
        """Why a new connection cannot share this server's sessions (other folders)."""
        if self.manager is None:
            return None
        mine = {os.path.realpath(r) for r in self.manager.workspace.roots}
        theirs = {os.path.realpath(r) for r in workspace_roots(params)}
        if mine == theirs:
            return None
        return (
            f"This pi-lsp serves the workspace {', '.join(sorted(mine))}; this connection's "
            f"folders are {', '.join(sorted(theirs))}. One server serves one workspace: start "
            "another pi-lsp for that folder."
        )

    def connection_opened(self) -> None:
        """A new client (TCP): it starts over with its own ``initialize``."""
        protocol = self.protocol
        assert isinstance(protocol, PiProtocol)
        protocol._shutdown = False
        protocol.initialize_seen = False
        self.bridge.connected = True

    def connection_closed(self) -> None:
        """The client went away (TCP): runs go on; what waited for it fails now."""
        self.bridge.connected = False
        self.bridge.fail_pending("the editor disconnected")
        self.tracker.forget_all(None)
        protocol = self.protocol
        assert isinstance(protocol, PiProtocol)
        protocol.set_writer(NullWriter())

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
        await ls.security_notice()
        if ls.bridge.cap("workspace.did_change_configuration.dynamic_registration", False):
            await _register_configuration(ls)
        ls.start_warm_up()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: PiLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        await ls.config.refresh(params.settings)
        await ls.security_notice()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PiLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.tracker.opened(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PiLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.tracker.changed(params.text_document.uri, params.text_document.version)
        uri = unquote(params.text_document.uri)
        if ls.review is not None and ls.review.watching(uri):
            doc = ls.workspace.text_documents.get(uri)
            if doc is not None:
                ls.review.observe(uri, doc.source)

    @server.feature(DIAGNOSTICS)
    def diagnostics(ls: PiLanguageServer, params: Any) -> None:
        report = _diagnostics_params(params)
        workspace = ls.manager.workspace if ls.manager is not None else None
        if report is not None and workspace is not None:
            workspace.diagnostics.report(*report)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PiLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.tracker.closed(params.text_document.uri)
        if ls.review is not None:
            ls.review.closed(unquote(params.text_document.uri))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(ls: PiLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return code_actions(params)

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: PiLanguageServer, params: Any) -> None:
        if not ls.persistent:  # over TCP the sessions outlive the connection
            await ls.stop()

    handlers = server.api.methods()  # one per method of protocol/contract.py's table
    for method, handler in handlers.items():
        server.feature(method)(handler)

    for command in COMMANDS:
        method = "pi/" + command.removeprefix("pi.")
        server.command(command)(_command(handlers[method]))


def _diagnostics_params(params: Any) -> tuple[str, int | None, list[dict[str, Any]]] | None:
    """``pi/diagnostics {uri, version?, diagnostics}``; a malformed report is logged, dropped."""
    if not isinstance(params, dict):
        params = getattr(params, "__dict__", None)
    uri = params.get("uri") if isinstance(params, dict) else None
    version = params.get("version") if isinstance(params, dict) else None
    diagnostics = params.get("diagnostics") if isinstance(params, dict) else None
    if (
        not isinstance(uri, str)
        or not isinstance(diagnostics, list)
        or not (version is None or (isinstance(version, int) and not isinstance(version, bool)))
    ):
        log.info("ignoring a malformed pi/diagnostics notification")
        return None
    return uri, version, [d for d in diagnostics if isinstance(d, dict)]


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

    return run_event_loop(main())


def _shown_path(workspace: EditorWorkspace, uri: str) -> str:
    """How a review note names ``uri``: workspace-relative when it can."""
    try:
        return workspace.display_path(workspace.tracker_path(uri))
    except Exception:
        return uri
