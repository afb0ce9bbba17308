"""Answers for clients that show no ``pi/event`` (docs/protocol.md#12-plain-clients): plain LSP
clients.

After each run the final answer goes out as ``window/showMessage`` (Info; a long answer is
cut, with a pointer to the transcript), and the whole session is written as Markdown beside
the session file; the message names that file, and a client that supports
``window/showDocument`` is asked to show it (``takeFocus: false``) at the latest answer.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path

from ...ai import AssistantMessage
from ...sessions.agent_session import AgentSession
from ...sessions.transcript import answer_text, cut_answer, transcript_markdown, transcript_path
from ..bridge import ClientBridge

log = logging.getLogger(__name__)

MAX_MESSAGE_CHARS = 1500
"""A longer answer is cut in the message (editors show it in a status area or a popup)."""


class PlainAnswers:
    def __init__(self, bridge: ClientBridge, session: AgentSession) -> None:
        self.bridge = bridge
        self.session = session
        self._answer: AssistantMessage | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._lines: list[str] = []
        """The transcript as last written (to point ``showDocument`` at the last answer)."""

    def on_event(self, event: Any) -> None:
        if getattr(event, "type", None) == "message_end":
            message = getattr(event, "message", None)
            if isinstance(message, AssistantMessage):
                self._answer = message

    def run_done(self) -> None:
        answer, self._answer = self._answer, None
        task = asyncio.ensure_future(self._deliver(answer))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _deliver(self, answer: AssistantMessage | None) -> None:
        path = await self._write_transcript()
        text = answer_text(answer) if answer is not None else ""
        if answer is not None and answer.stop_reason == "aborted":
            text = (text + "\n\n(aborted)").strip()
        elif answer is not None and answer.stop_reason == "error":
            text = (text + f"\n\n(error: {answer.error_message or 'model error'})").strip()
        text = text or "(done; no text answer)"
        if path is not None:
            text = cut_answer(text, MAX_MESSAGE_CHARS, f"(cut; the full answer is in {path})")
            text += f"\n\nTranscript: {path}"
        self.bridge.show_message(types.MessageType.Info, f"pi: {text}")
        if path is not None and self.bridge.show_document_supported:
            uri = from_fs_path(str(path)) or path.as_uri()
            self.bridge.show_document(uri, self._last_answer_range())

    async def _write_transcript(self) -> Path | None:
        tree = self.session.tree
        if not tree.persist:
            return None
        path = transcript_path(tree.path)
        title = f"pi session {self.session.session_id}"
        text = transcript_markdown(title, tree.get_branch())
        try:
            await asyncio.to_thread(_write, path, text)
        except OSError as exc:
            log.warning("could not write the transcript %s: %s", path, exc)
            return None
        self._lines = text.split("\n")
        return path

    def _last_answer_range(self) -> types.Range:
        line = max((i for i, row in enumerate(self._lines) if row == "## pi"), default=0)
        position = types.Position(line=line, character=0)
        return types.Range(start=position, end=position)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
