"""Session-file fsyncs off the event loop: written at once, synced by a worker, in order."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from pi_lsp.ai import UserMessage
from pi_lsp.sessions import SessionStore
from pi_lsp.sessions.fsync_worker import BackgroundFsync


class RecordingSync(BackgroundFsync):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[Path, bool]] = []

    def __call__(self, path: Path, created: bool) -> None:
        self.calls.append((path, created))
        super().__call__(path, created)


def test_a_store_with_a_sync_writes_at_once_and_hands_the_fsyncs_to_it(tmp_path: Path) -> None:
    sync = RecordingSync()
    store = SessionStore(tmp_path / "sessions", tmp_path, sync=sync)
    file = store.create()
    file.append_message(UserMessage(content="hello", timestamp=1))
    file.append_message(UserMessage(content="again", timestamp=2))
    # the lines are in the file before any fsync ran: readers and a killed process see them
    text = file.path.read_text(encoding="utf-8")
    assert '"hello"' in text
    assert '"again"' in text
    assert sync.calls[0] == (file.path, True)  # created: its directory is synced too
    assert all(call == (file.path, False) for call in sync.calls[1:])
    assert sync.drain(10)
    # reopened (as a resume does) it keeps the same worker; so does a fork
    again = store.open(file.session_id)
    assert again.sync is sync
    assert file.fork(file.leaf_id or "").sync is sync


def test_the_worker_fsyncs_on_its_own_thread_and_drain_waits_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    real = os.fsync

    def spy(fd: int) -> None:
        seen.append(threading.current_thread().name)
        real(fd)

    import pi_lsp.sessions.fsync_worker as worker

    monkeypatch.setattr(worker.os, "fsync", spy)
    sync = BackgroundFsync()
    path = tmp_path / "a.jsonl"
    path.write_text("x\n")
    for _ in range(5):
        sync(path, False)
    assert sync.drain(10)
    assert seen
    assert set(seen) == {"pi-session-fsync"}


def test_a_file_deleted_before_its_fsync_is_not_an_error(tmp_path: Path) -> None:
    sync = BackgroundFsync()
    sync(tmp_path / "gone.jsonl", True)
    assert sync.drain(10)


def test_without_a_sync_the_fsync_stays_inline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    import pi_lsp.sessions.jsonl as jsonl

    real = os.fsync
    monkeypatch.setattr(jsonl.os, "fsync", lambda fd: (calls.append(fd), real(fd)))
    store = SessionStore(tmp_path / "sessions", tmp_path)
    file = store.create()
    file.append_message(UserMessage(content="hello", timestamp=1))
    assert calls  # the CLI's path: durable before append returns
