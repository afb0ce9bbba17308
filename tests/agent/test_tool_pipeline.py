"""docs/reference/pi.md#checklist items 36–44: the per-call pipeline and its exact error texts."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from pydantic import BaseModel

from pi_lsp.agent import (
    AfterToolCallResult,
    AgentTool,
    AgentToolResult,
    BeforeToolCallResult,
    run_agent_loop,
)
from pi_lsp.agent.validation import validate_tool_arguments
from pi_lsp.ai import AbortSignal, TextContent
from pi_lsp.ai.providers.faux import FauxProvider, FauxResponse
from pi_lsp.tools.common import ToolError
from pi_lsp.tools.workspace import OutsideWorkspaceError

from .helpers import Recorder, config, context, echo_tool, fn_tool, ok, user


async def _run_one(
    call: tuple[str, dict[str, Any]],
    *tools: AgentTool[Any],
    **cfg: Any,
) -> tuple[Recorder, Any]:
    rec = Recorder()
    faux = FauxProvider([FauxResponse.tool_calls(call), FauxResponse.text("done")])
    signal = cfg.pop("signal", None)
    await run_agent_loop([user("u")], context(*tools), config(**cfg), rec, signal, faux.stream)
    return rec, rec.of("turn_end")[0].tool_results[0]


async def test_item_36_unknown_tool_is_an_error_result_naming_it() -> None:
    rec, result = await _run_one(("read", {"path": "x"}), echo_tool())
    assert result.content[0].text == "Tool read not found"
    assert result.is_error is True
    assert result.details == {}
    end = rec.of("tool_execution_end")[0]
    assert end.is_error
    assert end.result.details == {}


async def test_item_37_validation_failure_lists_errors_and_the_arguments() -> None:
    args = {"text": ["not", "a", "string"], "n": "many"}
    _, result = await _run_one(("echo", args), echo_tool())
    text = result.content[0].text
    assert text.startswith('Validation failed for tool "echo":\n  - text: ')
    assert "\n  - n: " in text
    assert text.endswith("\n\nReceived arguments:\n" + json.dumps(args, indent=2))
    assert result.is_error
    assert result.details == {}


def test_item_37_validation_paths_and_root() -> None:
    class Inner(BaseModel):
        old_text: str

    class Params(BaseModel):
        edits: list[Inner]

    with pytest.raises(ValueError) as info:
        validate_tool_arguments("edit", Params, {"edits": [{"old_text": "a"}, {}]})
    assert "  - edits.1.old_text: Field required" in str(info.value)
    with pytest.raises(ValueError) as info2:
        validate_tool_arguments("edit", Params, ["not an object"])
    assert "\n  - root: " in str(info2.value)
    assert str(info2.value).endswith('Received arguments:\n[\n  "not an object"\n]')


async def test_item_38_arguments_are_coerced() -> None:
    tool = echo_tool()
    _, result = await _run_one(("echo", {"text": "ab", "n": "3"}), tool)
    assert tool.calls[0][1].n == 3
    assert result.content[0].text == "ababab"


async def test_item_39_prepare_arguments_runs_before_validation() -> None:
    class Legacy(BaseModel):
        edits: list[str]

    seen: list[Any] = []

    class LegacyTool(AgentTool[Legacy]):
        name = "legacy"
        label = "Legacy"
        description = "accepts the old shape"
        parameters = Legacy

        def prepare_arguments(self, args: Any) -> Any:
            if "old" in args:
                return {"edits": [args["old"]]}
            return args

        async def execute(
            self, tool_call_id: str, params: Legacy, signal: Any = None, on_update: Any = None
        ) -> AgentToolResult:
            seen.append(params)
            return ok(",".join(params.edits))

    before_args: list[Any] = []
    rec, result = await _run_one(
        ("legacy", {"old": "x"}),
        LegacyTool(),
        before_tool_call=lambda c, s: before_args.append((c.tool_call.arguments, c.args)),
    )
    assert result.content[0].text == "x"
    assert seen[0].edits == ["x"]
    # hooks and events see the original call
    assert before_args[0][0] == {"old": "x"}
    assert before_args[0][1].edits == ["x"]
    assert rec.of("tool_execution_start")[0].args == {"old": "x"}


async def test_item_40_before_tool_call_blocks() -> None:
    tool = echo_tool()
    _, result = await _run_one(
        ("echo", {"text": "a"}),
        tool,
        before_tool_call=lambda c, s: BeforeToolCallResult(block=True, reason="Denied by user"),
    )
    assert result.content[0].text == "Denied by user"
    assert result.is_error
    _, result2 = await _run_one(
        ("echo", {"text": "a"}),
        tool,
        before_tool_call=lambda c, s: BeforeToolCallResult(block=True),
    )
    assert result2.content[0].text == "Tool execution was blocked"
    assert tool.calls == []


async def test_item_41_abort_during_before_tool_call() -> None:
    signal = AbortSignal()

    async def before(ctx: Any, sig: AbortSignal | None) -> None:
        assert sig is signal
        signal.abort()

    tool = echo_tool()
    _, result = await _run_one(
        ("echo", {"text": "a"}), tool, before_tool_call=before, signal=signal
    )
    assert result.content[0].text == "Operation aborted"
    assert result.is_error
    assert tool.calls == []


async def test_item_42_execute_raising_becomes_an_error_result() -> None:
    async def boom(*_: Any) -> AgentToolResult:
        raise ValueError("x")

    rec, result = await _run_one(("boom", {}), fn_tool("boom", boom))
    assert result.content[0].text == "x"
    assert result.is_error
    assert result.details == {}
    assert rec.of("tool_execution_end")[0].is_error


async def test_a_bug_inside_a_tool_is_logged_with_name_call_id_and_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    secret = "file contents the model sent"

    async def buggy(*_: Any) -> AgentToolResult:
        return {}["missing"]  # type: ignore[no-any-return]  # our bug: a KeyError

    with caplog.at_level(logging.ERROR, logger="pi_lsp.agent.tool_execution"):
        _, result = await _run_one(("buggy", {"text": secret}), fn_tool("buggy", buggy))
    assert result.content[0].text == "'missing'"  # the model-facing text is unchanged
    assert result.is_error
    [record] = caplog.records
    message = record.getMessage()
    assert "KeyError" in message
    assert "'buggy'" in message
    assert result.tool_call_id in message
    assert record.exc_info is not None  # the traceback
    assert secret not in caplog.text  # never the arguments


async def test_a_bug_in_a_tool_hook_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    def before(*_: Any) -> BeforeToolCallResult:
        raise AttributeError("no such thing")

    with caplog.at_level(logging.ERROR, logger="pi_lsp.agent.tool_execution"):
        _, result = await _run_one(("echo", {"text": "a"}), echo_tool(), before_tool_call=before)
    assert result.content[0].text == "no such thing"
    [record] = caplog.records
    assert "AttributeError" in record.getMessage()
    assert record.exc_info is not None


@pytest.mark.parametrize(
    "error",
    [ToolError("No such file"), OutsideWorkspaceError("outside"), FileNotFoundError("gone")],
)
async def test_expected_tool_errors_are_not_logged(
    error: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    async def failing(*_: Any) -> AgentToolResult:
        raise error

    with caplog.at_level(logging.DEBUG, logger="pi_lsp.agent.tool_execution"):
        _, result = await _run_one(("fails", {}), fn_tool("fails", failing))
    assert result.content[0].text == str(error)
    assert result.is_error
    assert caplog.records == []


async def test_invalid_arguments_are_not_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="pi_lsp.agent.tool_execution"):
        _, result = await _run_one(("echo", {"text": ["not a string"]}), echo_tool())
    assert result.is_error
    assert caplog.records == []


async def test_item_43_after_tool_call_overrides_field_by_field() -> None:
    class NoParams(BaseModel):
        pass

    class Detailed(AgentTool[NoParams]):
        name = "d"
        label = "D"
        description = "d"
        parameters = NoParams

        async def execute(self, *_: Any, **__: Any) -> AgentToolResult:
            return AgentToolResult([TextContent(text="orig")], {"k": 1}, terminate=True)

    rec, result = await _run_one(
        ("d", {}),
        Detailed(),
        after_tool_call=lambda c, s: AfterToolCallResult(content=[TextContent(text="new")]),
    )
    assert result.content[0].text == "new"
    assert result.details == {"k": 1}
    assert result.is_error is False
    assert rec.of("tool_execution_end")[0].result.terminate is True
    assert rec.types.count("turn_start") == 1  # terminate kept: the chain stopped

    seen: list[Any] = []

    def after(ctx: Any, sig: Any) -> AfterToolCallResult:
        seen.append((ctx.result.content[0].text, ctx.is_error, ctx.args))
        return AfterToolCallResult(is_error=True, details={"x": 2})

    _, result2 = await _run_one(("d", {}), Detailed(), after_tool_call=after)
    assert result2.is_error
    assert result2.details == {"x": 2}
    assert result2.content[0].text == "orig"
    assert seen[0][:2] == ("orig", False)

    def raising(ctx: Any, sig: Any) -> None:
        raise RuntimeError("after hook failed")

    _, result3 = await _run_one(("d", {}), Detailed(), after_tool_call=raising)
    assert result3.content[0].text == "after hook failed"
    assert result3.is_error
    assert result3.details == {}


async def test_item_44_result_message_has_pi_fields_and_no_terminate() -> None:
    _, result = await _run_one(("echo", {"text": "a", "n": 2}), echo_tool(terminate=True))
    wire = result.to_wire()
    assert set(wire) == {
        "role",
        "toolCallId",
        "toolName",
        "content",
        "details",
        "isError",
        "timestamp",
    }
    assert wire["toolName"] == "echo"
    assert wire["details"] == {"n": 2}
    assert wire["isError"] is False
    assert isinstance(wire["timestamp"], int)
    assert "terminate" not in result.model_dump()
