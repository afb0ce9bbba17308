"""The tool-call pipeline and its scheduling (pi 0.80.2 ``executeToolCalls``).

Per call: ``prepare_arguments`` -> validation (coercing) -> ``before_tool_call`` -> ``execute``
-> ``after_tool_call``. Unknown tools, invalid arguments, blocks, aborts and exceptions become
error tool results (``details: {}``); an exception that is neither a ``ToolFailure`` nor an
``OSError`` (our bug, not the model's or the disk's) is logged too, with the tool's name, the
call id and a traceback. Batches run in parallel (all preparation first, in call order;
execution concurrently; ``tool_execution_end`` in completion order; result messages in call
order) unless the config or any called tool asks for sequential.
Must not import pygls/lsprotocol or anything above agent/.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from ..ai import AbortSignal, AssistantMessage, TextContent, ToolCall, ToolResultMessage, now_ms
from ._hooks import Emit, resolve
from .types import (
    AfterToolCallContext,
    AgentContext,
    AgentLoopConfig,
    AgentTool,
    AgentToolResult,
    BeforeToolCallContext,
    MessageEndEvent,
    MessageStartEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    ToolFailure,
)
from .validation import validate_tool_arguments

log = logging.getLogger(__name__)

ABORTED_TEXT = "Operation aborted"
BLOCKED_TEXT = "Tool execution was blocked"


@dataclass(slots=True)
class ToolBatch:
    """The outcome of one assistant message's tool calls."""

    messages: list[ToolResultMessage]
    terminate: bool


@dataclass(slots=True)
class _Prepared:
    tool_call: ToolCall
    tool: AgentTool[Any]
    args: Any


@dataclass(slots=True)
class _Finalized:
    tool_call: ToolCall
    result: AgentToolResult
    is_error: bool


def error_result(message: str) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text=message)], details={})


def _message_of(exc: BaseException) -> str:
    return str(exc)


def _failure_text(exc: Exception, call: ToolCall, stage: str) -> str:
    """The model-facing text of a failed call (unchanged: ``str(exc)``). Call inside the
    ``except`` block: an unexpected exception is logged with its traceback. Only the tool's
    name, the call id and the exception are logged — never the arguments (file contents)."""
    if not isinstance(exc, ToolFailure | OSError):
        log.exception(
            "unexpected %s in tool %r (call %s, %s)", type(exc).__name__, call.name, call.id, stage
        )
    return _message_of(exc)


def _find_tool(context: AgentContext, name: str) -> AgentTool[Any] | None:
    for tool in context.tools:
        if tool.name == name:
            return tool
    return None


async def execute_tool_calls(
    context: AgentContext,
    assistant: AssistantMessage,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
) -> ToolBatch:
    """Run the tool calls of ``assistant`` (taken from its content) and emit their events."""
    calls = [block for block in assistant.content if isinstance(block, ToolCall)]
    sequential = config.tool_execution == "sequential" or any(
        (tool := _find_tool(context, call.name)) is not None and tool.execution_mode == "sequential"
        for call in calls
    )
    runner = _run_sequential if sequential else _run_parallel
    return await runner(context, assistant, calls, config, signal, emit)


def _terminates(finalized: list[_Finalized]) -> bool:
    return bool(finalized) and all(f.result.terminate is True for f in finalized)


async def _run_sequential(
    context: AgentContext,
    assistant: AssistantMessage,
    calls: list[ToolCall],
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
) -> ToolBatch:
    finalized_calls: list[_Finalized] = []
    messages: list[ToolResultMessage] = []
    for call in calls:
        await emit(ToolExecutionStartEvent(call.id, call.name, call.arguments))
        prepared = await _prepare(context, assistant, call, config, signal)
        if isinstance(prepared, _Finalized):
            finalized = prepared
        else:
            finalized = await _execute_and_finalize(
                context, assistant, prepared, config, signal, emit
            )
        await _emit_end(finalized, emit)
        message = _result_message(finalized)
        await emit_message(message, emit)
        finalized_calls.append(finalized)
        messages.append(message)
        if signal is not None and signal.aborted:
            break
    return ToolBatch(messages, _terminates(finalized_calls))


