"""The stateful ``Agent``: pi-agent-core 0.80.2 ``Agent`` over ``run_agent_loop``.

Owns the transcript (a reduction over loop events, applied before listeners run), the
steering and follow-up queues, the active run (its task, abort signal and idle event) and the
listeners (awaited one after another). ``prompt()``/``continue_()`` are synchronous: they check
"busy", start the run as an ``asyncio.Task`` and return it. A run that raises still ends with a
clean ``message_start``/``message_end``/``turn_end``/``agent_end`` sequence.
Must not import pygls/lsprotocol or anything above agent/.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import replace
from inspect import isawaitable
from types import CoroutineType
from typing import Any, TypeAlias

from pydantic import BaseModel

from ..ai import (
    AbortSignal,
    AssistantMessage,
    ImageContent,
    Model,
    StreamOptions,
    TextContent,
    Usage,
)
from ._hooks import resolve
from .agent_queues import AgentQueues
from .loop import run_agent_loop, run_agent_loop_continue
from .messages import AgentMessage, convert_to_llm_default, user_message
from .state import AgentState
from .types import (
    AfterToolCall,
    AgentContext,
    AgentEndEvent,
    AgentEvent,
    AgentLoopConfig,
    AgentLoopTurnUpdate,
    AgentThinkingLevel,
    AgentTool,
    BeforeToolCall,
    ConvertToLlm,
    GetApiKey,
    MaybeAwaitable,
    MessageEndEvent,
    MessagePoll,
    MessageStartEvent,
    QueueMode,
    StreamFn,
    ToolExecutionMode,
    TransformContext,
    TurnContext,
    TurnEndEvent,
)

logger = logging.getLogger(__name__)

PROMPT_BUSY = (
    "Agent is already processing a prompt. Use steer() or followUp() to queue messages, "
    "or wait for completion."
)
CONTINUE_BUSY = "Agent is already processing. Wait for completion before continuing."
NO_MESSAGES = "No messages to continue from"
FROM_ASSISTANT = "Cannot continue from message role: assistant"

AgentListener: TypeAlias = Callable[[AgentEvent, AbortSignal | None], MaybeAwaitable[None]]
AgentPrepareNextTurn: TypeAlias = Callable[
    [AbortSignal | None], MaybeAwaitable[AgentLoopTurnUpdate | None]
]
_Executor: TypeAlias = Callable[[AbortSignal], Coroutine[Any, Any, object]]


class AgentBusyError(RuntimeError):
    """``prompt()`` / ``continue_()`` while a run is active (pi's "already processing")."""


class _ActiveRun:
    __slots__ = ("idle", "signal", "task")

    def __init__(self) -> None:
        self.signal = AbortSignal()
        self.idle = asyncio.Event()
        self.task: asyncio.Task[None] | None = None


class Agent(AgentQueues):
    """A conversation with a model and tools; the contract is docs/agent-loop.md#the-agent."""

    def __init__(
        self,
        *,
        system_prompt: str = "",
        model: Model | None = None,
        thinking_level: AgentThinkingLevel = "off",
        tools: Sequence[AgentTool[Any]] = (),
        messages: Sequence[AgentMessage] = (),
        convert_to_llm: ConvertToLlm | None = None,
        transform_context: TransformContext | None = None,
        get_call_notes: MessagePoll | None = None,
        stream_fn: StreamFn | None = None,
        get_api_key: GetApiKey | None = None,
        before_tool_call: BeforeToolCall | None = None,
        after_tool_call: AfterToolCall | None = None,
        prepare_next_turn: AgentPrepareNextTurn | None = None,
        steering_mode: QueueMode = "one-at-a-time",
        follow_up_mode: QueueMode = "one-at-a-time",
        tool_execution: ToolExecutionMode = "parallel",
        stream_options: StreamOptions | None = None,
        session_id: str | None = None,
    ) -> None:
        self.state = AgentState(
            system_prompt=system_prompt,
            model=model,
            thinking_level=thinking_level,
            tools=tools,
            messages=messages,
        )
        self.convert_to_llm: ConvertToLlm = convert_to_llm or convert_to_llm_default
        self.transform_context = transform_context
        self.get_call_notes = get_call_notes
        """Polled right before each model call (``AgentLoopConfig.get_call_notes``)."""
        self.stream_fn = stream_fn
        """``None`` means ``pi_lsp.ai.stream`` (resolved by the loop)."""
        self.get_api_key = get_api_key
        self.before_tool_call = before_tool_call
        self.after_tool_call = after_tool_call
        self.missing_tool_text: Callable[[str], str | None] | None = None
        """``AgentLoopConfig.missing_tool_text`` (set by the session's plan mode)."""
        self.prepare_next_turn = prepare_next_turn
        self.tool_execution: ToolExecutionMode = tool_execution
        self.stream_options = stream_options
        self.session_id = session_id
        AgentQueues.__init__(self, steering_mode, follow_up_mode)
        self._listeners: dict[object, AgentListener] = {}
        self._listener_list: tuple[AgentListener, ...] = ()
        self._active: _ActiveRun | None = None

    # ------------------------------------------------------------------ listeners

    def subscribe(self, listener: AgentListener) -> Callable[[], None]:
        """Call ``listener(event, signal)`` for every event (awaited, in subscription order).

        Returns the unsubscribe function. A listener that raises is logged; the run goes on.
        """
        token = object()
        self._listeners[token] = listener
        self._listener_list = tuple(self._listeners.values())

        def unsubscribe() -> None:
            if self._listeners.pop(token, None) is not None:
                self._listener_list = tuple(self._listeners.values())

        return unsubscribe

    # ------------------------------------------------------------------ run control

    @property
    def signal(self) -> AbortSignal | None:
        """The active run's abort signal (``None`` when idle)."""
        return self._active.signal if self._active is not None else None

    @property
    def is_running(self) -> bool:
        return self._active is not None

    def abort(self) -> None:
        """Abort the active run, if any (the run still ends with ``agent_end``)."""
        if self._active is not None:
            self._active.signal.abort()

    async def wait_for_idle(self) -> None:
        """Return once the active run and its ``agent_end`` listeners have finished."""
        active = self._active
        if active is not None:
            await active.idle.wait()

    def reset(self) -> None:
        """Clear the transcript, runtime state and both queues (does not abort a run)."""
        state = self.state
        state.messages = []
        state._is_streaming = False
        state.streaming_message = None
        state.pending_tool_calls = frozenset()
        state.error_message = None
        self.clear_all_queues()

    def prompt(
        self,
        input: str | AgentMessage | Sequence[AgentMessage],
        images: Sequence[ImageContent] = (),
    ) -> asyncio.Task[None]:
        """Start a run for a prompt; returns its task (``await agent.prompt("hi")`` waits)."""
        asyncio.get_running_loop()  # fail before touching any state outside an event loop
        if self._active is not None:
            raise AgentBusyError(PROMPT_BUSY)
        if isinstance(input, str):
            messages: list[AgentMessage] = [user_message(input, images)]
        elif isinstance(input, BaseModel):
            messages = [input]
        else:
            messages = list(input)
        return self._start_prompt_run(messages)

    def continue_(self) -> asyncio.Task[None]:
        """Continue from the transcript (retries); see pi's ``continue()`` rules.

        Raises ``AgentBusyError`` during a run, ``ValueError`` with pi's texts when there is
        nothing to continue from; both before any queue is drained.
        """
        asyncio.get_running_loop()  # fail before draining a queue outside an event loop
        if self._active is not None:
            raise AgentBusyError(CONTINUE_BUSY)
        history = self.state.messages
        if not history:
            raise ValueError(NO_MESSAGES)
        if history[-1].role == "assistant":
            steering = self._deliver(self._steering, "steer")
            if steering:
                return self._start_prompt_run(steering, skip_initial_steering_poll=True)
            follow_ups = self._deliver(self._follow_ups, "followUp")
            if follow_ups:
                return self._start_prompt_run(follow_ups)
            raise ValueError(FROM_ASSISTANT)
        context, config = self._snapshot(), self._loop_config()
        return self._start_run(
            lambda signal: run_agent_loop_continue(
                context, config, self._process_event, signal, self.stream_fn
            )
        )

    # ------------------------------------------------------------------ internals

    def _start_prompt_run(
        self, messages: list[AgentMessage], *, skip_initial_steering_poll: bool = False
    ) -> asyncio.Task[None]:
        context = self._snapshot()
        config = self._loop_config(skip_initial_steering_poll)
        return self._start_run(
            lambda signal: run_agent_loop(
                messages, context, config, self._process_event, signal, self.stream_fn
            )
        )

    def _snapshot(self) -> AgentContext:
        state = self.state
        return AgentContext(state.system_prompt, list(state.messages), list(state.tools))

    def _loop_config(self, skip_initial_steering_poll: bool = False) -> AgentLoopConfig:
        skip = skip_initial_steering_poll
        steering, follow_ups = self._steering, self._follow_ups

        def aborted() -> bool:
            signal = self.signal
            return signal is not None and signal.aborted

        def get_steering_messages() -> list[AgentMessage]:
            nonlocal skip
            if skip:
                skip = False
                return []
            if aborted():  # an abort never delivers the queue: it waits for the next run
                return []
            return self._deliver(steering, "steer")

        def get_follow_up_messages() -> list[AgentMessage]:
            return [] if aborted() else self._deliver(follow_ups, "followUp")

        prepare: Callable[[TurnContext], Awaitable[AgentLoopTurnUpdate | None]] | None = None
        if self.prepare_next_turn is not None:

            async def prepare(_: TurnContext) -> AgentLoopTurnUpdate | None:
                hook = self.prepare_next_turn
                return None if hook is None else await resolve(hook(self.signal))

        base = self.stream_options or StreamOptions()
        if self.session_id is not None:
            base = replace(base, session_id=self.session_id)
        level = self.state.thinking_level
        return AgentLoopConfig(
            model=self.state.model,
            convert_to_llm=self.convert_to_llm,
            transform_context=self.transform_context,
            get_call_notes=self.get_call_notes,
            get_api_key=self.get_api_key,
            get_steering_messages=get_steering_messages,
            get_follow_up_messages=get_follow_up_messages,
            prepare_next_turn=prepare,
            before_tool_call=self.before_tool_call,
            after_tool_call=self.after_tool_call,
            missing_tool_text=self.missing_tool_text,
            tool_execution=self.tool_execution,
            reasoning=None if level == "off" else level,
            stream_options=base,
        )

    def _start_run(self, executor: _Executor) -> asyncio.Task[None]:
        loop = asyncio.get_running_loop()  # raises RuntimeError outside an event loop
        run = _ActiveRun()
        self._active = run
        state = self.state
        state._is_streaming = True
        state.streaming_message = None
        state.error_message = None
        task = loop.create_task(self._lifecycle(run, executor))
        run.task = task
        task.add_done_callback(lambda _: self._finish_run(run))  # also if cancelled early
        return task

    async def _lifecycle(self, run: _ActiveRun, executor: _Executor) -> None:
        try:
            await executor(run.signal)
        except Exception as exc:
            await self._handle_run_failure(exc, run.signal.aborted)
        finally:
            self._finish_run(run)

    async def _handle_run_failure(self, error: Exception, aborted: bool) -> None:
        model = self.state.model
        failure = AssistantMessage(
            content=[TextContent(text="")],
            api=model.api,
            provider=model.provider,
            model=model.id,
            usage=Usage(),
            stop_reason="aborted" if aborted else "error",
            error_message=str(error),
        )
        await self._process_event(MessageStartEvent(failure))
        await self._process_event(MessageEndEvent(failure))
        await self._process_event(TurnEndEvent(failure, []))
        await self._process_event(AgentEndEvent([failure]))

    def _finish_run(self, run: _ActiveRun) -> None:
        if self._active is not run:
            return
        state = self.state
        state._is_streaming = False
        state.streaming_message = None
        state.pending_tool_calls = frozenset()
        self._active = None
        self._delivering.clear()
        run.idle.set()

    async def _process_event(self, event: AgentEvent) -> None:
        """Reduce the state for ``event``, then await every listener in order."""
        state = self.state
        kind = event.type
        if kind == "message_update":
            state.streaming_message = event.message  # type: ignore[union-attr]
        elif kind == "message_start":
            state.streaming_message = event.message  # type: ignore[union-attr]
            if self._delivering:  # a queued message arriving: say which one, and from where
                delivered = self._delivering.pop(id(event.message), None)  # type: ignore[union-attr]
                if delivered is not None:
                    event.queued_id, event.delivered_as = delivered  # type: ignore[union-attr]
        elif kind == "message_end":
            state.streaming_message = None
            state.messages.append(event.message)  # type: ignore[union-attr]
        elif kind == "tool_execution_start":
            state.pending_tool_calls = state.pending_tool_calls | {event.tool_call_id}  # type: ignore[union-attr]
        elif kind == "tool_execution_end":
            state.pending_tool_calls = state.pending_tool_calls - {event.tool_call_id}  # type: ignore[union-attr]
        elif kind == "turn_end":
            message = event.message  # type: ignore[union-attr]
            if isinstance(message, AssistantMessage) and message.error_message:
                state.error_message = message.error_message
        elif kind == "agent_end":
            state.streaming_message = None

        active = self._active
        signal = active.signal if active is not None else None
        for listener in self._listener_list:
            try:
                result = listener(event, signal)
                if result is not None and (
                    result.__class__ is CoroutineType or isawaitable(result)
                ):
                    await result
            except Exception:
                logger.exception("agent listener failed on %s", kind)
