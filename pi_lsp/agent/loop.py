"""The agent loop: a port of Pi v0.80.2 ``agent-loop.ts`` (``runAgentLoop`` and friends).

One run = ``agent_start`` ... ``agent_end``; one turn = one model call plus the tools it asked
for. Three signals drive it (docs/reference/pi.md#continue-signals): ``stop_reason`` error/aborted
is a hard stop; tool calls in the *content* whose batch did not all ``terminate`` continue the tool
chain; steering and follow-up polls add turns. Must not import pygls/lsprotocol or anything above
agent/.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from inspect import isawaitable
from types import CoroutineType
from typing import Any, cast

from ..ai import (
    AbortSignal,
    AssistantMessage,
    AssistantMessageEventStream,
    Context,
    Message,
    Tool,
    ToolCall,
    ToolResultMessage,
)
from ..ai import stream as default_stream
from ..ai.event_stream import Handover
from ._copy import COPY_PARTS as _COPY_PARTS
from ._copy import deep_copy, replace_dataclass, shallow_copy
from ._hooks import Emit, Emitter, resolve
from .messages import AgentMessage
from .tool_execution import emit_message, execute_tool_calls
from .types import (
    AgentContext,
    AgentEndEvent,
    AgentEventSink,
    AgentLoopConfig,
    AgentStartEvent,
    MessageEndEvent,
    MessagePoll,
    MessageStartEvent,
    MessageUpdateEvent,
    StreamFn,
    TurnContext,
    TurnEndEvent,
    TurnStartEvent,
    tool_definitions,
)

_CONTENT_EVENTS = frozenset((
    "text_start", "text_delta", "text_end",
    "thinking_start", "thinking_delta", "thinking_end",
    "toolcall_start", "toolcall_delta", "toolcall_end",
))  # fmt: skip


def _llm_context(
    system_prompt: str | None, messages: list[Message], tools: list[Tool] | None
) -> Context:
    """``Context.model_construct(system_prompt=..., messages=..., tools=...)`` (no validation:
    the history is not re-validated per turn), built directly: pydantic's ``model_construct``
    walks the fields in Python and costs ≈ 3x as much. tests/agent/test_copy.py checks it
    against ``model_construct``."""
    new, set_dict, set_fields, set_extra, set_private = _COPY_PARTS
    llm_context: Any = new(Context)
    set_dict(llm_context, {"system_prompt": system_prompt, "messages": messages, "tools": tools})
    set_fields(llm_context, {"system_prompt", "messages", "tools"})
    set_extra(llm_context, {})  # extra="allow": no extra fields given
    set_private(llm_context, None)
    return cast(Context, llm_context)


def check_can_continue(context: AgentContext) -> None:
    """Raise pi's ``ValueError`` when a continue run has nothing to continue from."""
    if not context.messages:
        raise ValueError("Cannot continue: no messages in context")
    if context.messages[-1].role == "assistant":
        raise ValueError("Cannot continue from message role: assistant")


