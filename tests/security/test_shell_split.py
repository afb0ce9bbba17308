"""The command splitter: conservative by construction, and checked against real bash."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_lsp.security.rules import command_allowed
from pi_lsp.security.shell_split import Redirect, split_command


def words(command: str) -> list[tuple[str, ...]] | None:
    parts = split_command(command)
    return None if parts is None else [p.words for p in parts]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("pytest -k foo", [("pytest", "-k", "foo")]),
        ("pytest; rm -rf ~", [("pytest",), ("rm", "-rf", "~")]),
        ("a && b || c | d |& e & f", [("a",), ("b",), ("c",), ("d",), ("e",), ("f",)]),
        ("a\nb", [("a",), ("b",)]),
        ("echo 'a;b' \"c&&d\" e\\;f", [("echo", "a;b", "c&&d", "e;f")]),
        ('git commit -m "it\'s done"', [("git", "commit", "-m", "it's done")]),
        ("make \\\n  all", [("make", "all")]),
        ("ls 2>&1 >/dev/null", [("ls",)]),
        ("cmd>out", [("cmd",)]),
    ],
)
def test_splits(command: str, expected: list[tuple[str, ...]]) -> None:
    assert words(command) == expected


@pytest.mark.parametrize(
    "command",
    [
        "echo $(rm -rf ~)",
        "echo `rm -rf ~`",
        'echo "$(rm -rf ~)"',
        'echo "`rm`"',
        "(rm -rf ~)",
        "f() { rm -rf ~; }; f",
        "diff <(ls) <(ls -a)",
        "tee >(sh)",
        "cat <<EOF\nrm -rf ~\nEOF",
        "cat <<< hi",
        "echo $'\\x3b rm'",
        "case x in x) rm;; esac",
        "pytest # ; rm",
        "echo 'unterminated",
        'echo "unterminated',
        "echo trailing\\",
        "X=$(rm) pytest",
        "> out",
        "",
        "   ",
        "echo $((1+2))",
    ],
)
def test_unparseable_is_none(command: str) -> None:
    assert split_command(command) is None


def test_assignments_and_redirects_are_kept_apart() -> None:
    (part,) = split_command("FOO=1 BAR+=x pytest -q 2>&1 > log.txt < /dev/null") or []
    assert part.words == ("pytest", "-q")
    assert part.assignments == ("FOO=1", "BAR+=x")
    assert part.redirects == (
        Redirect(">&", "1"),
        Redirect(">", "log.txt"),
        Redirect("<", "/dev/null"),
    )
    assert not part.plain  # a write to a file
    (quiet,) = split_command("pytest 2>/dev/null >&2") or []
    assert quiet.plain


@given(st.text(max_size=200))
def test_never_raises(command: str) -> None:
    split_command(command)


# ------------------------------------------------------------- soundness against real bash

TOKENS = [
    "a",
    "b",
    "x",
    " ",
    " ",
    ";",
    "&",
    "|",
    '"',
    "'",
    "\\",
    "$",
    "(",
    ")",
    "`",
    "\n",
    "#",
    ">",
    "<",
    "=",
    "{",
    "}",
    "!",
    "*",
    "a ",
    "b ",
    "a=",
]


SEGMENTS = [
    "a",
    "a x",
    "a 'x;b'",
    'a "x|b"',
    "a \\;b",
    "a 2>&1",
    "a >/dev/null",
    "a -b",
    "b",
    "a $(b)",
    "a `b`",
    "a#b",
    "a \\\nb",
    "cd .",
    "echo b",
    "a=b a",
    "a {b,c}",
    "a !",
    "'a' x",
    'a "$b"',
    "a \\\n; b",
    "a ${x:-b}",
]
SEPARATORS = [";", "&&", "||", "|", "&", "\n", " ", "|&", ";;", " # "]


@st.composite
def shaped_commands(draw: st.DrawFn) -> str:
    """Commands built like real ones, with one random token slipped in somewhere."""
    parts = draw(st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=4))
    seps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(parts), max_size=len(parts)))
    text = "".join(p + s for p, s in zip(parts, seps, strict=True))
    if draw(st.booleans()):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at:]
    return text


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    bin_dir = tmp_path_factory.mktemp("bin")
    for name in ("a", "b"):
        tool = bin_dir / name
        tool.write_text(f'#!/bin/sh\necho {name} >> "$RUN_LOG"\n')
        tool.chmod(0o755)
    return bin_dir


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.one_of(
        shaped_commands(),
        st.lists(st.sampled_from(TOKENS), min_size=1, max_size=14).map("".join),
    )
)
def test_allowed_means_bash_runs_only_the_allowed_program(
    programs: Path, tmp_path: Path, command: str
) -> None:
    """Whenever "always allow a" would allow a command, bash running it starts no ``b``."""
    if not command_allowed(command, ["a"]):
        return
    log = tmp_path / f"log-{abs(hash(command))}"
    work = tmp_path / f"cwd-{abs(hash(command))}"
    work.mkdir(exist_ok=True)
    env = {"PATH": str(programs), "RUN_LOG": str(log)}
    subprocess.run(
        ["/bin/bash", "-c", command],
        cwd=work,
        env=env,
        capture_output=True,
        timeout=10,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    ran = log.read_text().split() if log.exists() else []
    assert set(ran) <= {"a"}, (command, ran)
    assert os.listdir(work) == []  # no redirection wrote a file
