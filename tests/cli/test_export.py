"""Issue 42: ``pi-lsp export SESSION [--html OUT | --markdown]`` — a self-contained page of a
session with an edit, a bash call and thinking; no remote asset; no secret planted in the
session file reaches it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from pi_lsp.ai import TextContent, ThinkingContent, ToolResultMessage, Usage, UsageCost
from pi_lsp.sessions import SessionStore
from pi_lsp.sessions.entries import dumps_line
from pi_lsp.sessions.export import export_session
from tests.sessions.helpers import assistant, tool_result, user

from .helpers import ROOT, clean_env

PLANTED = "sk-ant-api03-PLANTEDsecretVALUEabcdefghijklmnop"
DIFF = "   1 def greet():\n-  2     return 'hi'\n+  2     return 'hello'\n   3 "


def make_session(tmp_path: Path) -> tuple[SessionStore, str, Path]:
    cwd = tmp_path / "ws"
    cwd.mkdir(exist_ok=True)
    store = SessionStore.for_workspace(cwd, data_home=tmp_path / "data")
    f = store.create()
    f.append_message(user("Change greet() to say hello, then run the tests"))
    thinking = assistant("", calls=[("edit", {"path": "app.py", "edits": []})])
    thinking.content.insert(0, ThinkingContent(thinking="The greeting lives in app.py."))
    thinking.usage = Usage(input=1200, output=80, cost=UsageCost(total=0.0123))
    f.append_message(thinking)
    edit = tool_result(thinking, "Successfully replaced 1 block(s) in app.py.")
    f.append_message(
        ToolResultMessage(
            tool_call_id=edit.tool_call_id,
            tool_name="edit",
            content=edit.content,
            details={"diff": DIFF, "firstChangedLine": 2},
        )
    )
    run = assistant("Now the tests.", calls=[("bash", {"command": "python -m pytest -q"})])
    f.append_message(run)
    f.append_message(tool_result(run, "3 passed in 0.02s <script>alert(1)</script>"))
    f.append_message(assistant("Done: greet() says hello and the tests pass."))
    f.flush()
    # a secret that reached the file anyway (an older version, a hand edit)
    leaked = user(f"by the way my key is {PLANTED}")
    raw = {
        "type": "message",
        "id": "deadbeef",
        "parentId": f.leaf_id,
        "timestamp": "2026-12-05T12:00:00.000Z",
        "message": leaked.model_dump(by_alias=True, mode="json"),
    }
    with f.path.open("a", encoding="utf-8") as out:
        out.write(dumps_line(raw))
    assert PLANTED in f.path.read_text()
    return store, f.session_id, cwd


def export(args: list[str], tmp_path: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = clean_env(tmp_path)
    env["PI_LSP_DATA_DIR"] = str(
        SessionStore.for_workspace(cwd, data_home=tmp_path / "data").directory.parents[1]
    )
    return subprocess.run(
        [sys.executable, "-m", "pi_lsp", "export", *args, "--cwd", str(cwd)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )


def test_html_export_is_self_contained_and_redacted(tmp_path: Path) -> None:
    _store, session_id, cwd = make_session(tmp_path)
    out = tmp_path / "page.html"
    done = export([session_id, "--html", str(out)], tmp_path, cwd)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out.resolve())
    page = out.read_text()
    assert PLANTED not in page
    assert "[REDACTED]" in page
    assert page.startswith("<!DOCTYPE html>")
    # thinking folded, the edit's diff, the bash call, usage
    assert "<details><summary>thinking</summary>" in page
    assert "The greeting lives in app.py." in page
    assert '<span class="add">+  2     return &#x27;hello&#x27;</span>' in page
    assert '<span class="del">' in page
    assert "python -m pytest -q" in page
    assert "3 passed" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script" not in page
    assert "input 1,200" in page
    assert "$0.0123" in page
    # no remote asset: nothing is loaded from anywhere
    assert not re.search(r"""(?i)\b(src|href)\s*=|@import|url\(""", page)
    assert "default-src 'none'" in page
    assert out.stat().st_mode & 0o077 == 0


def test_markdown_export_to_stdout(tmp_path: Path) -> None:
    _, session_id, cwd = make_session(tmp_path)
    done = export([session_id, "--markdown"], tmp_path, cwd)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert text.startswith("# Change greet() to say hello")
    assert PLANTED not in text
    assert "```diff" in text
    assert "+  2     return 'hello'" in text
    assert "**bash**" in text


def test_default_path_and_unknown_session(tmp_path: Path) -> None:
    _, session_id, cwd = make_session(tmp_path)
    done = export([session_id], tmp_path, cwd)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / f"pi-session-{session_id}.html").is_file()
    missing = export(["0000"], tmp_path, cwd)
    assert missing.returncode == 2
    assert "Session not found: 0000" in missing.stderr


def test_a_session_file_path_works_too(tmp_path: Path) -> None:
    store, session_id, _ = make_session(tmp_path)
    path = store.path_of(session_id)
    assert path is not None
    page = export_session(store.open(session_id))
    assert PLANTED not in page
    done = export([str(path), "--markdown"], tmp_path, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Now the tests." in done.stdout
    assert json.dumps(PLANTED) not in done.stdout
    assert isinstance(TextContent(text="x"), TextContent)
    assert ROOT.is_dir()
