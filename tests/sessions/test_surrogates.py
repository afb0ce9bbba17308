"""One odd character or one bad line never costs a session its history (issue 10 item 1)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic_core import from_json

from pi_lsp.sessions import SessionFile

from .helpers import assistant, user

LONE = "half an emoji \ud83d and a Latin-1 byte \udce9"


def _session(tmp_path: Path) -> SessionFile:
    session = SessionFile.new(tmp_path, tmp_path)
    session.append_message(user("one"))
    session.append_message(assistant("two"))
    session.append_message(user(LONE))
    session.append_message(assistant(LONE))
    session.append_message(user("five"))
    session.append_message(assistant("six"))
    return session


def test_lone_surrogates_are_persisted_as_valid_json_and_nothing_is_lost(
    tmp_path: Path,
) -> None:
    session = _session(tmp_path)
    for line in session.path.read_text(encoding="utf-8").splitlines():
        from_json(line)  # strict: lone surrogate escapes are rejected here
    loaded = SessionFile.load(session.path)
    messages = loaded.build_context().messages
    assert len(messages) == 6
    assert loaded.load_warnings == []
    third = messages[2].content[0].text  # type: ignore[union-attr]
    assert third == "half an emoji \ufffd and a Latin-1 byte \ufffd"


def test_a_split_pair_that_is_whole_again_is_joined(tmp_path: Path) -> None:
    session = SessionFile.new(tmp_path, tmp_path)
    session.append_message(user("smile \ud83d\ude00"))
    loaded = SessionFile.load(session.path)
    assert loaded.build_context().messages[0].content[0].text == "smile 😀"  # type: ignore[union-attr]


def test_lines_written_with_lone_surrogates_by_older_versions_still_load(
    tmp_path: Path,
) -> None:
    session = _session(tmp_path)
    lines = session.path.read_text(encoding="utf-8").splitlines()
    # what older versions wrote: the raw escape of a lone surrogate
    lines[3] = lines[3].replace("\\ufffd", "\\udce9", 1)
    assert "\\udce9" in lines[3]
    session.path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    loaded = SessionFile.load(session.path)
    assert len(loaded.build_context().messages) == 6


def test_one_unreadable_line_does_not_cut_off_the_branch(tmp_path: Path) -> None:
    session = _session(tmp_path)
    lines = session.path.read_text(encoding="utf-8").splitlines()
    data = json.loads(lines[3])
    data["message"] = {"role": "nonsense"}  # valid JSON, invalid entry: its id is known
    lines[3] = json.dumps(data)
    lines[5] = "{this is not json"  # nothing known about it
    session.path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    loaded = SessionFile.load(session.path)
    texts = [m.content[0].text for m in loaded.build_context().messages]  # type: ignore[union-attr]
    assert texts == [
        "one",
        "two",
        "\ufffd".join(LONE.split("\ud83d")).replace("\udce9", "\ufffd"),
        "six",
    ]
    assert len(loaded.load_warnings) == 4  # two skipped lines, two re-attached entries
