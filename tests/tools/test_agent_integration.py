"""End to end: the real ``Agent`` loop with the faux provider and the coding tools on disk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_lsp.agent.agent import Agent
from pi_lsp.ai import Context, StreamOptions, ToolResultMessage
from pi_lsp.ai.providers.faux import FAUX_MODEL, FauxProvider, FauxResponse
from pi_lsp.tools import DiskWorkspace, build_system_prompt, create_coding_tools


def _results(agent: Agent) -> list[ToolResultMessage]:
    return [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]


def _text(message: ToolResultMessage) -> str:
    return "".join(getattr(block, "text", "") for block in message.content)


async def test_read_edit_bash_end_to_end(root: Path) -> None:
    (root / "app.py").write_text("def add(a, b):\n    return a - b\n\nprint(add(2, 3))\n")
    ws = DiskWorkspace([root])
    tools = create_coding_tools(ws)
    seen_by_model: list[str] = []

    def after_read(context: Context, options: StreamOptions) -> FauxResponse:
        last = context.messages[-1]
        assert isinstance(last, ToolResultMessage)
        seen_by_model.append(_text(last))
        return FauxResponse.tool_calls(
            (
                "edit",
                {
                    "path": "app.py",
                    "edits": [{"oldText": "return a - b", "newText": "return a + b"}],
                },
            ),
            text="Found it: subtraction instead of addition.",
        )

    faux = FauxProvider(
        [
            FauxResponse.tool_calls(("read", {"path": "app.py"})),
            after_read,
            FauxResponse.tool_calls(("bash", {"command": "python3 app.py"})),
            FauxResponse.text("Fixed: add() now returns 5 for add(2, 3)."),
        ]
    )
    agent = Agent(
        system_prompt=build_system_prompt(ws, tools),
        model=FAUX_MODEL,
        tools=tools,
        stream_fn=faux.stream,
    )
    updates: list[str] = []

    def listen(event: Any, signal: Any) -> None:
        if event.type == "tool_execution_update" and event.tool_name == "bash":
            updates.append("".join(getattr(b, "text", "") for b in event.partial_result.content))

    agent.subscribe(listen)
    await agent.prompt("The add function is wrong. Fix it and run the script.")
    await agent.wait_for_idle()
    assert updates[0] == ""  # bash announces itself at once, then streams the output
    assert updates[-1] == "5\n"

    results = _results(agent)
    assert [r.tool_name for r in results] == ["read", "edit", "bash"]
    assert [r.is_error for r in results] == [False, False, False]
    assert seen_by_model == ["def add(a, b):\n    return a - b\n\nprint(add(2, 3))\n"]
    assert _text(results[1]) == "Successfully replaced 1 block(s) in app.py."
    assert results[1].details["firstChangedLine"] == 2
    assert _text(results[2]) == "5\n"
    assert (root / "app.py").read_text().startswith("def add(a, b):\n    return a + b\n")
    assert faux.calls[0].system_prompt is not None
    assert "Current working directory:" in faux.calls[0].system_prompt
    assert [t.name for t in faux.calls[0].tools or []] == [
        "read",
        "bash",
        "edit",
        "write",
        "grep",
        "find",
        "ls",
        "bash_output",
        "bash_kill",
    ]


async def test_parallel_batch_of_edits_to_one_file(root: Path) -> None:
    (root / "v.txt").write_text("version = 1\n")
    ws = DiskWorkspace([root])
    calls: list[tuple[str, dict[str, Any]]] = [
        ("edit", {"path": "v.txt", "oldText": "version = 1", "newText": "version = 2"}),
        (
            "edit",
            {"path": "v.txt", "edits": [{"oldText": "version = 2", "newText": "version = 3"}]},
        ),
        ("read", {"path": "v.txt"}),
    ]
    faux = FauxProvider([FauxResponse.tool_calls(*calls), FauxResponse.text("ok")])
    agent = Agent(model=FAUX_MODEL, tools=create_coding_tools(ws), stream_fn=faux.stream)
    await agent.prompt("bump twice")
    await agent.wait_for_idle()
    results = _results(agent)
    assert [r.is_error for r in results] == [False, False, False]
    assert (root / "v.txt").read_text() == "version = 3\n"


async def test_errors_reach_the_model_as_error_results(root: Path) -> None:
    ws = DiskWorkspace([root])
    faux = FauxProvider(
        [
            FauxResponse.tool_calls(
                ("read", {"path": "../../etc/passwd"}),
                ("bash", {"command": "exit 2"}),
                ("edit", {"path": "missing.py", "oldText": "a", "newText": "b"}),
            ),
            FauxResponse.text("I could not do that."),
        ]
    )
    agent = Agent(model=FAUX_MODEL, tools=create_coding_tools(ws), stream_fn=faux.stream)
    await agent.prompt("try things")
    await agent.wait_for_idle()
    results = _results(agent)
    assert [r.is_error for r in results] == [True, True, True]
    assert "is outside the workspace" in _text(results[0])
    assert _text(results[1]) == "(no output)\n\nCommand exited with code 2"
    assert _text(results[2]) == "Could not edit file: missing.py. Error code: ENOENT."