async def _run_parallel(
    context: AgentContext,
    assistant: AssistantMessage,
    calls: list[ToolCall],
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
) -> ToolBatch:
    # Phase 1: prepare every call in source order; immediate outcomes end right away.
    entries: list[_Finalized | _Prepared] = []
    for call in calls:
        await emit(ToolExecutionStartEvent(call.id, call.name, call.arguments))
        prepared = await _prepare(context, assistant, call, config, signal)
        if isinstance(prepared, _Finalized):
            await _emit_end(prepared, emit)
        entries.append(prepared)
        if signal is not None and signal.aborted:
            break

    # Phase 2: run the prepared calls concurrently; each emits its own end on completion.
    finalized: list[_Finalized | None] = [e if isinstance(e, _Finalized) else None for e in entries]
    runnable = [(i, e) for i, e in enumerate(entries) if isinstance(e, _Prepared)]

    async def run(index: int, prepared: _Prepared) -> None:
        outcome = await _execute_and_finalize(context, assistant, prepared, config, signal, emit)
        await _emit_end(outcome, emit)
        finalized[index] = outcome

    if len(runnable) == 1:  # nothing to overlap: skip the task group
        await run(*runnable[0])
    elif runnable:
        # asyncio.TaskGroup rather than anyio's: the same structured concurrency at ~1/3 of
        # the per-batch cost, and no lazy backend import (~130 ms) on the first batch.
        try:
            async with asyncio.TaskGroup() as group:
                for index, prepared in runnable:
                    group.create_task(run(index, prepared))
        except BaseExceptionGroup as group_error:  # a sink raised: surface the first error
            first = group_error.exceptions[0]
            if isinstance(first, Exception) and len(group_error.exceptions) == 1:
                raise first from None
            raise

    # Phase 3: result messages in source order.
    ordered = [f for f in finalized if f is not None]
    messages = []
    for outcome in ordered:
        message = _result_message(outcome)
        await emit_message(message, emit)
        messages.append(message)
    return ToolBatch(messages, _terminates(ordered))


async def _prepare(
    context: AgentContext,
    assistant: AssistantMessage,
    call: ToolCall,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
) -> _Prepared | _Finalized:
    tool = _find_tool(context, call.name)
    if tool is None:
        explain = config.missing_tool_text
        text = None if explain is None else explain(call.name)
        return _Finalized(call, error_result(text or f"Tool {call.name} not found"), True)
    try:
        raw = tool.prepare_arguments(call.arguments)
        args = validate_tool_arguments(call.name, tool.parameters, raw)
        if config.before_tool_call is not None:
            before = await resolve(
                config.before_tool_call(
                    BeforeToolCallContext(assistant, call, args, context), signal
                )
            )
            if signal is not None and signal.aborted:
                return _Finalized(call, error_result(ABORTED_TEXT), True)
            if before is not None and before.block:
                return _Finalized(call, error_result(before.reason or BLOCKED_TEXT), True)
        if signal is not None and signal.aborted:
            return _Finalized(call, error_result(ABORTED_TEXT), True)
        return _Prepared(call, tool, args)
    except Exception as exc:
        return _Finalized(call, error_result(_failure_text(exc, call, "preparing")), True)


async def _execute_and_finalize(
    context: AgentContext,
    assistant: AssistantMessage,
    prepared: _Prepared,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
) -> _Finalized:
    result, is_error = await _execute(prepared, signal, emit)
    if config.after_tool_call is not None:
        try:
            after = await resolve(
                config.after_tool_call(
                    AfterToolCallContext(
                        assistant, prepared.tool_call, prepared.args, result, is_error, context
                    ),
                    signal,
                )
            )
            if after is not None:
                result = AgentToolResult(
                    content=after.content if after.content is not None else result.content,
                    details=after.details if after.details is not None else result.details,
                    terminate=after.terminate if after.terminate is not None else result.terminate,
                )
                if after.is_error is not None:
                    is_error = after.is_error
        except Exception as exc:
            text = _failure_text(exc, prepared.tool_call, "after_tool_call")
            result, is_error = error_result(text), True
    return _Finalized(prepared.tool_call, result, is_error)


async def _execute(
    prepared: _Prepared, signal: AbortSignal | None, emit: Emit
) -> tuple[AgentToolResult, bool]:
    call = prepared.tool_call
    updates: list[asyncio.Future[None]] = []
    accepting = True

    def on_update(partial: AgentToolResult) -> Awaitable[None]:
        loop = asyncio.get_running_loop()
        if not accepting:
            done: asyncio.Future[None] = loop.create_future()
            done.set_result(None)
            return done
        event = ToolExecutionUpdateEvent(call.id, call.name, call.arguments, partial)
        previous = updates[-1] if updates else None
        task = loop.create_task(_emit_after(previous, emit, event))
        updates.append(task)
        return task

    try:
        result = await prepared.tool.execute(call.id, prepared.args, signal, on_update)
        outcome: tuple[AgentToolResult, bool] = (result, False)
    except Exception as exc:
        outcome = (error_result(_failure_text(exc, call, "executing")), True)
    finally:
        accepting = False
    if updates:
        await asyncio.gather(*updates)
    return outcome


async def _emit_after(previous: Awaitable[None] | None, emit: Emit, event: Any) -> None:
    """Emit ``event`` once the previous update of the same call was delivered (keeps order)."""
    if previous is not None:
        await previous
    await emit(event)


async def _emit_end(finalized: _Finalized, emit: Emit) -> None:
    call = finalized.tool_call
    await emit(ToolExecutionEndEvent(call.id, call.name, finalized.result, finalized.is_error))


def _result_message(finalized: _Finalized) -> ToolResultMessage:
    call = finalized.tool_call
    return ToolResultMessage(
        tool_call_id=call.id,
        tool_name=call.name,
        content=finalized.result.content,
        details=finalized.result.details,
        is_error=finalized.is_error,
        timestamp=now_ms(),
    )


async def emit_message(message: Any, emit: Emit) -> None:
    await emit(MessageStartEvent(message))
    await emit(MessageEndEvent(message))
