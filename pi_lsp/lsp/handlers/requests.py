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
from ...resources import ProjectResources
from ..bridge import ClientBridge
from ..configuration import Configuration
from ..editor.attachments import AttachmentError, Attachments
from ..editor.documents import DocumentTracker
from ..host.agent_setup import SetupError, model_for, offered_models
from ..host.hosted import HostedSession
from ..host.project_resources import commands_result, context_result, workspace_resources
from ..host.session_manager import SessionManager
from ..protocol.contract import (
    CheckpointsResult,
    CodeReviewParams,
    CodeReviewResult,
    CommandsResult,
    ContextResult,
    DecisionParams,
    DecisionResult,
    DismissFindingParams,
    DismissFindingResult,
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
    from .code_review import CodeReviewApi
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
        self.code_review_api: CodeReviewApi | None = None
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
        if self._start_code_review(p.text):  # /review: the findings become diagnostics
            return PromptResult(session_id=hosted.id, delivered="prompt")
        attachments: list[Attachment] = list(p.attachments or ())
        if p.context is not None:  # v1: one file or selection
            attachments.insert(0, FileAttachment(uri=p.context.uri, range=p.context.range))
        images = [ImageContent(data=i.data, mime_type=i.mime_type) for i in p.images or ()]
        await self.manager.trust.settle(hosted.session, hosted.id)  # before the expansion
        # the typed text is expanded before the attachments are added: else they would
        # become the template's arguments
        typed = hosted.session.expand_text(p.text).text
        builder = Attachments(self.tracker, self.manager.workspace, self.bridge.encoding)
        try:
            text, images = await builder.build(typed, attachments, images, hosted.session.model)
        except AttachmentError as exc:
            raise InvalidRequest(str(exc)) from None
        try:
            delivered = hosted.submit(user_message(text, images), p.deliver_as, expand=False)
        except SetupError as exc:
            self.bridge.show_message(types.MessageType.Error, str(exc))
            raise
        return PromptResult(session_id=hosted.id, delivered=delivered)

    def _start_code_review(self, text: str) -> bool:
        from .code_review import parse_review_command

        target = parse_review_command(text)
        if target is None:
            return False
        try:
            self._code_review().start(target)
        except SetupError as exc:
            self.bridge.show_message(types.MessageType.Error, str(exc))
            raise
        return True

    def _code_review(self) -> CodeReviewApi:
        if self.code_review_api is None:
            raise NotInitializedError
        return self.code_review_api

    async def code_review(self, p: CodeReviewParams) -> CodeReviewResult:
        await self.config.wait_loaded()
        return await self._code_review().code_review(p)

    async def dismiss_finding(self, p: DismissFindingParams) -> DismissFindingResult:
        return await self._code_review().dismiss_finding(p)

    async def steer(self, p: QueueParams) -> PromptResult:
        hosted = self._session(p.session_id, create=True)
        await self.manager.trust.settle(hosted.session, hosted.id)
        delivered = hosted.queue(user_message(p.text), "steer")
        return PromptResult(session_id=hosted.id, delivered=delivered)

    async def follow_up(self, p: QueueParams) -> PromptResult:
        hosted = self._session(p.session_id, create=True)
        await self.manager.trust.settle(hosted.session, hosted.id)
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
        if p.session_id is not None and p.session_id not in self.manager.sessions:
            for hosted in list(self.manager.sessions.values()):  # a task child: stop it alone
                if hosted.has_child(p.session_id):
                    return AbortResult(aborted=hosted.stop_child(p.session_id))
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

    # ------------------------------------------------------------------ project context

    def _resources(self, session_id: str | None) -> tuple[ProjectResources | None, str | None]:
        """The named (else the current) session's resources; with no session yet, the
        workspace's, loaded with the trust decided before."""
        manager = self.manager
        if session_id is None and manager.current is None:
            cwd = manager.workspace.cwd
            return workspace_resources(cwd, self.config.settings), None
        hosted = self._session(session_id)
        return hosted.session.project_resources, hosted.id

    async def commands(self, p: SessionParams) -> CommandsResult:
        """``pi/commands``: the slash commands ``/`` completes (docs/context.md)."""
        await self.config.wait_loaded()
        project, session_id = self._resources(p.session_id)
        return commands_result(project, session_id)

    async def context(self, p: SessionParams) -> ContextResult:
        """``pi/context``: what the session loaded."""
        await self.config.wait_loaded()
        project, session_id = self._resources(p.session_id)
        if project is None:
            raise RequestFailed("This session has no project context.")
        return context_result(project.payload(), session_id)

    async def reload(self, p: SessionParams) -> ContextResult:
        """``pi/reload``: load the session's context files, skills and templates again now
        (used from its next model call; ``resources_update`` tells the client)."""
        await self.config.wait_loaded()
        manager = self.manager
        if p.session_id is None and manager.current is None:
            return await self.context(p)
        hosted = self._session(p.session_id)
        if hosted.session.reload_resources() is None:
            raise RequestFailed("This session has no project context.")
        project = hosted.session.project_resources
        assert project is not None
        return context_result(project.payload(), hosted.id)

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
