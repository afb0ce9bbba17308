"""kill -9 at any moment: every completed append survives and the file still parses."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pi_lsp.sessions import SessionFile, SessionStore

WRITER = r"""
import sys
from pathlib import Path
from pi_lsp.ai import AssistantMessage, TextContent, UserMessage
from pi_lsp.sessions import SessionStore

from pi_lsp.sessions.fsync_worker import background_fsync

# "worker": the fsyncs on the worker thread, as every front end does (docs/sessions.md)
sync = background_fsync() if sys.argv[2] == "worker" else None
store = SessionStore(Path(sys.argv[1]), Path(sys.argv[1]), sync=sync)
f = store.create()
f.append_message(UserMessage(content=[TextContent(text="go")]))
print("session", f.session_id, flush=True)
i = 0
while True:
    i += 1
    text = f"reply {i} " + "y" * (50_000 + 997 * (i % 50))  # big lines: kills land mid-write
    entry = f.append_message(AssistantMessage(content=[TextContent(text=text)]))
    print("ack", i, entry, flush=True)
"""


@pytest.mark.parametrize("fsync", ["inline", "worker"])
def test_kill_9_mid_stream_loses_nothing_completed(tmp_path: Path, fsync: str) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(tmp_path), fsync],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.stdout is not None
    kind, session_id = proc.stdout.readline().split()
    assert kind == "session"
    acked: list[str] = []
    while len(acked) < 40:
        kind, _, entry = proc.stdout.readline().split()
        acked.append(entry)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL

    store = SessionStore(tmp_path, tmp_path)
    again = store.open(session_id)  # parses (a torn last line would be skipped)
    ids = [e.id for e in again.entries]
    assert ids[: len(acked) + 1][1:] == acked  # every acknowledged append, in order
    messages = again.build_context().messages
    assert messages[0].role == "user"
    assert all(m.role == "assistant" for m in messages[1:])
    assert len(messages) >= len(acked) + 1
    # the session goes on: an append after the crash lands on a clean line
    again.append_message(messages[0])
    reloaded = SessionFile.load(again.path)
    assert reloaded.load_warnings == []
    assert reloaded.entries[-1].parent_id == ids[-1]
