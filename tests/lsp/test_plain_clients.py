"""Clients that show no ``pi/event`` (a plain LSP client): each run's final answer arrives as
``window/showMessage`` (Info; long answers cut with a pointer), with a Markdown transcript
beside the session file that the message names and ``window/showDocument`` opens
(``takeFocus: false``) when the client supports it. A client that declares ``events`` gets
neither."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from .conftest import Start
from .harness import text_reply, tool_reply, uri_of, write_script
from .raw import RawClient

PLAIN = {"clientCapabilities": {"events": False}}


def faux(tmp_path: Path, *responses: dict[str, Any], **extra: Any) -> dict[str, Any]:
    script = write_script(tmp_path / "script.json", list(responses))
    return {"provider": "faux", "fauxScript": str(script), **extra}


def transcript_from(message: str) -> Path:
    marker = "Transcript: "
    assert marker in message, message
    return Path(message.split(marker, 1)[1].strip())


@pytest.mark.e2e  # a raw client with no capabilities at all, over the process's stdio
async def test_raw_plain_client_gets_the_answer_as_a_message_and_a_transcript(
    tmp_path: Path, workspace: Path, data_dir: Path
) -> None:
    settings = faux(
        tmp_path, tool_reply("read", {"path": "a.py"}, text="Reading."), text_reply("f returns 1.")
    )
    c = await RawClient.start(data_dir)
    try:
        init = await c.call(
            "initialize",
            {  # no capabilities at all, no clientCapabilities
                "processId": os.getpid(),
                "rootUri": uri_of(workspace),
                "capabilities": {},
                "initializationOptions": {"pi": settings},
            },
        )
        assert "result" in init
        c.notify("initialized", {})
        done = await c.call(
            "workspace/executeCommand",
            {"command": "pi.prompt", "arguments": [{"text": "what does f return?"}]},
        )
        assert done["result"]["delivered"] == "prompt"

        def info() -> dict[str, Any] | None:
            return next(
                (
                    m["params"]
                    for m in c.messages
                    if m.get("method") == "window/showMessage" and m["params"]["type"] == 3
                ),
                None,
            )

        shown = await c.wait_for(info)
        assert shown["message"].startswith("pi: f returns 1.")
        path = transcript_from(shown["message"])
        assert path.parent == next(data_dir.rglob("*.jsonl")).parent  # beside the session
        assert path.suffix == ".md"
        text = path.read_text(encoding="utf-8")
        assert "## You\n\n> what does f return?" in text
        assert "Reading." in text
        assert "**read**" in text
        assert "return 1" in text  # the tool result
        assert text.rstrip().endswith("f returns 1.")
        assert not any(m.get("method") == "window/showDocument" for m in c.messages)
    finally:
        await c.close()


async def test_plain_client_with_show_document_gets_the_transcript_opened(
    pi_in_process: Start, tmp_path: Path
) -> None:
    long = "\n".join(f"Paragraph {n}: " + "words " * 30 for n in range(40))
    h = await pi_in_process(
        pi={**faux(tmp_path, text_reply("short one"), text_reply(long)), **PLAIN}
    )
    sid = await h.run("first")
    first = await h.wait_for(
        lambda: [m for m in h.client.messages if m.type == types.MessageType.Info]
    )
    assert first[0].message.startswith("pi: short one\n\nTranscript: ")
    shown = await h.wait_for(lambda: h.client.shown_documents)
    path = transcript_from(first[0].message)
    assert shown[0].uri == uri_of(path)
    assert shown[0].take_focus is False
    await h.run("second", sessionId=sid)
    infos = await h.wait_for(
        lambda: (
            len([m for m in h.client.messages if m.type == types.MessageType.Info]) >= 2
            and [m for m in h.client.messages if m.type == types.MessageType.Info]
        )
    )
    message = infos[1].message
    assert len(message) < 1800
    assert f"(cut; the full answer is in {path})" in message
    assert "Paragraph 39" not in message
    documents = await h.wait_for(
        lambda: len(h.client.shown_documents) >= 2 and h.client.shown_documents
    )
    lines = path.read_text(encoding="utf-8").split("\n")
    selection = documents[1].selection
    assert selection is not None
    assert lines[selection.start.line] == "## pi"  # the latest answer
    assert "Paragraph 39" in "\n".join(lines[selection.start.line :])


async def test_client_that_renders_events_gets_no_answer_messages(
    pi_in_process: Start, tmp_path: Path, data_dir: Path
) -> None:
    h = await pi_in_process(pi=faux(tmp_path, text_reply("streamed only")))  # declares events
    sid = await h.run("hi")
    await h.call("pi/state", {"sessionId": sid})
    assert [m for m in h.client.messages if m.type == types.MessageType.Info] == []
    assert list(data_dir.rglob("*.md")) == []
