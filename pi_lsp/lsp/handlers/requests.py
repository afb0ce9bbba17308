"""The ``pi/*`` requests (and the ``pi.*`` commands): each handler takes its params model and
returns its result model, as ``protocol/contract.py``'s table names them; ``dispatch.py``
registers them from that table (validation, wire form) and ``errors.py`` turns their domain
errors into JSON-RPC errors.

Every method answers promptly — a run is started as a background task owned by its session,
never awaited here. Errors are JSON-RPC errors with a clear message: InvalidParams naming the
field or the unknown session, RequestFailed (-32803) for a setting the user must fix.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from lsprotocol import types

from ...agent.messages import user_message
from ...ai import ImageContent
from ..bridge import ClientBridge
from ..configuration import Configuration
from ..editor.attachments import AttachmentError, Attachments
from ..editor.documents import DocumentTracker
from ..host.agent_setup import SetupError, model_for, offered_models
from ..host.hosted import HostedSession
from ..host.session_manager import SessionManager
from ..protocol.contract import (
    CheckpointsResult,
    DecisionParams,
    DecisionResult,
    ExportParams,
    ExportResult,
    McpResult,
    PermissionRule,
    PermissionsResult,
    ProcessesParams,
    ProcessesResult,
    RestoreParams,
    RestoreResult,
    RevertToolCallParams,
    RevertToolCallResult,
    ReviewResult,
    StateReply,
    UndoRestoreParams,
    UndoRestoreResult,
)
from ..protocol.models import (
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
    QueueResult,
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
    StateResult,
)
from . import processes as processes_api
from .dispatch import WireHandler, wire_handlers
from .errors import InvalidRequest, NotInitializedError, RequestFailed

if TYPE_CHECKING:
    from .checkpoints import CheckpointApi
    from .review import ReviewApi

log = logging.getLogger(__name__)


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

    def methods(self) -> dict[str, WireHandler]:
        """Every ``pi/*`` request of the contract, as pygls calls it (raw params → wire)."""
        return wire_handlers(self)

    @property
    def manager(self) -> SessionManager:
        manager = self._manager()
        if manager is None:
            raise NotInitializedError
        return manager

    def session(self, session_id: str) -> HostedSession:
        """A known session (``UnknownSessionError`` otherwise)."""
        return self.manager.get(session_id)

    def _session(self, session_id: str | None, *, create: bool = False) -> HostedSession:
        return self.manager.get(session_id, create=create)

    # ---------------------------------------------------------------------- requests

    async def prompt(self, p: PromptParams) -> PromptResult:
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
            raise InvalidRequest(str(exc)) from None
        try:
            delivered = hosted.submit(user_message(text, images), p.deliver_as)
        except SetupError as exc:
            self.bridge.show_message(types.MessageType.Error, str(exc))
            raise
        return PromptResult(session_id=hosted.id, delivered=delivered)

    async def steer(self, p: QueueParams) -> PromptResult:
        hosted = self._session(p.session_id, create=True)
        delivered = hosted.queue(user_message(p.text), "steer")
        return PromptResult(session_id=hosted.id, delivered=delivered)

    async def follow_up(self, p: QueueParams) -> PromptResult:
        hosted = self._session(p.session_id, create=True)
        delivered = hosted.queue(user_message(p.text), "followUp")
        return PromptResult(session_id=hosted.id, delivered=delivered)

    async def queue(self, p: QueueOpParams) -> QueueResult:
        hosted = self._session(p.session_id)
        try:
            return hosted.queue_op(p.op, p.id, p.text)
        except ValueError as exc:
            raise InvalidRequest(str(exc)) from None

    async def models(self, p: ModelsParams) -> ModelsResult:
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
        return ModelsResult(models=infos, current=current)

    async def set_model(self, p: SetModelParams) -> StateResult:
        await self.config.wait_loaded()
        hosted = self._session(p.session_id)
        try:
            hosted.set_model(p.provider, p.model, p.thinking_level)
        except (SetupError, ValueError) as exc:
            raise InvalidRequest(str(exc)) from None
        return hosted.state()

    async def set_mode(self, p: SetModeParams) -> SetModeResult:
        await self.config.wait_loaded()
        hosted = self._session(p.session_id)
        follow_up = hosted.set_mode(p.mode)
        return SetModeResult(mode=hosted.session.mode, follow_up=follow_up)

    async def abort(self, p: SessionParams) -> AbortResult:
        if p.session_id is None and self.manager.current is None:
            return AbortResult(aborted=False)
        return AbortResult(aborted=self._session(p.session_id).abort())

    async def new_session(self, p: NewSessionParams) -> SessionIdResult:
        return SessionIdResult(session_id=self.manager.create().id)

    async def sessions(self, p: NewSessionParams) -> SessionsResult:
        return SessionsResult(sessions=self.manager.list())

    async def resume_session(self, p: RequiredSessionParams) -> ResumeResult:
        hosted = self.manager.resume(p.session_id)
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
        )

    def _review(self) -> ReviewApi:
        _ = self.manager
        assert self.review_api is not None
        return self.review_api

    async def review(self, p: RequiredSessionParams) -> ReviewResult:
        return await self._review().review(p)

    async def review_decision(self, p: DecisionParams) -> DecisionResult:
        return await self._review().decide(p)

    def _checkpoints(self) -> CheckpointApi:
        _ = self.manager
        assert self.checkpoint_api is not None
        return self.checkpoint_api

    async def checkpoints(self, p: RequiredSessionParams) -> CheckpointsResult:
        return await self._checkpoints().checkpoints(p)

    async def restore(self, p: RestoreParams) -> RestoreResult:
        return await self._checkpoints().restore(p)

    async def undo_restore(self, p: UndoRestoreParams) -> UndoRestoreResult:
        return await self._checkpoints().undo_restore(p)

    async def revert_tool_call(self, p: RevertToolCallParams) -> RevertToolCallResult:
        return await self._checkpoints().revert_tool_call(p)

    async def state(self, p: SessionParams) -> StateReply:
        state = self._session(p.session_id).state()
        servers = self.manager.mcp.wire()["servers"]
        return StateReply.model_validate({**dict(state), "mcp": servers})

    async def replay(self, p: ReplayParams) -> ReplayResult:
        hosted = self._session(p.session_id)
        events, complete = hosted.channel.replay(p.after_seq)
        return ReplayResult(session_id=hosted.id, events=events, complete=complete)

    async def fork_session(self, p: ForkParams) -> SessionIdResult:
        hosted = self.manager.fork(p.session_id, p.entry_id)
        return SessionIdResult(session_id=hosted.id)

    async def compact(self, p: SessionParams) -> CompactResult:
        hosted = self._session(p.session_id)
        if hosted.running:
            raise RequestFailed("The session is running; abort it or wait before compacting.")
        hosted.configure()  # SetupError: a setting to fix
        return await hosted.compact()

    async def permissions(self, p: PermissionsParams) -> PermissionsResult:
        """``pi/permissions``: the workspace's "always" rules — list, or revoke one by id."""
        rules = self.manager.security.rules
        if p.op == "list":
            return PermissionsResult(
                rules=[
                    PermissionRule(id=r.id, tool=r.tool, pattern=r.pattern, created_at=r.created_at)
                    for r in rules.rules()
                ]
            )
        if not p.id:
            raise InvalidRequest("revoke needs an id")
        try:
            revoked = rules.revoke(p.id)
        except OSError as exc:
            raise RequestFailed(f"Could not update the permission rules: {exc}") from None
        return PermissionsResult(revoked=revoked)

    async def processes(self, p: ProcessesParams) -> ProcessesResult:
        """``pi/processes``: the session's background processes, or stop one."""
        return await processes_api.processes(self._session(p.session_id), p)

    async def export(self, p: ExportParams) -> ExportResult:
        """``pi/export``: the session as a self-contained HTML page (or Markdown)."""
        return await processes_api.export(self._session(p.session_id), p)

    async def mcp(self, p: McpParams) -> McpResult:
        """``pi/mcp``: the effective MCP servers (state, tool count), or restart one."""
        host = self.manager.mcp
        if p.op == "list":
            host.reload()
            return McpResult.model_validate(host.wire())
        if not p.name:
            raise InvalidRequest("restart needs a name")
        current = self.manager.current
        session_id = p.session_id or (current.id if current is not None else "")
        if not await host.restart(p.name, session_id):
            raise InvalidRequest(f"no MCP server {p.name!r}")
        return McpResult.model_validate(host.wire())
