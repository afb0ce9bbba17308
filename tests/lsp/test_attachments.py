"""Context the user attaches: ``pi/prompt.attachments`` (file, selection, diagnostics, image),
``@path`` / ``@path#L10-20`` mentions (inside the workspace only; others stay text), large
attachments cut with a note to ``read``, and the diagnostic code action attaching the code
around the problem, not just its span."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from tests.support.http_server import ScriptedHTTPServer

from .conftest import Start, http_settings
from .harness import Harness, text_reply, uri_of, write_script
from .openai_sse import response, text_events

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5E"
    "rkJggg=="
)


def faux(tmp_path: Path, *replies: str) -> dict[str, Any]:
    script = write_script(tmp_path / "script.json", [text_reply(r) for r in replies])
    return {"provider": "faux", "fauxScript": str(script)}


async def user_message(h: Harness, **params: Any) -> dict[str, Any]:
    sid = await h.run(**params)
    end = await h.wait_event(sid, "agent_end")
    message: dict[str, Any] = end["messages"][0]
    return message


def text_of(message: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in message["content"] if b["type"] == "text")


async def test_attachments_file_selection_diagnostics_and_image(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    (workspace / "b.py").write_text("import os\n\nprint(x)\n", encoding="utf-8")
    h = await pi_in_process(pi=faux(tmp_path, "ok"))
    a_uri = h.open(workspace / "a.py", "def f():\n    return 2  # unsaved\n")
    b_uri = uri_of(workspace / "b.py")
    sel = {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 12}}
    diag = {
        "range": {"start": {"line": 2, "character": 6}, "end": {"line": 2, "character": 7}},
        "message": "undefined name 'x'",
        "severity": 1,
        "source": "pyflakes",
        "code": "F821",
    }
    message = await user_message(
        h,
        text="look",
        attachments=[
            {"uri": a_uri},
            {"uri": a_uri, "range": sel},
            {"diagnostics": {"uri": b_uri, "items": [diag]}},
            {"image": {"data": PNG, "mimeType": "image/png"}},
        ],
    )
    text = text_of(message)
    assert text.startswith("look\n\n")
    assert "The file `a.py`:" in text
    assert "return 2  # unsaved" in text  # the open buffer, not the disk
    assert "Selected code from `a.py` (line 2):\n```py\nreturn 2\n```" in text
    assert "Diagnostics in `b.py`:\n- line 3 (error, pyflakes, F821): undefined name 'x'" in text
    assert "import os" in text  # a short file comes whole with its diagnostics
    images = [b for b in message["content"] if b["type"] == "image"]
    assert images == [{"type": "image", "data": PNG, "mimeType": "image/png"}]


async def test_image_for_a_model_without_image_input_becomes_a_note(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    srv.enqueue(response(text_events("ok")))
    h = await pi_in_process(pi=http_settings(srv))  # an unknown local model: text only
    message = await user_message(
        h, text="what is this?", attachments=[{"image": {"data": PNG, "mimeType": "image/png"}}]
    )
    assert all(b["type"] == "text" for b in message["content"])
    assert "does not take images" in text_of(message)
    assert "image_url" not in str(srv.requests[0].json)


async def test_at_mentions_attach_workspace_files_and_leave_the_rest(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "mod.py").write_text(
        "".join(f"line {n}\n" for n in range(1, 31)), encoding="utf-8"
    )
    (tmp_path / "secret.txt").write_text("outside", encoding="utf-8")
    h = await pi_in_process(pi=faux(tmp_path, "ok"))
    prompt = (
        "Compare @a.py, @pkg/mod.py#L10-12 and @pkg/mod.py#L20 — ping @alice "
        "about @../secret.txt and @pkg."
    )
    text = text_of(await user_message(h, text=prompt))
    assert text.startswith(prompt + "\n\n")  # typed text kept as is
    assert "The file `a.py`:\n```py\ndef f():\n    return 1\n```" in text
    assert "Lines of `pkg/mod.py` (lines 10-12):\n```py\nline 10\nline 11\nline 12\n```" in text
    assert "Lines of `pkg/mod.py` (line 20):\n```py\nline 20\n```" in text
    assert "outside" not in text.removeprefix(prompt)  # outside the workspace: text only
    assert "alice" not in text.removeprefix(prompt)
    assert text.count("```py\n") == 3  # a directory (@pkg) is not attached


async def test_large_attachments_are_cut_with_a_note_to_read(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    (workspace / "big.log").write_text("".join(f"row {n}\n" for n in range(5000)), encoding="utf-8")
    h = await pi_in_process(pi=faux(tmp_path, "ok"))
    text = text_of(await user_message(h, text="summarise @big.log"))
    assert "row 1999" in text
    assert "row 2000\n" not in text
    assert "[Cut to fit; read `big.log` for the rest.]" in text


async def test_unreadable_attachment_is_an_error_naming_it(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(pi=faux(tmp_path, "ok"))
    missing = uri_of(workspace / "missing.py")
    with pytest.raises(JsonRpcInvalidParams, match=r"missing\.py"):
        await h.call("pi/prompt", {"text": "x", "attachments": [{"uri": missing}]})
    with pytest.raises(JsonRpcInvalidParams, match="attachments"):
        await h.call("pi/prompt", {"text": "x", "attachments": [{"nothing": 1}]})


async def test_diagnostic_code_action_attaches_the_surrounding_code(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    long = "".join(f"value_{n} = {n}\n" for n in range(300))
    (workspace / "long.py").write_text(long, encoding="utf-8")
    h = await pi_in_process(pi=faux(tmp_path, "fixed", "fixed"))
    for name, line in (("a.py", 1), ("long.py", 150)):
        uri = h.open(workspace / name)
        span = {"start": {"line": line, "character": 4}, "end": {"line": line, "character": 5}}
        diag = {"range": span, "message": "the problem", "source": "lint"}
        (fix,) = await h.raw_call(
            "textDocument/codeAction",
            {
                "textDocument": {"uri": uri},
                "range": {"start": span["start"], "end": span["start"]},
                "context": {"diagnostics": [diag], "only": ["quickfix"]},
            },
        )
        command = fix["command"]
        result = await h.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command["command"], arguments=command["arguments"])
        )
        end = await h.wait_event(result["sessionId"], "agent_end", 1 if name == "a.py" else 2)
        text = text_of(end["messages"][0])
        assert f"- line {line + 1} (lint): the problem" in text
        if name == "a.py":  # short: the whole file
            assert "The file `a.py`:\n```py\ndef f():\n    return 1\n```" in text
        else:  # long: the lines around it
            assert "Lines of `long.py` (lines 131-171):" in text
            assert "value_130 = 130" in text
            assert "value_170 = 170" in text
            assert "value_129 =" not in text
            assert "value_171 =" not in text
