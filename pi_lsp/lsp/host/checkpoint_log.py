"""What the agent changed in one session, per tool call, beside its session file
(docs/protocol.md#checkpoints-restore-revert-one-tool-call-95): the records ``pi/checkpoints``,
``pi/restore`` and ``pi/revertToolCall`` read."""

from __future__ import annotations

import logging

from ...ai import UserMessage
from ...ai.types import now_ms
from ...review import CheckpointStore
from ...sessions.agent_session import AgentSession

log = logging.getLogger(__name__)


class CheckpointLog:
    def __init__(self, session: AgentSession) -> None:
        self._session = session

    @property
    def store(self) -> CheckpointStore | None:
        """``None`` for a session that is not saved."""
        file = self._session.file
        if file is None or not file.persist:
            return None
        return CheckpointStore.beside(file.path)

    def entries(self) -> list[tuple[str, UserMessage]]:
        """The user messages of the current branch, oldest first, with their entry ids."""
        out: list[tuple[str, UserMessage]] = []
        for entry in self._session.tree.get_branch():
            message = getattr(entry, "message", None)
            if isinstance(message, UserMessage):
                out.append((entry.id, message))
        return out

    def record(self, tool_call_id: str, uri: str, before: str, after: str) -> None:
        """An applied agent edit (from the review book)."""
        store, entries = self.store, self.entries()
        if store is None or not entries:
            return
        store.record(tool_call_id, entries[-1][0], uri, before, after, now_ms())

    def record_bash(self, tool_call_id: str) -> None:
        """A finished ``bash`` call: a restore past it warns that commands are not undone."""
        store, entries = self.store, self.entries()
        if store is None or not entries:
            return
        try:
            store.record_bash(tool_call_id, entries[-1][0], now_ms())
        except OSError:
            log.warning("could not note the bash call %s for restores", tool_call_id)
