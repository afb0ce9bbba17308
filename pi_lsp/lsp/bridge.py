"""``ClientBridge``: every server → client call, with the client's capabilities checked.

One place that knows pygls' request API and its traps (a client error reply raises
``JsonRpcException``; a dismissed prompt is ``None``; pending requests can be cancelled with
``$/cancelRequest`` when the run is aborted). The rest of ``lsp/`` calls these methods.
Must not import the session or agent modules.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from ..ai.abort import AbortSignal, done_before_abort
from .connection.transport import PiProtocol
from .protocol.positions import Encoding, normalize_encoding

log = logging.getLogger(__name__)


class RequestAborted(Exception):
    """The run was aborted while a client request was pending."""


class ClientBridge:
    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.connected = True
        """False between TCP connections: requests to the client fail at once, and
        notifications are dropped (the sessions' ``pi/event`` buffers keep them for replay)."""
        self._background: set[asyncio.Task[None]] = set()

    @property
    def protocol(self) -> PiProtocol:
        proto = self.server.protocol
        assert isinstance(proto, PiProtocol)
        return proto

    # ------------------------------------------------------------------ capabilities

    def cap(self, path: str, default: Any = None) -> Any:
        try:
            caps = self.server.client_capabilities
        except AttributeError:
            return default
        return get_capability(caps, path, default)

    @property
    def encoding(self) -> Encoding:
        try:
            return normalize_encoding(self.server.workspace.position_encoding)
        except RuntimeError:
            return "utf-16"

    @property
    def document_changes(self) -> bool:
        return bool(self.cap("workspace.workspace_edit.document_changes", False))

    @property
    def create_files(self) -> bool:
        ops = self.cap("workspace.workspace_edit.resource_operations", None) or []
        values = {str(getattr(op, "value", op)) for op in ops}
        return self.document_changes and "create" in values

    @property
    def change_annotations(self) -> bool:
        return self.document_changes and (
            self.cap("workspace.workspace_edit.change_annotation_support", None) is not None
        )

    @property
    def work_done_progress(self) -> bool:
        return bool(self.cap("window.work_done_progress", False))

    @property
    def show_document_supported(self) -> bool:
        return bool(self.cap("window.show_document.support", False))

    @property
    def configuration(self) -> bool:
        return bool(self.cap("workspace.configuration", False))

    # ----------------------------------------------------------------- notifications

    def notify_raw(self, method: str, params: dict[str, Any]) -> None:
        self.protocol.notify_raw(method, params)

    def show_message(self, kind: types.MessageType, text: str) -> None:
        self.server.window_show_message(types.ShowMessageParams(type=kind, message=text))

    def log_message(self, kind: types.MessageType, text: str) -> None:
        self.server.window_log_message(types.LogMessageParams(type=kind, message=text))

    # ---------------------------------------------------------------------- requests

    async def request(self, method: str, params: Any, signal: AbortSignal | None = None) -> Any:
        """Send a request; raise ``RequestAborted`` (after ``$/cancelRequest``) on abort.
        A client error reply raises ``JsonRpcException``."""
        if not self.connected:
            raise JsonRpcException(f"no editor is connected (cannot send {method})")
        msg_id = f"pi-{uuid.uuid4().hex[:12]}"
        future = asyncio.wrap_future(self.protocol.send_request(method, params, msg_id=msg_id))
        if signal is None:
            return await future
        if signal.aborted:
            future.cancel()
            self._cancel(msg_id)
            raise RequestAborted
        if await done_before_abort(future, signal):
            return future.result()
        future.cancel()
        self._cancel(msg_id)
        raise RequestAborted

    def fail_pending(self, reason: str) -> None:
        """Fail every request still waiting for the client (it has gone)."""
        for msg_id, future in list(self.protocol._request_futures.items()):
            if not future.done():
                future.set_exception(JsonRpcException(reason))
            self.protocol._request_futures.pop(msg_id, None)

    def _cancel(self, msg_id: str) -> None:
        self.protocol._request_futures.pop(msg_id, None)
        self.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))

    async def ask(
        self,
        message: str,
        actions: list[str],
        *,
        kind: types.MessageType = types.MessageType.Warning,
        signal: AbortSignal | None = None,
    ) -> str | None:
        """``window/showMessageRequest``; the chosen title, or ``None`` when dismissed,
        answered with an error, or aborted."""
        params = types.ShowMessageRequestParams(
            type=kind,
            message=message,
            actions=[types.MessageActionItem(title=a) for a in actions],
        )
        try:
            answer = await self.request(types.WINDOW_SHOW_MESSAGE_REQUEST, params, signal)
        except (JsonRpcException, RequestAborted) as exc:
            log.info("prompt not answered: %s", exc or type(exc).__name__)
            return None
        title = getattr(answer, "title", None)
        if title is None and isinstance(answer, dict):
            title = answer.get("title")
        return title if isinstance(title, str) else None

    async def apply_edit(
        self, edit: types.WorkspaceEdit, label: str, signal: AbortSignal | None = None
    ) -> tuple[bool, str | None]:
        """``workspace/applyEdit`` → ``(applied, failure_reason)``; errors count as not
        applied. ``RequestAborted`` propagates."""
        params = types.ApplyWorkspaceEditParams(edit=edit, label=label)
        try:
            result = await self.request(types.WORKSPACE_APPLY_EDIT, params, signal)
        except JsonRpcException as exc:
            return False, f"the editor answered with an error: {exc.message}"
        applied = bool(getattr(result, "applied", False))
        reason = getattr(result, "failure_reason", None)
        return applied, reason

    def show_document(self, uri: str, selection: types.Range | None) -> None:
        """``window/showDocument`` (``takeFocus: false``), sent and never waited on: it is a
        courtesy, and a client that answers late (or oddly) must not hold up the tool."""
        if not self.show_document_supported:
            return
        params = types.ShowDocumentParams(uri=uri, take_focus=False, selection=selection)
        task = asyncio.ensure_future(self._show_document(params))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _show_document(self, params: types.ShowDocumentParams) -> None:
        try:
            await asyncio.wait_for(self.request(types.WINDOW_SHOW_DOCUMENT, params), 60)
        except (JsonRpcException, TimeoutError) as exc:
            log.info("showDocument failed: %s", exc)

    async def fetch_configuration(self, section: str) -> Any:
        """``workspace/configuration`` for one section (``None`` when unsupported/failed)."""
        if not self.configuration:
            return None
        params = types.ConfigurationParams(items=[types.ConfigurationItem(section=section)])
        try:
            result = await self.request(types.WORKSPACE_CONFIGURATION, params)
        except JsonRpcException as exc:
            log.info("workspace/configuration failed: %s", exc.message)
            return None
        if isinstance(result, list | tuple) and result:  # lsprotocol gives a tuple
            return result[0]
        return None
