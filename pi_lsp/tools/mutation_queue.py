"""The per-file mutation queue (Pi's ``withFileMutationQueue``): FIFO by real path.

Work on the same key runs strictly one at a time in the order it asked; different keys run in
parallel. ``asyncio.Lock`` hands itself to waiters first-come first-served, so the order is the
order in which callers reached ``hold``. Entries are dropped when their last user leaves.
Must not import anything above tools/.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field


@dataclass(slots=True)
class _Entry:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class FileMutationQueue:
    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = _Entry()
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            if entry.users == 0 and self._entries.get(key) is entry:
                del self._entries[key]

    def __len__(self) -> int:
        """Keys currently held or waited on (0 when idle)."""
        return len(self._entries)
