"""The y/N question before bash commands (``BashPermission``), in process."""

from __future__ import annotations

import io
import os
from typing import Any

import pytest

from pi_lsp.agent import AgentContext
from pi_lsp.agent.types import BeforeToolCallContext
from pi_lsp.ai import AbortSignal, AssistantMessage, ToolCall
from pi_lsp.cli.output import BashPermission, describe_call


def ctx(name: str = "bash", command: str = "rm -rf build") -> BeforeToolCallContext:
    call = ToolCall(id="c1", name=name, arguments={"command": command})
    return BeforeToolCallContext(
        assistant_message=AssistantMessage(content=[call]),
        tool_call=call,
        args=None,
        context=AgentContext(system_prompt="", messages=[]),
    )


async def test_non_interactive_denies_with_a_clear_line() -> None:
    err = io.StringIO()
    permission = BashPermission(allow_all=False, interactive=False, err=err)
    result = await permission(ctx(), None)
    assert result is not None
    assert result.block
    assert "non-interactive" in (result.reason or "")
    assert "denied `rm -rf build`: stdin is not a terminal (pass --yes" in err.getvalue()
    assert await permission(ctx("read"), None) is None  # only bash asks


async def test_yes_allows_everything() -> None:
    permission = BashPermission(allow_all=True, interactive=False, err=io.StringIO())
    assert await permission(ctx(), None) is None


@pytest.mark.parametrize(
    ("typed", "allowed", "always"),
    [("y\n", True, False), ("\n", False, False), ("no\n", False, False), ("a\n", True, True)],
)
async def test_typed_answer_allows_denies_or_allows_always(
    monkeypatch: pytest.MonkeyPatch, typed: str, allowed: bool, always: bool
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    err = io.StringIO()
    permission = BashPermission(allow_all=False, interactive=True, err=err)
    result = await permission(ctx(), AbortSignal())
    assert (result is None) == allowed
    assert "Run `rm -rf build`? [y/N/a=always]" in err.getvalue()
    if always:
        assert await permission(ctx(command="make"), None) is None  # not asked again


async def test_abort_while_asking_counts_as_no(monkeypatch: pytest.MonkeyPatch) -> None:
    read_end, write_end = os.pipe()
    stdin = os.fdopen(read_end, "r")
    monkeypatch.setattr("sys.stdin", stdin)
    signal = AbortSignal()
    permission = BashPermission(allow_all=False, interactive=True, err=io.StringIO())

    async def abort_soon() -> Any:
        signal.abort()

    import asyncio

    question = asyncio.ensure_future(permission(ctx(), signal))
    await asyncio.sleep(0)
    await abort_soon()
    result = await question
    assert result is not None
    assert result.block
    os.close(write_end)  # lets the reader thread finish


def test_describe_call() -> None:
    assert describe_call("bash", {"command": "ls  -la\nfoo"}) == "bash $ ls -la foo"
    assert describe_call("read", {"path": "a.py", "offset": 3}) == "read a.py (offset 3, limit -)"
    assert describe_call("grep", {"pattern": "x", "path": "src"}) == 'grep "x" in src'
    assert describe_call("custom", {"k": 1}) == 'custom {"k": 1}'


async def test_a_long_or_disguised_command_is_shown_safely_and_never_always(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("a\n"))
    err = io.StringIO()
    permission = BashPermission(allow_all=False, interactive=True, err=err)
    command = "echo ok\x1b[2K\r" + " " * 5000 + "x" * 3000 + "; rm -rf ~"
    result = await permission(ctx(command=command), AbortSignal())
    shown = err.getvalue()
    assert result is not None  # "a" is not an answer for a command that was cut
    assert result.block
    assert "characters hidden]" in shown
    assert "; rm -rf ~`? [y/N] " in shown
    assert "\x1b" not in shown
    assert not permission.allow_all


async def test_a_childs_question_is_asked_on_the_terminal_named_and_its_always_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ``task`` child's command is asked on the same terminal, one question at a time,
    with the child's agent named; an "always" there holds for the parent too."""
    monkeypatch.setattr("sys.stdin", io.StringIO("a\n"))
    err = io.StringIO()
    permission = BashPermission(allow_all=False, interactive=True, err=err)
    child = permission.for_child("scout", "child-1")
    assert await child(ctx(), AbortSignal()) is None
    assert "[scout] Run `rm -rf build`? [y/N/a=always]" in err.getvalue()
    assert await permission(ctx(command="make"), None) is None  # the tree's answer
    assert err.getvalue().count("Run `") == 1


class TtyErr(io.StringIO):
    def isatty(self) -> bool:
        return True


async def test_a_waiting_question_sets_the_title_and_rings_the_bell(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 42: ``pi-lsp run``'s terminal status while a question waits."""
    from pi_lsp.cli.terminal_status import TerminalStatus

    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    err = TtyErr()
    status = TerminalStatus(err)
    status.start()
    permission = BashPermission(allow_all=False, interactive=True, err=err, status=status)
    assert await permission(ctx(), AbortSignal()) is None
    status.done()
    status.restore()
    out = err.getvalue()
    assert out.startswith("\x1b[22;0t\x1b]0;pi-lsp: running\x07")
    waiting = out.index("\x1b]0;pi-lsp: a question waits for you\x07\x07")
    assert out.index("Run `rm -rf build`?") < waiting
    assert out.index("\x1b]0;pi-lsp: running\x07", waiting) > waiting  # back after the answer
    assert out.endswith("\x1b]0;pi-lsp: done\x07\x1b[23;0t")


def test_terminal_status_is_off_by_flag_or_without_a_terminal() -> None:
    from pi_lsp.cli.terminal_status import TerminalStatus

    for status in (TerminalStatus(TtyErr(), enabled=False), TerminalStatus(io.StringIO())):
        status.start()
        status.waiting()
        status.restore()
        assert status.out.getvalue() == ""  # type: ignore[attr-defined]
