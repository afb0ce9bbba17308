"""The ``pi/*`` requests (and the ``pi.*`` commands): validate, call one domain method, answer.

Every method answers promptly — a run is started as a background task owned by its session,
never awaited here. Errors are JSON-RPC errors with a clear message: InvalidParams naming the
field or the unknown session, RequestFailed (-32803) for a setting the user must fix.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from ...agent.messages import user_message
from ...ai import ImageContent
from ...sessions import CompactionError
from ..bridge import ClientBridge
from ..configuration import Configuration
from ..editor.attachments import AttachmentError, Attachments
from ..editor.documents import DocumentTracker
from ..host.agent_setup import SetupError, model_for, offered_models
from ..host.hosted import HostedSession
from ..host.session_manager import SessionManager, UnknownSessionError
from ..protocol.contract import ExportParams, ProcessesParams
from ..protocol.methods import (
    CHECKPOINTS,
    EXPORT,
    PROCESSES,
    RESTORE,
    REVERT_TOOL_CALL,
    REVIEW,
    REVIEW_DECISION,
    UNDO_RESTORE,
)
from ..protocol.models import (
    ABORT,
    COMPACT,
    FOLLOW_UP,
    FORK_SESSION,
    MCP,
    MODELS,
    NEW_SESSION,
    PERMISSIONS,
    PROMPT,
    QUEUE,
    REPLAY,
    RESUME_SESSION,
    SESSIONS,
    SET_MODE,
    SET_MODEL,
    STATE,
    STEER,
    AbortResult,
    Attachment,
    CompactResult,
    FileAttachment,
    ForkParams,
    LiveRun,
    McpParams,
    ModelInfo,
    ModelRef,
    ModelsParams,
    ModelsResult,
    NewSessionParams,
    PermissionsParams,
    PromptParams,
    PromptResult,
    QueueOpParams,
    QueueParams,
    ReplayParams,
    ReplayResult,
    RequiredSessionParams,
    ResumeResult,
    SessionIdResult,
    SessionParams,
    SessionsResult,
    SetModelParams,
    SetModeParams,
    SetModeResult,
    parse_params,
)
from . import processes

if TYPE_CHECKING:
    from .checkpoints import CheckpointApi
    from .review import ReviewApi

log = logging.getLogger(__name__)

REQUEST_FAILED = -32803
SERVER_NOT_INITIALIZED = -32002

Handler = Callable[[Any], Awaitable[dict[str, Any]]]


def request_failed(message: str) -> JsonRpcException:
    return JsonRpcException(message, code=REQUEST_FAILED)


class PiApi:
    def __init__(
        self,
        bridge: ClientBridge,
        tracker: DocumentTracker,
        manager: Callable[[], SessionManager | None],
        config: Configuration,
    ) -> None:
        self.bridge = bridge
        self.tracker = tracker
        self._manager = manager
        self.config = config
        self.review_api: ReviewApi | None = None
        """Set at initialize (it needs the workspace)."""
        self.checkpoint_api: CheckpointApi | None = None
        """Set at initialize (it needs the workspace)."""

    def methods(self) -> dict[str, Handler]:
        return {
            PROMPT: self.prompt,
            STEER: self.steer,
            FOLLOW_UP: self.follow_up,
            ABORT: self.abort,
            NEW_SESSION: self.new_session,
            SESSIONS: self.sessions,
            RESUME_SESSION: self.resume_session,
            STATE: self.state,
            REPLAY: self.replay,
            FORK_SESSION: self.fork_session,
            COMPACT: self.compact,
            REVIEW: self.review,
            REVIEW_DECISION: self.review_decision,
            CHECKPOINTS: self.checkpoints,
            RESTORE: self.restore,
            UNDO_RESTORE: self.undo_restore,
            REVERT_TOOL_CALL: self.revert_tool_call,
            PERMISSIONS: self.permissions,
            MCP: self.mcp,
            QUEUE: self.queue,
            MODELS: self.models,
            SET_MODEL: self.set_model,
            SET_MODE: self.set_mode,
            PROCESSES: self.processes,
            EXPORT: self.export,
        }

    @property
    def manager(self) -> SessionManager:
        manager = self._manager()
        if manager is None:
            raise JsonRpcException("Server not initialized", code=SERVER_NOT_INITIALIZED)
        return manager

    def session(self, session_id: str) -> HostedSession:
        """A known session (InvalidParams naming it otherwise)."""
        return self._session(session_id)

    def _session(self, session_id: str | None, *, create: bool = False) -> HostedSession:
        try:
            return self.manager.get(session_id, create=create)
        except UnknownSessionError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None

    # ---------------------------------------------------------------------- requests

    async def prompt(self, raw: Any) -> dict[str, Any]:
        p = parse_params(PROMPT, PromptParams, raw)
        _ = self.manager  # before initialize: refused at once, not after the settings wait
        await self.config.wait_loaded()
        hosted = self._session(p.session_id, create=True)
        attachments: list[Attachment] = list(p.attachments or ())
        if p.context is not None:  # v1: one file or selection
            attachments.insert(0, FileAttachment(uri=p.context.uri, range=p.context.range))
        images = [ImageContent(data=i.data, mime_type=i.mime_type) for i in p.images or ()]
        builder = Attachments(self.tracker, self.manager.workspace, self.bridge.encoding)
        try:
            text, images = await builder.build(p.text, attachments, images, hosted.session.model)
        except AttachmentError as exc:
            raise JsonRpcInvalidParams(f"Invalid params for {PROMPT}: {exc}") from None
        try:
            delivered = hosted.submit(user_message(text, images), p.deliver_as)
        except SetupError as exc:
            self.bridge.show_message(types.MessageType.Error, str(exc))
            raise request_failed(str(exc)) from None
        return PromptResult(session_id=hosted.id, delivered=delivered).to_wire()

    async def steer(self, raw: Any) -> dict[str, Any]:
        p = parse_params(STEER, QueueParams, raw)
        hosted = self._session(p.session_id, create=True)
        delivered = hosted.queue(user_message(p.text), "steer")
        return PromptResult(session_id=hosted.id, delivered=delivered).to_wire()

    async def follow_up(self, raw: Any) -> dict[str, Any]:
        p = parse_params(FOLLOW_UP, QueueParams, raw)
        hosted = self._session(p.session_id, create=True)
        delivered = hosted.queue(user_message(p.text), "followUp")
        return PromptResult(session_id=hosted.id, delivered=delivered).to_wire()

    async def queue(self, raw: Any) -> dict[str, Any]:
        p = parse_params(QUEUE, QueueOpParams, raw)
        hosted = self._session(p.session_id)
        try:
            return hosted.queue_op(p.op, p.id, p.text)
        except KeyError:
            raise JsonRpcInvalidParams(
                f"Invalid params for {QUEUE}: id {p.id!r} is not queued in session "
                f"{hosted.id} (unknown, or already delivered or removed)"
            ) from None
        except ValueError as exc:
            raise JsonRpcInvalidParams(f"Invalid params for {QUEUE}: {exc}") from None

    async def models(self, raw: Any) -> dict[str, Any]:
        p = parse_params(MODELS, ModelsParams, raw)
        await self.config.wait_loaded()
        settings = self.config.current()
        current: ModelRef | None = None
        hosted = self._session(p.session_id) if p.session_id is not None else self.manager.current
        try:
            model = hosted.session.model if hosted is not None else model_for(settings)
            current = ModelRef(provider=model.provider, id=model.id)
        except SetupError:
            current = None
        infos = [
            ModelInfo(
                provider=m.provider,
                id=m.id,
                name=m.name or m.id,
                context_window=m.context_window,
                max_tokens=m.max_tokens,
                reasoning=m.reasoning,
                input=list(m.input),
                cost=m.cost.model_dump(by_alias=True, exclude={"total"}),
            )
            for m in offered_models(settings)
        ]
        return ModelsResult(models=infos, current=current).to_wire()

    async def set_model(self, raw: Any) -> dict[str, Any]:
        p = parse_params(SET_MODEL, SetModelParams, raw)
        await self.config.wait_loaded()
        hosted = self._session(p.session_id)
        try:
            hosted.set_model(p.provider, p.model, p.thinking_level)
        except (SetupError, ValueError) as exc:
            raise JsonRpcInvalidParams(f"Invalid params for {SET_MODEL}: {exc}") from None
        return hosted.state()

    async def set_mode(self, raw: Any) -> dict[str, Any]:
        p = parse_params(SET_MODE, SetModeParams, raw)
        await self.config.wait_loaded()
        hosted = self._session(p.session_id)
        follow_up = hosted.set_mode(p.mode)
        return SetModeResult(mode=hosted.session.mode, follow_up=follow_up).to_wire()

    async def abort(self, raw: Any) -> dict[str, Any]:
        p = parse_params(ABORT, SessionParams, raw)
        if p.session_id is None and self.manager.current is None:
            return AbortResult(aborted=False).to_wire()
        return AbortResult(aborted=self._session(p.session_id).abort()).to_wire()

    async def new_session(self, raw: Any) -> dict[str, Any]:
        parse_params(NEW_SESSION, NewSessionParams, raw)
        return SessionIdResult(session_id=self.manager.create().id).to_wire()

    async def sessions(self, raw: Any) -> dict[str, Any]:
        parse_params(SESSIONS, NewSessionParams, raw)
        return SessionsResult(sessions=self.manager.list()).to_wire()

    async def resume_session(self, raw: Any) -> dict[str, Any]:
        p = parse_params(RESUME_SESSION, RequiredSessionParams, raw)
        try:
            hosted = self.manager.resume(p.session_id)
        except UnknownSessionError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        messages, entry_ids = hosted.messages()
        hosted.publish_queue()
        start = hosted.events.run_start
        live = None
        if hosted.running and start is not None and start[1] <= len(messages):
            live = LiveRun(after_seq=start[0], message_count=start[1])
        return ResumeResult(
            session_id=hosted.id,
            messages=messages,
            entry_ids=entry_ids,
            forked_from=hosted.forked_from,
            live_run=live,
        ).to_wire()

    async def review(self, raw: Any) -> dict[str, Any]:
        _ = self.manager
        assert self.review_api is not None
        return await self.review_api.review(raw)

    async def review_decision(self, raw: Any) -> dict[str, Any]:
        _ = self.manager
        assert self.review_api is not None
        return await self.review_api.decide(raw)

    def _checkpoints(self) -> CheckpointApi:
        _ = self.manager
        assert self.checkpoint_api is not None
        return self.checkpoint_api

    async def checkpoints(self, raw: Any) -> dict[str, Any]:
        return await self._checkpoints().checkpoints(raw)

    async def restore(self, raw: Any) -> dict[str, Any]:
        return await self._checkpoints().restore(raw)

    async def undo_restore(self, raw: Any) -> dict[str, Any]:
        return await self._checkpoints().undo_restore(raw)

    async def revert_tool_call(self, raw: Any) -> dict[str, Any]:
        return await self._checkpoints().revert_tool_call(raw)

    async def state(self, raw: Any) -> dict[str, Any]:
        p = parse_params(STATE, SessionParams, raw)
        state = self._session(p.session_id).state()
        state["mcp"] = self.manager.mcp.wire()["servers"]
        return state

    async def replay(self, raw: Any) -> dict[str, Any]:
        p = parse_params(REPLAY, ReplayParams, raw)
        hosted = self._session(p.session_id)
        events, complete = hosted.channel.replay(p.after_seq)
        return ReplayResult(session_id=hosted.id, events=events, complete=complete).to_wire()

    async def fork_session(self, raw: Any) -> dict[str, Any]:
        p = parse_params(FORK_SESSION, ForkParams, raw)
        try:
            hosted = self.manager.fork(p.session_id, p.entry_id)
        except UnknownSessionError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        except KeyError as exc:
            raise JsonRpcInvalidParams(str(exc.args[0])) from None
        return SessionIdResult(session_id=hosted.id).to_wire()

    async def compact(self, raw: Any) -> dict[str, Any]:
        p = parse_params(COMPACT, SessionParams, raw)
        hosted = self._session(p.session_id)
        if hosted.running:
            raise request_failed("The session is running; abort it or wait before compacting.")
        try:
            hosted.configure()
        except SetupError as exc:
            raise request_failed(str(exc)) from None
        try:
            result = await hosted.compact()
        except CompactionError as exc:
            raise request_failed(str(exc)) from None
        return CompactResult(**result).to_wire()

    async def permissions(self, raw: Any) -> dict[str, Any]:
        """``pi/permissions``: the workspace's "always" rules — list, or revoke one by id."""
        p = parse_params(PERMISSIONS, PermissionsParams, raw)
        rules = self.manager.security.rules
        if p.op == "list":
            return {"rules": [r.to_wire() for r in rules.rules()]}
        if not p.id:
            raise JsonRpcInvalidParams("Invalid params for pi/permissions: revoke needs an id")
        try:
            revoked = rules.revoke(p.id)
        except OSError as exc:
            raise request_failed(f"Could not update the permission rules: {exc}") from None
        return {"revoked": revoked}

    async def processes(self, raw: Any) -> dict[str, Any]:
        """``pi/processes``: the session's background processes, or stop one."""
        p = parse_params(PROCESSES, ProcessesParams, raw)
        return await processes.processes(self._session(p.session_id), p)

    async def export(self, raw: Any) -> dict[str, Any]:
        """``pi/export``: the session as a self-contained HTML page (or Markdown)."""
        p = parse_params(EXPORT, ExportParams, raw)
        return await processes.export(self._session(p.session_id), p)

    async def mcp(self, raw: Any) -> dict[str, Any]:
        """``pi/mcp``: the effective MCP servers (state, tool count), or restart one."""
        p = parse_params(MCP, McpParams, raw)
        host = self.manager.mcp
        if p.op == "list":
            host.reload()
            return host.wire()
        if not p.name:
            raise JsonRpcInvalidParams("Invalid params for pi/mcp: restart needs a name")
        current = self.manager.current
        session_id = p.session_id or (current.id if current is not None else "")
        if not await host.restart(p.name, session_id):
            raise JsonRpcInvalidParams(f"Invalid params for pi/mcp: no MCP server {p.name!r}")
        return host.wire()
