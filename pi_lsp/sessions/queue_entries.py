"""Queued steering / follow-up messages in the session file, so they survive a restart.

Every queue change appends one ``custom`` entry (``customType: "pi-lsp.queue"``) holding the
whole of both queues; the last such entry on the branch is the queue to restore. Custom
entries never reach the model. Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from ..agent.messages import agent_message_adapter
from ..agent.queue import QueuedMessage
from .entries import CustomEntry, SessionEntry

log = logging.getLogger("pi_lsp.sessions")

QUEUE_ENTRY_TYPE = "pi-lsp.queue"


def queue_data(
    steering: Sequence[QueuedMessage], follow_ups: Sequence[QueuedMessage]
) -> dict[str, Any]:
    """The entry's ``data``: ``{steering: [{id, message}], followUp: [...]}``."""

    def items(queue: Sequence[QueuedMessage]) -> list[dict[str, Any]]:
        return [
            {
                "id": item.id,
                "message": agent_message_adapter.dump_python(
                    item.message, by_alias=True, exclude_none=True, mode="json"
                ),
            }
            for item in queue
        ]

    return {"steering": items(steering), "followUp": items(follow_ups)}


def restore_queues(
    branch: Sequence[SessionEntry],
) -> tuple[list[QueuedMessage], list[QueuedMessage]]:
    """The queues saved by the last queue entry on ``branch`` (empty when there is none).
    An item that no longer parses is skipped with a warning; the rest are kept."""
    for entry in reversed(branch):
        if isinstance(entry, CustomEntry) and entry.custom_type == QUEUE_ENTRY_TYPE:
            data = entry.data if isinstance(entry.data, dict) else {}
            return _items(data.get("steering")), _items(data.get("followUp"))
    return [], []


def _items(raw: Any) -> list[QueuedMessage]:
    out: list[QueuedMessage] = []
    for item in raw if isinstance(raw, list) else ():
        try:
            message = agent_message_adapter.validate_python(item["message"])
            out.append(QueuedMessage(str(item["id"]), message))
        except (KeyError, TypeError, ValidationError) as exc:
            log.warning("skipping a saved queued message that does not parse: %s", exc)
    return out
