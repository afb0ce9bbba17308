"""Two windows on one session never hide each other's work (issue 10 item 3): the file is
locked while a process writes it, and a second opener continues in a fork and is told so."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pi_lsp.sessions import SessionStore

from .helpers import assistant, user


def _store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "sessions", tmp_path)


def test_a_second_opener_forks_and_both_keep_their_work(tmp_path: Path) -> None:
    store = _store(tmp_path)
    first = store.create()
    first.append_message(user("q1"))
    first.append_message(assistant("a1"))
    assert first.is_locked

    second, original = store.open_for_writing(first.session_id)
    assert original == first.session_id
    assert second.session_id != first.session_id
    assert second.is_locked
    first.append_message(user("window one"))
    second.append_message(user("window two"))

    first.close()
    second.close()
    again, original = store.open_for_writing(first.session_id)
    assert original is None  # free again: the session itself
    texts = [m.content[0].text for m in again.build_context().messages]  # type: ignore[union-attr]
    assert texts == ["q1", "a1", "window one"]
    copy = store.open(second.session_id)
    texts = [m.content[0].text for m in copy.build_context().messages]  # type: ignore[union-attr]
    assert texts == ["q1", "a1", "window two"]
    assert copy.header.parent_session == str(first.path)


def test_a_lock_held_by_another_process_is_respected(tmp_path: Path) -> None:
    store = _store(tmp_path)
    session = store.create()
    session.append_message(user("q"))
    session.close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys, os; fd = os.open(sys.argv[1], os.O_RDONLY); "
            "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
            str(session.path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        copy, original = store.open_for_writing(session.session_id)
        assert original == session.session_id
        assert copy.session_id != session.session_id
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(10)
