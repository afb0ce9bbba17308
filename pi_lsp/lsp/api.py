"""The ``pi/*`` requests (and the ``pi.*`` commands): validate, call one domain method, answer.

Every method answers promptly — a run is started as a background task owned by its session,
never awaited here. Errors are JSON-RPC errors with a clear message: InvalidParams naming the
field or the unknown session, RequestFailed (-32803) for a setting the user must fix.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from ..agent.messages import user_message
from ..ai import ImageContent
from ..sessions import CompactionError
from .agent_setup import SetupError
from .client import ClientBridge
from .configuration import Configuration
from .documents import DocumentTracker, real_path
from .hosted import HostedSession
from .prompt_context import build_prompt
from .protocol import (
    ABORT,
    COMPACT,
    FOLLOW_UP,
    FORK_SESSION,
    NEW_SESSION,
    PROMPT,
    REPLAY,
    RESUME_SESSION,
    SESSIONS,
    STATE,
    STEER,
    AbortResult,
    CompactResult,
    ForkParams,
    NewSessionParams,
    PromptContext,
    PromptParams,
    PromptResult,
    QueueParams,
    ReplayParams,
    ReplayResult,
    RequiredSessionParams,
    ResumeResult,
    SessionIdResult,
    SessionParams,
    SessionsResult,
    parse_params,
)
from .session_manager import SessionManager, UnknownSessionError

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
        }

    @property
    def manager(self) -> SessionManager:
        manager = self._manager()
        if manager is None:
            raise JsonRpcException("Server not initialized", code=SERVER_NOT_INITIALIZED)
        return manager

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
        text = p.text if p.context is None else await self._with_context(p.text, p.context)
        images = [ImageContent(data=i.data, mime_type=i.mime_type) for i in p.images or ()]
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
        return ResumeResult(
            session_id=hosted.id,
            messages=messages,
            entry_ids=entry_ids,
            forked_from=hosted.forked_from,
        ).to_wire()

    async def state(self, raw: Any) -> dict[str, Any]:
        p = parse_params(STATE, SessionParams, raw)
        return self._session(p.session_id).state()

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
            hosted.setup.configure(hosted.agent)
        except SetupError as exc:
            raise request_failed(str(exc)) from None
        try:
            result = await hosted.compact()
        except CompactionError as exc:
            raise request_failed(str(exc)) from None
        return CompactResult(**result).to_wire()

    # -------------------------------------------------------------------- context

    async def _with_context(self, text: str, ctx: PromptContext) -> str:
        manager = self.manager
        workspace = manager.workspace
        buf = self.tracker.buffer(ctx.uri)
        path = real_path(ctx.uri)
        if buf is not None:
            content = buf.text
        elif path is not None:
            try:
                content = await workspace.disk_read_text(path)
            except OSError as exc:
                raise JsonRpcInvalidParams(
                    f"Invalid params for {PROMPT}: context.uri: cannot read {path}: "
                    f"{exc.strerror or exc}"
                ) from None
        else:
            raise JsonRpcInvalidParams(
                f"Invalid params for {PROMPT}: context.uri: {ctx.uri} is neither an open "
                "document nor a file: URI"
            )
        if path is not None and workspace.contains(path):
            shown = workspace.display_path(path)
        else:
            shown = str(path) if path is not None else ctx.uri
        rng = ctx.range
        return build_prompt(
            text,
            shown_path=shown,
            content=content,
            encoding=self.bridge.encoding,
            start=(rng.start.line, rng.start.character) if rng else None,
            end=(rng.end.line, rng.end.character) if rng else None,
        )
