"""The sessions of one server: create, find, resume, fork, list, and stop them all.

Every session is an ``AgentSession`` over a session file in the workspace's session
directory (``PI_LSP_DATA_DIR`` overrides it). ``current`` is the session ``pi/prompt`` uses
without a ``sessionId``. Runs of different sessions are independent tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from lsprotocol import types

from ...runtime import (
    ConfiguredSession,
    SessionOptions,
    create_agent_session,
    language_servers,
    saved_trust,
)
from ...sessions import SessionFile, SessionNotFoundError, SessionStore
from ...sessions.entries import CustomEntry
from ...sessions.store import prompt_text, session_title
from ...tools.code_intel import CodeIntel
from ..bridge import ClientBridge
from ..editor.editor_intel import EditorIntel
from ..editor.review_book import ReviewBook
from ..editor.review_notes import saved_notes
from ..protocol.models import SessionSummary
from ..settings import ClientFeatures, Settings
from .agent_setup import run_config
from .hosted import HostedSession
from .mcp_host import McpHost
from .permissions import EditorAsk, SecurityContext, bash_rules
from .project_resources import BUILTINS, ProjectTrust
from .questions import Questions

log = logging.getLogger(__name__)

MAX_IDLE_SESSIONS = 16
"""Idle sessions kept loaded beside the current one; older idle ones are unloaded (their
files stay: asking for one again loads it back)."""


class UnknownSessionError(LookupError):
    def __init__(self, session_id: str) -> None:
        super().__init__(f"Unknown session: {session_id}")
        self.session_id = session_id


class UnknownTargetError(LookupError):
    """A request names something of a session that does not exist (an entry to fork at);
    the message says what."""


class SessionManager:
    def __init__(
        self,
        *,
        bridge: ClientBridge,
        workspace: Any,
        store: SessionStore,
        settings: Callable[[], Settings],
        features: ClientFeatures,
        security: SecurityContext,
    ) -> None:
        self.bridge = bridge
        self.security = security
        self.workspace = workspace
        self.store = store
        self.settings = settings
        self.features = features
        self.sessions: dict[str, HostedSession] = {}
        self.current: HostedSession | None = None
        self._closing: set[asyncio.Future[None]] = set()
        self._last_seq: dict[str, int] = {}
        """The last event ``seq`` of each unloaded session."""
        self.review: ReviewBook | None = None
        """Set by the server: the pending review hunks
        (docs/protocol.md#review-hunks-keep-or-undo-each-change-91)."""
        self.mcp = McpHost(
            bridge, settings, lambda: list(getattr(workspace, "roots", ())), security.rules
        )
        """The MCP servers every session uses (docs/tools.md#mcp-servers)."""
        self.mcp.features = features
        self.trust = ProjectTrust(bridge, lambda: self.features)
        """Project trust, asked once per directory before a prompt (docs/context.md)."""
        self.lsp: Any = None
        """The language servers the sessions' ``lsp`` tool asks (``langserv.ServerPool``,
        made with the first session; docs/tools.md#lsp), stopped with the server."""
        self._lsp_made = False
        with contextlib.suppress(RuntimeError):  # no running loop (a unit test's manager)
            self.mcp.start_eager(lambda: self.current.id if self.current is not None else "")

    # ------------------------------------------------------------------------ create

    def _host(self, file: SessionFile, *, resume: bool) -> HostedSession:
        session_id = file.session_id  # known before anything is built: every ask carries it
        features = self.features
        ask = EditorAsk(self.bridge, lambda: features, session_id)
        permissions = bash_rules(ask, self.settings, self.security, self.bridge)
        questions = Questions(self.bridge, lambda: self.features, session_id)
        mcp_permissions, toolset = self.mcp.attach(lambda: session_id)

        async def before_run(session: ConfiguredSession) -> None:
            self.mcp.reload()
            await toolset.before_run(session)

        # a bad setting does not stop the session: it is reported when a run is asked for
        session = create_agent_session(
            run_config(self.settings()),
            self.workspace,
            file=file,
            resume=resume,
            options=SessionOptions(
                session_id=session_id,
                permissions=(permissions.before_tool_call, mcp_permissions.before_tool_call),
                ask=questions.ask,
                sandbox=self.security,
                before_run=(before_run,),
                child_permissions=lambda agent, child_id: (
                    permissions.for_child(agent, child_id).before_tool_call,
                    mcp_permissions.for_child(agent, child_id).before_tool_call,
                ),
                code_intel=self._code_intel(),
            ),
        )
        session.builtin_commands = frozenset(BUILTINS)
        self.mcp.start_eager(lambda: session_id)
        hosted = HostedSession(
            session,
            permissions,
            questions,
            bridge=self.bridge,
            features=self.features,
            settings=self.settings,
        )
        hosted.review = self.review
        if resume and self.review is not None:  # notes owed to the model before a restart
            self.review.restore_notes(hosted.id, saved_notes(file.get_branch()))
        hosted.mcp_permissions = mcp_permissions
        # a session loaded again after being unloaded continues its event numbering, so a
        # client that drops events it has seen (seq ≤ the last one) drops none of the new ones
        hosted.channel.seq = self._last_seq.pop(hosted.id, 0)
        self.sessions[hosted.id] = hosted
        self._unload_idle(keep=hosted)
        return hosted

    def _unload_idle(self, keep: HostedSession) -> None:
        """Keep at most ``MAX_IDLE_SESSIONS`` idle sessions loaded (least recently used go
        first). Never the current one, nor one with a run, a queue, an open permission
        question or hunks under review."""
        idle = [
            h
            for h in self.sessions.values()
            if h is not self.current
            and h is not keep
            and h.idle
            and not (self.review is not None and self.review.holds(h.id))
        ]
        for hosted in idle[: max(0, len(idle) - MAX_IDLE_SESSIONS)]:
            del self.sessions[hosted.id]
            self._last_seq[hosted.id] = hosted.channel.seq
            log.info("session %s: unloaded (idle)", hosted.id)
            task = asyncio.ensure_future(hosted.aclose())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    def create(self) -> HostedSession:
        hosted = self._host(self.store.create(), resume=False)
        self.current = hosted
        return hosted

    def get(self, session_id: str | None, *, create: bool = False) -> HostedSession:
        """A live session, loading it from its file when needed; ``None`` = current."""
        if session_id is None:
            if self.current is not None:
                return self.current
            if create:
                return self.create()
            raise UnknownSessionError("(none: no current session)")
        hosted = self.sessions.get(session_id)
        if hosted is not None:
            self.sessions[session_id] = self.sessions.pop(session_id)  # most recently used
            return hosted
        try:
            file, locked_original = self.store.open_for_writing(session_id)
        except (SessionNotFoundError, ValueError):
            raise UnknownSessionError(session_id) from None
        except OSError as exc:
            raise UnknownSessionError(f"{session_id} ({exc})") from None
        parent = subagent_parent(file)
        if parent is not None:  # a task child: shown through its parent, never prompted
            file.close()
            raise UnknownSessionError(
                f"{session_id} (a subagent of session {parent}: it cannot be resumed or "
                "prompted; pi/state of its parent lists it)"
            )
        hosted = self._host(file, resume=True)
        if locked_original is not None:
            hosted.forked_from = locked_original
            self.bridge.show_message(
                types.MessageType.Info,
                f"pi: session {locked_original} is open in another window (or pi-lsp run); "
                f"continuing in a copy of it, session {hosted.id}, so neither loses work.",
            )
        return hosted

    def resume(self, session_id: str) -> HostedSession:
        hosted = self.get(session_id)
        self.current = hosted
        return hosted

    def fork(self, session_id: str, entry_id: str) -> HostedSession:
        source = self.get(session_id)
        tree = source.session.tree
        if tree.get_entry(entry_id) is None:
            raise UnknownTargetError(f"Unknown entry {entry_id} in session {session_id}")
        file = tree.fork(entry_id, directory=self.store.directory)
        hosted = self._host(file, resume=True)
        self.current = hosted
        return hosted

    # ------------------------------------------------------------------------- views

    def list(self) -> list[SessionSummary]:
        out: list[SessionSummary] = []
        seen: set[str] = set()
        for info in self.store.list():
            seen.add(info.session_id)
            live = self.sessions.get(info.session_id)
            count = len(live.session.messages) if live is not None else info.message_count
            out.append(
                SessionSummary(
                    session_id=info.session_id,
                    title=info.title,
                    updated_at=info.updated_at_iso,
                    message_count=count,
                    is_streaming=live.running if live is not None else False,
                )
            )
        for hosted in self.sessions.values():
            if hosted.id not in seen:  # not written yet (no assistant reply so far)
                out.append(
                    SessionSummary(
                        session_id=hosted.id,
                        title=_title(hosted),
                        updated_at="",
                        message_count=len(hosted.session.messages),
                        is_streaming=hosted.running,
                    )
                )
        return out

    def attach_client(self, features: ClientFeatures) -> None:
        """A new connection (TCP reconnect): its client capabilities apply to every session."""
        self.features = features
        self.mcp.features = features
        for hosted in self.sessions.values():
            hosted.attach_client(features)

    def _code_intel(self) -> CodeIntel | None:
        """Who answers the sessions' ``lsp`` tool: the editor (``pi/lspQuery``) when it
        declares ``lspQuery``, the configured language servers otherwise and as its fallback;
        ``None`` (no tool) when neither can."""
        pool = self._language_servers()
        if not self.features.lsp_query and pool is None:
            return None
        return EditorIntel(self.bridge, lambda: self.features, pool)

    def _language_servers(self) -> Any:
        """The shared pool (``None`` when no language server is configured): the user's
        ``lspServers``, and the project's ``.pi/lsp.json`` / ``.lsp.json`` when it is
        trusted."""
        if not self._lsp_made:
            self._lsp_made = True
            try:
                options = run_config(self.settings()).resources
                self.lsp = language_servers(
                    self.workspace,
                    trusted=lambda: (
                        saved_trust(
                            self.workspace.cwd, run_config(self.settings()).resources
                        ).load_project
                    ),  # asked again at each reload: trusting later counts
                    resources=options,
                    notify=lambda text: self.bridge.log_message(types.MessageType.Warning, text),
                )
            except Exception as exc:  # nothing here may stop a session: no lsp tool
                log.warning("language servers not available: %s", exc)
        return self.lsp

    # ---------------------------------------------------------------------- shutdown

    async def stop_all(self) -> None:
        """Abort every run (≤ 2 s), kill tool processes, flush every session file and release
        its lock (a server started next in this process may open it), close the provider
        clients."""
        sessions = list(self.sessions.values())
        if sessions:
            await asyncio.gather(*(h.stop() for h in sessions), return_exceptions=True)
            for hosted in sessions:
                hosted.close()
            await asyncio.gather(*(h.session.aclose() for h in sessions), return_exceptions=True)
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
        await self.mcp.aclose()
        if self.lsp is not None:
            await self.lsp.aclose()


def _title(hosted: HostedSession) -> str:
    """A live session's title, cut as a saved one's is (``sessions.store.session_title``)."""
    first = next((m for m in hosted.session.messages if getattr(m, "role", None) == "user"), None)
    prompt = prompt_text(getattr(first, "content", None))
    return session_title(prompt, hosted.session.tree.name)


def subagent_parent(file: SessionFile) -> str | None:
    """The parent session of a ``task`` child's file (its ``subagent_parent`` entry)."""
    for entry in file.entries[:3]:
        if isinstance(entry, CustomEntry) and entry.custom_type == "subagent_parent":
            data = entry.data if isinstance(entry.data, dict) else {}
            parent = data.get("parentSessionId")
            return parent if isinstance(parent, str) else "?"
    return None
