"""docs/protocol.md#the-disk-tells-the-truth-93 over the real server: the tool result says whether
the change reached the disk; a later ``bash`` result names the files whose change is only in an
editor buffer."""

from __future__ import annotations

from pathlib import Path

from .conftest import Start
from .harness import NVIM_011, text_reply, tool_reply
from .test_editor_files import EDIT, faux, result_text

DISK = "def f():\n    return 1\n"


async def test_a_clean_buffer_is_saved_and_says_so(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(
        capabilities=NVIM_011, pi=faux(tmp_path, tool_reply("edit", EDIT), text_reply("ok"))
    )
    h.open(workspace / "a.py")
    sid = await h.run("change it")
    (end,) = h.tool_ends(sid)
    assert "Saved to disk." in result_text(end)
    assert (workspace / "a.py").read_text() == "def f():\n    return 2\n"


async def test_unsaved_user_changes_keep_the_change_in_the_buffer_and_bash_is_told(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    script = faux(
        tmp_path,
        tool_reply("edit", EDIT),
        tool_reply("bash", {"command": "cat a.py"}),
        text_reply("ok"),
        permissions={"bash": "allow"},
    )
    h = await pi_in_process(capabilities=NVIM_011, pi=script)
    uri = h.open(workspace / "a.py", "# mine\n" + DISK)
    sid = await h.run("change it and test")
    edit_end, bash_end = h.tool_ends(sid)
    assert "editor buffer only" in result_text(edit_end)
    assert "file on disk still has the old text" in result_text(edit_end)
    assert "return 1" in result_text(bash_end)  # the command saw the old file
    assert "Not on disk yet" in result_text(bash_end)
    assert "a.py" in result_text(bash_end)
    assert (workspace / "a.py").read_text() == DISK  # unsaved user work never overwritten
    assert h.docs[uri][1] == "# mine\ndef f():\n    return 2\n"
