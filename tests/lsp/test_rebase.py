"""docs/protocol.md#rebase-onto-your-newer-text-92 over the real server: an edit or write computed
from older text is rebased onto what the user typed since (three-way, on lines); only an overlap is
refused, and the error shows the model the current text there. ``write`` never discards the user's
typing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import Start
from .harness import NVIM_011, VSCODE, text_reply, tool_reply
from .test_editor_files import EDIT, faux, result_text

SOURCE = "import os\n\n\ndef f():\n    return 1\n"


async def _confirming(pi: Start, tmp_path: Path, workspace: Path) -> tuple[Any, str]:
    """Neovim in confirm mode (asked before each edit), ``a.py`` open with ``SOURCE``."""
    h = await pi(
        capabilities=NVIM_011,
        pi=faux(tmp_path, tool_reply("edit", EDIT), text_reply("done"), edits="confirm"),
    )
    return h, h.open(workspace / "a.py", SOURCE)


async def _confirm_run(h: Any, uri: str, typed: str) -> dict[str, Any]:
    """Start an edit in confirm mode, type ``typed`` while the user is asked, then apply."""
    result = await h.call("pi/prompt", {"text": "change it"})
    sid = result["sessionId"]
    await h.wait_for(lambda: h.prompts)
    h.set_text(uri, typed)
    await h.call("pi/state", {"sessionId": sid})  # the didChange is processed before this
    await h.prompt_answers.put("Apply")
    await h.wait_event(sid, "agent_end")
    (end,) = h.tool_ends(sid)
    return end  # type: ignore[no-any-return]


async def test_typing_in_a_distant_region_is_merged(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h, uri = await _confirming(pi_in_process, tmp_path, workspace)
    end = await _confirm_run(h, uri, SOURCE.replace("import os", "import sys"))
    assert end["isError"] is False, result_text(end)
    assert h.docs[uri][1] == "import sys\n\n\ndef f():\n    return 2\n"


async def test_an_overlap_is_refused_with_the_current_text(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h, uri = await _confirming(pi_in_process, tmp_path, workspace)
    typed = SOURCE.replace("return 1", "return 1  # mine")
    end = await _confirm_run(h, uri, typed)
    assert end["isError"] is True
    text = result_text(end)
    assert "changed in the editor" in text
    assert "5:     return 1  # mine" in text  # line number and the current text
    assert h.edits == []
    assert h.docs[uri][1] == typed


async def _read_first(pi: Start, tmp_path: Path, workspace: Path) -> tuple[Any, str, str]:
    """The agent reads ``a.py`` (open with ``SOURCE``); its next run writes ``return 2``."""
    h = await pi(
        capabilities=VSCODE, pi=_write_script(tmp_path, SOURCE.replace("return 1", "return 2"))
    )
    uri = h.open(workspace / "a.py", SOURCE)
    return h, uri, await h.run("read a.py")


def _write_script(tmp_path: Path, content: str) -> dict[str, Any]:
    return faux(
        tmp_path,
        tool_reply("read", {"path": "a.py"}),
        text_reply("read it"),
        tool_reply("write", {"path": "a.py", "content": content}),
        text_reply("written"),
    )


async def test_write_after_a_user_change_keeps_the_user_text(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h, uri, sid = await _read_first(pi_in_process, tmp_path, workspace)
    h.set_text(uri, "# typed by the user\n" + SOURCE)
    await h.run("now write it", sessionId=sid)
    (_, end) = h.tool_ends(sid)
    assert end["isError"] is False, result_text(end)
    assert h.docs[uri][1] == "# typed by the user\nimport os\n\n\ndef f():\n    return 2\n"


async def test_write_over_the_users_lines_is_refused(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h, uri, sid = await _read_first(pi_in_process, tmp_path, workspace)
    typed = SOURCE.replace("return 1", "return 3  # mine")
    h.set_text(uri, typed)
    await h.run("now write it", sessionId=sid)
    (_, end) = h.tool_ends(sid)
    assert end["isError"] is True
    assert "return 3  # mine" in result_text(end)
    assert h.docs[uri][1] == typed
    assert h.edits == []
