"""docs/protocol.md#rebase-onto-your-newer-text-92 for ``edit``: an edit whose target text the
user changed after the agent read it is refused with the overlap error, which shows the
current text of those lines — not pi's generic "could not find the exact text", which points
the model at some other similar line. In process (server logic)."""

from __future__ import annotations

from pathlib import Path

from .conftest import Start
from .harness import VSCODE, text_reply, tool_reply
from .test_editor_files import EDIT, faux, result_text

SOURCE = "import os\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return 0\n"


async def test_an_edit_of_text_the_user_changed_shows_their_text(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(
        capabilities=VSCODE,
        pi=faux(
            tmp_path,
            tool_reply("read", {"path": "a.py"}),
            text_reply("read it"),
            tool_reply("edit", EDIT),
            text_reply("tried"),
        ),
    )
    uri = h.open(workspace / "a.py", SOURCE)
    sid = await h.run("read a.py")
    typed = SOURCE.replace("return 1\n", "return one  # mine\n")
    h.set_text(uri, typed)
    await h.run("now change it", sessionId=sid)
    end = h.tool_ends(sid)[-1]
    assert end["isError"] is True
    text = result_text(end)
    assert "changed in the editor after it was read" in text
    assert "5:     return one  # mine" in text
    assert "Could not find" not in text
    assert h.docs[uri][1] == typed


async def test_text_the_agent_never_saw_still_gets_pis_error(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    wrong = {"path": "a.py", "edits": [{"oldText": "return 7", "newText": "return 8"}]}
    h = await pi_in_process(
        capabilities=VSCODE,
        pi=faux(
            tmp_path,
            tool_reply("read", {"path": "a.py"}),
            tool_reply("edit", wrong),
            text_reply("tried"),
        ),
    )
    uri = h.open(workspace / "a.py", SOURCE)
    sid = await h.run("change it")
    end = h.tool_ends(sid)[-1]
    assert end["isError"] is True
    assert "Could not find" in result_text(end)
    assert h.docs[uri][1] == SOURCE
