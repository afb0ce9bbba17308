"""The ACP agent: thin handlers over ``AcpSession`` (SDK ``acp.Agent`` protocol).

Each handler validates what the SDK did not (absolute ``cwd``, a known session id), calls one
session method and answers with an ``acp.schema`` model. ``initialize`` answers protocol
version 1 whatever the client asked (an unknown version is not an error), names us in
``agentInfo``, and advertises ``_meta.piLsp.deliver: ["followUp", "steer"]``: a prompt during
a run is queued as a follow-up unless its ``_meta.piLsp.deliver`` is ``"steer"``.
``close_all`` aborts every run and closes every session (the client disconnected).
Imports the SDK, ``sessions`` (through ``factory``) and this package.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.interfaces import Client
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    CloseSessionResponse,
    ElicitationFormSessionMode,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PermissionOption,
    PromptCapabilities,
    PromptResponse,
    RequestPermissionResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    ToolCallUpdate,
)

from .. import __version__
from ..runtime import ConfigError, SessionOptions, new_session_id
from ..runtime.permissions import rules_file
from ..runtime.trust_gate import TrustGate
from ..security.rules import RuleStore
from .client_fs import ClientFs, ClientFsError, ClientFsWorkspace
from .factory import (
    Provision,
    SessionBusyError,
    SessionNotFoundError,
    open_file,
    open_session,
    session_config,
    store_for,
)
from .mcp_servers import attach_mcp, from_acp
from .permissions import BashMode, PermissionBridge, bash_rules
from .project_trust import trust_ask
from .questions import AcpQuestions, ElicitationAnswer
from .replay import replay, replay_timed
from .session import AcpSession
from .subagents import ChildStream, SubagentsCapability
from .tool_view import wants_terminal

log = logging.getLogger("pi_lsp.acp")

AGENT_NAME = "pi-lsp"
DELIVERY_META = {"piLsp": {"deliver": ["followUp", "steer"], "defaultDeliver": "followUp"}}
LIST_PAGE = 50


def _unknown_session(session_id: str) -> RequestError:
    return RequestError.invalid_params({"sessionId": session_id, "message": "Unknown session"})


def _absolute(cwd: str) -> Path:
    path = Path(cwd)
    if not path.is_absolute():
        raise RequestError.invalid_params({"cwd": cwd, "message": "cwd must be an absolute path"})
    if not path.is_dir():
        raise RequestError.invalid_params({"cwd": cwd, "message": "cwd is not a directory"})
    return path


def _extra_roots(extra: list[str] | None) -> list[str]:
    """``additionalDirectories`` that exist (each must be absolute)."""
    return [p for p in (extra or []) if Path(p).is_absolute() and Path(p).is_dir()]


@dataclass(frozen=True, slots=True)
class ClientLink:
    """The client's side of one session (its id exists before the session is made)."""

    conn: Client
    session_id: str

    async def read(self, path: Path) -> str:
        try:
            answer = await self.conn.read_text_file(session_id=self.session_id, path=str(path))
        except RequestError as exc:
            raise ClientFsError(str(exc)) from exc
        return answer.content

    async def write(self, path: Path, text: str) -> None:
        try:
            await self.conn.write_text_file(
                session_id=self.session_id, path=str(path), content=text
            )
        except RequestError as exc:
            raise ClientFsError(str(exc)) from exc

    async def ask(
        self, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        return await self.conn.request_permission(
            session_id=self.session_id, tool_call=tool_call, options=options
        )

    async def ask_for(
        self, child_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        """A ``task`` child's question, under the child's id (the client declared
        ``subagents``)."""
        return await self.conn.request_permission(
            session_id=child_id, tool_call=tool_call, options=options
        )

    async def elicit(self, message: str, mode: ElicitationFormSessionMode) -> ElicitationAnswer:
        return await self.conn.create_elicitation(message=message, mode=mode)

    async def send(self, update: Any) -> None:
        await self.conn.session_update(session_id=self.session_id, update=update)


class PiAcpAgent:
    def __init__(self, prov: Provision) -> None:
        self.prov = prov
        self.conn: Client | None = None
        self.client_caps = ClientCapabilities()
        self.subagents_cap = SubagentsCapability()
        """``clientCapabilities.subagents`` (read from the raw ``initialize``)."""
        self.sessions: dict[str, AcpSession] = {}
        self._opening: set[asyncio.Task[Any]] = set()
        self.trust = TrustGate()
        """Project trust, asked once per directory (``project_trust.py``)."""

    def on_connect(self, conn: Client) -> None:
        self.conn = conn
        self.subagents_cap.watch(conn)

    def _client(self) -> Client:
        assert self.conn is not None, "on_connect was not called"
        return self.conn

    # ------------------------------------------------------------------ initialize

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self.client_caps = client_capabilities or ClientCapabilities()
        if protocol_version != PROTOCOL_VERSION:
            log.info(
                "client asked for protocol version %s: answering %s",
                protocol_version,
                PROTOCOL_VERSION,
            )
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_info=Implementation(name=AGENT_NAME, title="pi-lsp", version=__version__),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(
                    image=True, embedded_context=True, audio=False
                ),
                mcp_capabilities=McpCapabilities(http=True, sse=False),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities(),
                    close=SessionCloseCapabilities(),
                    resume=SessionResumeCapabilities(),
                ),
            ),
            auth_methods=[],
            field_meta=DELIVERY_META,
        )

    # ------------------------------------------------------------------ sessions

    async def _open(
        self,
        cwd: Path,
        resume: str | None = None,
        extra: list[str] | None = None,
        mcp: list[Any] | None = None,
    ) -> AcpSession:
        try:
            file = open_file(self.prov, cwd, resume)
        except SessionNotFoundError:
            raise RequestError.resource_not_found(resume) from None
        except SessionBusyError:  # refused before anything was written
            raise RequestError.invalid_params(
                {"sessionId": resume, "message": "the session is open in another process"}
            ) from None
        session_id = file.session_id if file is not None else new_session_id()
        link = ClientLink(self._client(), session_id)
        rules = RuleStore(rules_file(cwd), str(cwd))
        bridge = PermissionBridge(
            request=link.ask,
            on_cancelled=lambda: self._stop(session_id),
            request_for_child=link.ask_for if self.subagents_cap.enabled else None,
        )
        elicitation = self.client_caps.elicitation
        forms = elicitation is not None and elicitation.form is not None
        questions = AcpQuestions(
            request_permission=link.ask,
            elicit=link.elicit if forms else None,
            session_id=session_id,
        )
        caps = self.client_caps.fs
        fs = ClientFs(  # only what the client advertised
            read=link.read if caps is not None and caps.read_text_file else None,
            write=link.write if caps is not None and caps.write_text_file else None,
        )
        config = session_config(self.prov, from_acp(mcp))
        tools = attach_mcp(
            config,
            cwd,
            link.ask,
            rules,
            self.prov.config.permissions.mcp,
            ask_for_child=link.ask_for if self.subagents_cap.enabled else None,
        )
        rules_of_session = bash_rules(bridge, rules, self._bash_mode)
        bash = rules_of_session.before_tool_call

        def child_permissions(agent: str, child_id: str) -> tuple[Any, ...]:
            child = rules_of_session.for_child(agent, child_id).before_tool_call
            return (child,) if tools is None else (child, tools.child_check(agent, child_id))

        opened = open_session(
            config,
            cwd,
            file=file,
            resume=resume is not None,
            options=SessionOptions(
                session_id=session_id,
                permissions=(bash,) if tools is None else (bash, tools.check),
                ask=questions.ask,
                before_run=() if tools is None else (tools.before_run,),
                child_permissions=child_permissions,
            ),
            wrap_workspace=lambda workspace: ClientFsWorkspace(workspace, fs),
            roots=_extra_roots(extra),
            mcp=None if tools is None else tools.hub,
        )
        session = AcpSession(
            opened,
            cwd,
            self.prov,
            bridge,
            link.send,
            questions,
            settle_trust=lambda: self.trust.settle(opened.session, trust_ask(link.ask)),
        )
        subagents = opened.session.subagents
        if subagents is not None and self.subagents_cap.enabled:  # the RFD's updates
            session.children = ChildStream(session_id, cwd, self._client())
            subagents.subscribe(session.children.on_child)
        session.live.terminal = wants_terminal(self.client_caps.field_meta)
        self.sessions[session_id] = session
        return session

    def _stop(self, session_id: str) -> None:
        """The user answered a permission question with ``cancelled``: stop the turn."""
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel()

    def _bash_mode(self) -> BashMode:
        """The configured policy (``sandbox`` has no sandbox here: it asks)."""
        mode = self.prov.bash_mode
        return mode if mode in ("allow", "deny") else "ask"  # type: ignore[return-value]

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise _unknown_session(session_id)
        return session

    def _announce_soon(self, session: AcpSession) -> None:
        """Commands, title and usage right after the response (some clients drop updates for
        a session id they have not seen in a response yet)."""
        self._after_response(session.announce())

    def _after_response(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._opening.add(task)
        task.add_done_callback(self._opening.discard)

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        session = await self._open(_absolute(cwd), extra=additional_directories, mcp=mcp_servers)
        self._announce_soon(session)
        return NewSessionResponse(
            session_id=session.session_id,
            config_options=session.config_options(),
            modes=session.modes(),
        )

    async def _reopen(
        self,
        cwd: str,
        session_id: str,
        extra: list[str] | None = None,
        mcp: list[Any] | None = None,
    ) -> AcpSession:
        existing = self.sessions.get(session_id)
        if existing is not None:
            await existing.close()
            self.sessions.pop(session_id, None)
        return await self._open(_absolute(cwd), resume=session_id, extra=extra, mcp=mcp)

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        session = await self._reopen(cwd, session_id, additional_directories, mcp_servers)
        branch = session.session.tree.get_branch()
        if session.children is not None:  # with its children, as it happened
            timed = list(replay_timed(session_id, session.cwd, branch, session.live.terminal))
            entries = session.session.tree.entries  # its children's records, any branch
            await session.children.replay_tree(timed, entries, store_for(session.cwd), session.send)
        else:
            for update in replay(session_id, session.cwd, branch, session.live.terminal):
                await session.send(update)
        await session.announce(commands=False)  # the history's title, plan and usage first
        self._after_response(session.announce_commands())
        return LoadSessionResponse(config_options=session.config_options(), modes=session.modes())

    async def resume_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> ResumeSessionResponse:
        session = await self._reopen(cwd, session_id, additional_directories, mcp_servers)
        self._announce_soon(session)
        return ResumeSessionResponse(config_options=session.config_options(), modes=session.modes())

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        # without a cwd: the sessions of the directories this client opened
        roots = {s.cwd for s in self.sessions.values()} if cwd is None else {_absolute(cwd)}
        infos = []
        for root in roots:
            infos += [(root, info) for info in await asyncio.to_thread(store_for(root).list)]
        infos.sort(key=lambda pair: pair[1].updated_at, reverse=True)
        start = int(cursor) if cursor and cursor.isdigit() else 0
        page = infos[start : start + LIST_PAGE]
        more = start + LIST_PAGE < len(infos)
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=info.session_id,
                    cwd=str(root),
                    title=info.title,
                    updated_at=info.updated_at_iso,
                )
                for root, info in page
            ],
            next_cursor=str(start + LIST_PAGE) if more else None,
        )

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        session = self._session(session_id)
        self.sessions.pop(session_id, None)
        await session.close()
        return CloseSessionResponse()

    # ------------------------------------------------------------------ config

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        session = self._session(session_id)
        try:
            await session.set_option(config_id, str(value))
        except (ValueError, ConfigError) as exc:
            raise RequestError.invalid_params(
                {"configId": config_id, "message": str(exc)}
            ) from None
        return SetSessionConfigOptionResponse(config_options=session.config_options())

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        session = self._session(session_id)
        try:
            await session.set_option("thinking", mode_id)
        except ValueError as exc:
            raise RequestError.invalid_params({"modeId": mode_id, "message": str(exc)}) from None
        return SetSessionModeResponse()

    # ------------------------------------------------------------------ prompt / cancel

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        meta = kwargs.get("piLsp")
        deliver = meta.get("deliver") if isinstance(meta, dict) else None
        stop = await session.prompt(prompt, deliver if isinstance(deliver, str) else None)
        return PromptResponse(stop_reason=stop)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel()
            return
        for parent in list(self.sessions.values()):  # a task child (capabilities.cancel)
            subagents = parent.session.subagents
            if subagents is not None and subagents.get(session_id) is not None:
                subagents.stop(session_id)
                return

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        log.debug("ignored extension notification _%s", method)

    # ------------------------------------------------------------------ shutdown

    async def close_all(self) -> None:
        """The client is gone: abort every run, wait for the session files, release all."""
        sessions = list(self.sessions.values())
        self.sessions.clear()
        for session in sessions:
            session.closed = True  # nothing more is sent
        await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