async def run_agent_loop(
    prompts: Sequence[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    emit: AgentEventSink,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> list[AgentMessage]:
    """Run the loop for new ``prompts``; returns the new messages (prompts + everything added).

    The caller's ``context.messages`` list is never mutated (the loop works on a copy); the
    message objects themselves are shared. Every ``emit`` is awaited when it returns an
    awaitable, so a slow sink slows the loop (backpressure).
    """
    new_messages: list[AgentMessage] = list(prompts)
    current = replace(context, messages=[*context.messages, *prompts])
    send = Emitter(emit)
    await send(AgentStartEvent())
    await send(TurnStartEvent())
    for prompt in prompts:
        await emit_message(prompt, send)
    await _run_loop(current, new_messages, config, signal, send, stream_fn)
    return new_messages


async def run_agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    emit: AgentEventSink,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> list[AgentMessage]:
    """Continue from ``context`` without a new prompt (retries, after tool results).

    Raises ``ValueError`` before any event when the context is empty or ends with an assistant
    message. The returned list excludes the messages that already existed. The context's
    message list is shared with the caller (pi's ``{...context}``) and grows in place.
    """
    check_can_continue(context)
    new_messages: list[AgentMessage] = []
    current = replace(context)
    send = Emitter(emit)
    await send(AgentStartEvent())
    await send(TurnStartEvent())
    await _run_loop(current, new_messages, config, signal, send, stream_fn)
    return new_messages


async def _poll(poll: MessagePoll | None) -> list[AgentMessage]:
    if poll is None:
        return []
    return list(await resolve(poll()) or ())


async def _run_loop(
    context: AgentContext,
    new_messages: list[AgentMessage],
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
    stream_fn: StreamFn | None,
) -> None:
    first_turn = True
    pending = await _poll(config.get_steering_messages)  # before the first model call
    while True:
        has_more_tool_calls = True
        while has_more_tool_calls or pending:
            if first_turn:
                first_turn = False  # the entry point already emitted this turn's turn_start
            else:
                await emit(TurnStartEvent())
            if pending:
                for message in pending:
                    await emit_message(message, emit)
                    context.messages.append(message)
                    new_messages.append(message)
                pending = []
            for note in await _poll(config.get_call_notes):
                await emit_message(note, emit)
                context.messages.append(note)
                new_messages.append(note)

            message = await stream_assistant_response(context, config, signal, emit, stream_fn)
            new_messages.append(message)
            if message.stop_reason == "error" or message.stop_reason == "aborted":
                await emit(TurnEndEvent(message, []))
                await emit(AgentEndEvent(new_messages))
                return

            tool_results: list[ToolResultMessage] = []
            has_more_tool_calls = False
            if any(isinstance(block, ToolCall) for block in message.content):
                batch = await execute_tool_calls(context, message, config, signal, emit)
                tool_results = batch.messages
                has_more_tool_calls = not batch.terminate
                context.messages.extend(tool_results)
                new_messages.extend(tool_results)
            await emit(TurnEndEvent(message, tool_results))

            if config.prepare_next_turn is not None:
                update = await resolve(
                    config.prepare_next_turn(
                        TurnContext(message, tool_results, context, new_messages)
                    )
                )
                if update is not None:
                    if update.context is not None:
                        context = update.context
                    level = update.thinking_level
                    config = replace(
                        config,
                        model=update.model if update.model is not None else config.model,
                        reasoning=config.reasoning
                        if level is None
                        else (None if level == "off" else level),
                    )
            if config.should_stop_after_turn is not None and await resolve(
                config.should_stop_after_turn(
                    TurnContext(message, tool_results, context, new_messages)
                )
            ):
                await emit(AgentEndEvent(new_messages))
                return
            pending = await _poll(config.get_steering_messages)

        follow_ups = await _poll(config.get_follow_up_messages)
        if follow_ups:
            pending = follow_ups
            continue
        break
    await emit(AgentEndEvent(new_messages))


async def stream_assistant_response(
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
    stream_fn: StreamFn | None = None,
) -> AssistantMessage:
    """One model call: transform, convert, stream; the partial message lives in the context.

    The partial is pushed once at ``start`` and replaced in place on every update; the final
    message replaces it at ``done``/``error`` (or is pushed, with its own ``message_start``,
    when the stream never started).
    """
    messages = context.messages
    if config.transform_context is not None:
        messages = await resolve(config.transform_context(messages, signal))
    llm_messages = await resolve(config.convert_to_llm(messages))
    llm_context = _llm_context(
        context.system_prompt, llm_messages, tool_definitions(context.tools) or None
    )
    api_key = None
    if config.get_api_key is not None:
        api_key = await resolve(config.get_api_key(config.model.provider))
    base = config.stream_options
    options = replace_dataclass(
        base, api_key=api_key or base.api_key, signal=signal, reasoning=config.reasoning
    )
    started: Any = (stream_fn or default_stream)(config.model, llm_context, options)
    response: AssistantMessageEventStream = await started if isawaitable(started) else started

    # Hot path: one call per streamed chunk. The sink is called inline (no wrapper
    # coroutine; the semantics are Emitter's) and the partial is copied inline (see _copy).
    # While the loop waits, the stream runs ``content`` at push time (``direct``), so a
    # chunk costs the producer's hand-off only; what suspends or raises comes back as a
    # Handover, awaited here in order.
    sink = emit.sink
    history = context.messages
    new, set_dict, set_fields, set_extra, set_private = _COPY_PARTS
    partial: AssistantMessage | None = None

    def content(event: Any) -> object:
        nonlocal partial
        if partial is None:
            return None
        current = event.partial
        if current is not partial:  # providers mutate one object: usually the same
            partial = current
            history[-1] = current
        snapshot: Any = new(type(current))  # == shallow_copy(partial), inlined
        set_dict(snapshot, current.__dict__.copy())
        set_fields(snapshot, current.__pydantic_fields_set__.copy())
        extra = current.__pydantic_extra__  # usually {} (extra="allow"), an empty dict is new
        set_extra(snapshot, None if extra is None else extra.copy() if extra else {})
        private = current.__pydantic_private__
        set_private(snapshot, None if private is None else private.copy())
        return sink(MessageUpdateEvent(snapshot, event))

    direct = response.__class__ is AssistantMessageEventStream
    if direct:
        response.direct = content
    try:
        async for event in response:
            kind: str = event.type
            if kind in _CONTENT_EVENTS:
                result = content(event)
                if result is not None and (
                    result.__class__ is CoroutineType or isawaitable(result)
                ):
                    await result
            elif kind == "handover":  # only a direct consumer receives one
                await cast(Handover, event)
            elif kind == "start":
                partial = event.partial  # type: ignore[union-attr]
                history.append(partial)
                # a deep copy: message_start describes this moment, never content added later
                await emit(MessageStartEvent(deep_copy(partial)))
            elif kind == "done" or kind == "error":
                break
    finally:
        if direct:
            response.release_direct()
    final = await response.result()
    if partial is not None:
        history[-1] = final
    else:
        history.append(final)
        await emit(MessageStartEvent(shallow_copy(final)))
    await emit(MessageEndEvent(final))
    return final
