"""``AgentSession``: an ``Agent`` plus its session file, compaction and retries
(docs/reference/pi.md#compaction,
#agent-session).

- Persistence is event-driven: each ``message_end`` (user, assistant, toolResult, custom) is
  appended to the file — fsync'd — *before* listeners see the event; model and thinking-level
  changes become entries before the next prompt.
- ``prompt()`` runs ``agent.prompt`` and then, while ``_handle_post_agent_run`` says so,
  ``agent.continue_()``: retry (session-level, off by default: docs/protocol.md#7-errors
  retries only before output, at the provider), then compaction (overflow → compact and retry
  exactly once; threshold → compact), then queued messages.
- Retries are ``session_retry``; compaction is ``session_compaction``, its summaries come
  from the current model through ``agent.stream_fn``.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from inspect import isawaitable
from typing import TYPE_CHECKING, Any, Literal

from ..agent import Agent, AgentBusyError
from ..agent.agent import PROMPT_BUSY
from ..agent.messages import (
    AgentMessage,
    convert_to_llm_coding,
    convert_to_llm_default,
    user_message,
)
from ..agent.types import (
    AgentEvent,
    AgentLoopTurnUpdate,
    MaybeAwaitable,
)
from ..ai import AbortSignal, AssistantMessage, ImageContent, Model
from ..ai.events import RetryInfo
from ..ai.thinking import THINKING_LEVELS
from .compaction.tokens import CompactionSettings
from .entries import CustomEntry
from .events import (
    AutoRetryEndEvent,
    ProviderRetryEvent,
    QueueUpdateEvent,
    ResourceNoticeEvent,
    SessionEvent,
    SessionSaveEvent,
)
from .plan_state import PlanStateMixin
from .queue_entries import QUEUE_ENTRY_TYPE, queue_data, restore_queues
from .session_compaction import CompactionMixin
from .session_controls import SessionControls
from .session_file import SessionFile
from .session_queues import SessionQueues
from .session_resources import SessionResourcesMixin
from .session_retry import RetryMixin, RetrySettings, Sleep, abortable_sleep
from .usage import UsageTotals, context_tokens, subagent_records, usage_totals

if TYPE_CHECKING:
    from .compaction.summarize import CompactionResult

log = logging.getLogger("pi_lsp.sessions")

SessionListener = Callable[[SessionEvent], MaybeAwaitable[None]]
ModelResolver = Callable[[str, str], Model | None]
MODEL_CHOICE_ENTRY_TYPE = "pi-lsp.model_choice"


class AgentSession(
    SessionQueues,
    SessionControls,
    SessionResourcesMixin,
    PlanStateMixin,
    CompactionMixin,
    RetryMixin,
):
    """See the module docstring and docs/sessions.md#using-it-from-python."""

    def __init__(
        self,
        agent: Agent,
        file: SessionFile | None,
        *,
        compaction: CompactionSettings | None = None,
        retry: RetrySettings | None = None,
        sleep: Sleep = abortable_sleep,
        session_id: str | None = None,
    ) -> None:
        """``session_id``: the id of a session without a file (a file names its own)."""
        self.agent = agent
        self.file = file
        self._tree = file if file is not None else SessionFile.in_memory(session_id=session_id)
        self.session_id = self._tree.session_id
        if agent.session_id is None:
            agent.session_id = self.session_id
        if agent.convert_to_llm is convert_to_llm_default:
            agent.convert_to_llm = convert_to_llm_coding  # summaries must reach the model
        self.compaction_settings = compaction or CompactionSettings()
        self.retry_settings = retry or RetrySettings()
        self._sleep = sleep
        self._listeners: dict[object, SessionListener] = {}
        self._task: asyncio.Task[None] | None = None
        self._compacting = False
        self._abort_requested = False
        self._last_assistant: AssistantMessage | None = None
        self._overflow_recovery_attempted = False
        self._retry_attempt = 0
        self._retry_signal: AbortSignal | None = None
        self._compaction_signal: AbortSignal | None = None
        self._since_compaction: dict[int, AgentMessage] = {}
        """Messages recorded after the latest compaction (by identity): a reply is never
        mistaken for a stale pre-compaction one just because both share a millisecond."""
        self.persist_error: str | None = None
        """Why the session file cannot be written now (``None`` while saving works)."""
        self._side_tasks: set[asyncio.Task[None]] = set()
        """The last failure to write the session file (the run goes on), for the UI."""
        self._pending_listeners: set[asyncio.Future[Any]] = set()
        self.before_run: Callable[[], Awaitable[None]] | None = None
        """Awaited at the start of each prompted run, before the model is asked (the MCP
        tools are started and put in the agent's tool list there); a failure is logged."""
        self._unsubscribe_agent = agent.subscribe(self._on_agent_event)
        agent.on_queue_change = self._queue_changed
        agent.prepare_next_turn = self._next_turn
        self._run_provider: str | None = None
        """The provider the current run started with (its key and transport)."""
        self._init_plan_state()
        self._init_resources()

    @classmethod
    def resume(
        cls,
        agent: Agent,
        file: SessionFile,
        *,
        resolve_model: ModelResolver | None = None,
        compaction: CompactionSettings | None = None,
        retry: RetrySettings | None = None,
        sleep: Sleep = abortable_sleep,
    ) -> AgentSession:
        """A session over ``file`` with its messages, model and thinking level restored into
        ``agent.state`` (the model when ``resolve_model(provider, id)`` finds it)."""
        cls.restore(agent, file, resolve_model=resolve_model)
        return cls(agent, file, compaction=compaction, retry=retry, sleep=sleep)

    @staticmethod
    def restore(
        agent: Agent, file: SessionFile, *, resolve_model: ModelResolver | None = None
    ) -> tuple[str, str] | None:
        """Restore ``file``'s messages, model, thinking level and queues into ``agent``
        (before a session is made over them). Returns the ``(provider, model id)`` the
        session last used (``None``: none recorded); without ``resolve_model`` the caller
        sets the model (and says so when it differs: ``log_model_change``)."""
        context = file.build_context()
        agent.state.messages = context.messages
        if context.thinking_level in THINKING_LEVELS:
            agent.state.thinking_level = context.thinking_level
        used = (
            (context.provider, context.model_id) if context.provider and context.model_id else None
        )
        if used is not None and resolve_model is not None:
            current = agent.state.model
            if (current.provider, current.id) != used:
                found = resolve_model(*used)
                if found is not None:
                    agent.state.model = found
                else:
                    log.info(
                        "session %s used %s/%s; continuing with %s/%s",
                        file.session_id,
                        context.provider,
                        context.model_id,
                        current.provider,
                        current.id,
                    )
        agent.session_id = file.session_id
        agent.restore_queues(*restore_queues(file.get_branch()))
        return used

    def log_model_change(self, used: tuple[str, str] | None) -> None:
        """Say so when a resumed session goes on with another model than it ``used``."""
        model = self.agent.state.model
        if used is not None and (model.provider, model.id) != used:
            log.info(
                "session %s used %s/%s; continuing with %s/%s",
                self.session_id,
                *used,
                model.provider,
                model.id,
            )

    # ------------------------------------------------------------------ listeners

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        """Awaited, in order, for every agent and session event. Returns the unsubscriber."""
        token = object()
        self._listeners[token] = listener

        def unsubscribe() -> None:
            self._listeners.pop(token, None)

        return unsubscribe

    async def _emit(self, event: SessionEvent) -> None:
        for listener in tuple(self._listeners.values()):
            try:
                result = listener(event)
                if result is not None and isawaitable(result):
                    await result
            except Exception:
                log.exception("session listener failed on %s", event.type)

    async def publish(self, event: SessionEvent) -> None:
        """Tell this session's listeners about ``event`` (a ``task`` child's
        ``subagent_update``, sent by the session's subagents)."""
        await self._emit(event)

    def notify_user(self, message: str) -> None:
        """Something the user should see, not the model (a ``resource_notice``: an agent
        definition that was skipped)."""
        self._notify(ResourceNoticeEvent(message))

    def record_custom(self, custom_type: str, data: Any) -> str | None:
        """Append a custom entry (product state the model never sees: a ``subagent``
        record); ``None`` when the file could not be written."""
        return self._record(self._tree.append_custom, custom_type, data)

    def close(self) -> None:
        """Detach from the agent (the session stops recording its events) and release the
        session file's lock."""
        self._unsubscribe_agent()
        self._tree.close()
        if self.agent.on_queue_change == self._queue_changed:
            self.agent.on_queue_change = None

    # ------------------------------------------------------------------ queue

    def queue_event(self) -> QueueUpdateEvent:
        steering, follow_ups = self.agent.queue_items()
        return QueueUpdateEvent(steering, follow_ups)

    def _queue_changed(self) -> None:
        """Persist both queues (one entry) and tell the listeners (one ``queue_update``).
        Listeners run synchronously here; an awaitable they return is scheduled."""
        steering, follow_ups = self.agent.queue_items()
        saved = self._record(
            self._tree.append_custom, QUEUE_ENTRY_TYPE, queue_data(steering, follow_ups)
        )
        if saved is not None and (steering or follow_ups):
            self._record(self._tree.flush)  # written now, even before the first message
        self._notify(QueueUpdateEvent(steering, follow_ups))

    def _notify(self, event: SessionEvent) -> None:
        """Tell the listeners from synchronous code; an awaitable they return is scheduled."""
        for listener in tuple(self._listeners.values()):
            try:
                result = listener(event)
                if result is not None and isawaitable(result):
                    task = asyncio.ensure_future(result)
                    self._pending_listeners.add(task)
                    task.add_done_callback(self._pending_listeners.discard)
            except Exception:
                log.exception("session listener failed on %s", event.type)

    # ------------------------------------------------------------------ state

    @property
    def is_running(self) -> bool:
        """The one "running": a prompted run (with its retries and compactions), a manual
        compaction, or the agent's own run."""
        return (
            self._compacting
            or (self._task is not None and not self._task.done())
            or self.agent.is_running
        )

    @property
    def is_compacting(self) -> bool:
        return self._compaction_signal is not None

    @property
    def tree(self) -> SessionFile:
        """The session's entries (the file, or an in-memory tree when there is none)."""
        return self._tree

    def notify_retry(self, info: RetryInfo) -> None:
        """A provider retry (``StreamOptions.on_retry``): told to the listeners as an event,
        synchronously like ``queue_update``."""
        self._notify(ProviderRetryEvent(info.attempt, info.delay_ms, info.error_message))

    def _next_turn(self, signal: Any) -> AgentLoopTurnUpdate | None:
        """Before each further model call of a run: a model chosen meanwhile takes over
        (another provider only from the next run, whose key and transport are set up at its
        start)."""
        state = self.agent.state
        if state.model.provider != self._run_provider:
            return None
        return AgentLoopTurnUpdate(model=state.model, thinking_level=state.thinking_level)

    def set_model(self, model: Model) -> None:
        self.agent.state.model = model
        self._record(self._tree.append_model_change, model.provider, model.id)

    def choose_model(self, model: Model, thinking_level: str | None = None) -> None:
        """This session's own model (``pi/setModel``): a ``model_change`` entry (as in Pi)
        plus a ``pi-lsp.model_choice`` entry, so a resumed session keeps its choice whatever
        the settings say. The model is used from the next model call on."""
        if thinking_level is not None and thinking_level not in THINKING_LEVELS:
            raise ValueError(f"Unknown thinking level: {thinking_level}")
        self.set_model(model)
        if thinking_level is not None:
            self.set_thinking_level(thinking_level)
        data = {"provider": model.provider, "modelId": model.id, "thinkingLevel": thinking_level}
        self._record(self._tree.append_custom, MODEL_CHOICE_ENTRY_TYPE, data)

    def saved_model_choice(self) -> tuple[str, str, str | None] | None:
        """``(provider, model id, thinking level)`` of the last ``pi/setModel`` on this branch."""
        for entry in reversed(self._tree.get_branch()):
            if isinstance(entry, CustomEntry) and entry.custom_type == MODEL_CHOICE_ENTRY_TYPE:
                data = entry.data if isinstance(entry.data, dict) else {}
                provider, model_id = data.get("provider"), data.get("modelId")
                level = data.get("thinkingLevel")
                if isinstance(provider, str) and isinstance(model_id, str):
                    return provider, model_id, level if isinstance(level, str) else None
        return None

    def subagents_recorded(self) -> list[dict[str, Any]]:
        """This session's ``task`` children as its file recorded them (a resumed session
        lists them; ``pi/state``'s ``subagents``)."""
        return subagent_records(self._tree.entries)

    def usage_totals(self) -> UsageTotals:
        return usage_totals(self._tree.entries)

    def context_tokens(self) -> int:
        state = self.agent.state
        return context_tokens(state.messages, state.system_prompt, state.tools)

    def set_thinking_level(self, level: str) -> None:
        if level not in THINKING_LEVELS:
            raise ValueError(f"Unknown thinking level: {level}")
        self.agent.state.thinking_level = level
        self._record(self._tree.append_thinking_level_change, level)

    def _record_settings(self) -> None:
        """Append model/thinking changes made directly on ``agent.state`` since the last
        record, so a resumed session gets them back."""
        context = self._tree.build_context()
        model = self.agent.state.model
        if (context.provider, context.model_id) != (model.provider, model.id):
            self._record(self._tree.append_model_change, model.provider, model.id)
        if context.thinking_level != self.agent.state.thinking_level:
            self._record(self._tree.append_thinking_level_change, self.agent.state.thinking_level)

    def _record(self, append: Callable[..., str | None], *args: Any) -> str | None:
        try:
            entry_id = append(*args)
        except Exception as exc:  # never let bookkeeping break the run or its events
            first = self.persist_error is None
            self.persist_error = f"Could not write the session file: {exc}"
            log.error("session %s: %s", self.session_id, self.persist_error)
            if first:  # tell listeners once per failure spell; the writes are retried
                self._emit_soon(SessionSaveEvent(False, self.persist_error, str(self._tree.path)))
            return None
        if self.persist_error is not None and self._tree.is_persisted:
            self.persist_error = None
            log.info("session %s: saving works again", self.session_id)
            self._emit_soon(SessionSaveEvent(True, path=str(self._tree.path)))
        return entry_id

    def _emit_soon(self, event: SessionEvent) -> None:
        """``_emit`` from synchronous code (the task is kept until it is done)."""
        try:
            task = asyncio.get_running_loop().create_task(self._emit(event))
        except RuntimeError:  # no loop: nobody can be listening
            return
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)

    # ------------------------------------------------------------------ agent events

    async def _on_agent_event(self, event: AgentEvent, signal: AbortSignal | None) -> None:
        if event.type == "message_start" and event.message.role == "user":
            self._overflow_recovery_attempted = False
        if event.type == "message_end":
            message = event.message
            if message.role in ("user", "assistant", "toolResult", "custom"):
                self._record(self._tree.append_message, message)
                self._since_compaction[id(message)] = message
            if isinstance(message, AssistantMessage):
                self._last_assistant = message
                if message.stop_reason != "error":
                    self._overflow_recovery_attempted = False
                    if self._retry_attempt > 0:
                        attempt, self._retry_attempt = self._retry_attempt, 0
                        await self._emit(event)
                        await self._emit(AutoRetryEndEvent(success=True, attempt=attempt))
                        return
        await self._emit(event)

    # ------------------------------------------------------------------ prompting

    def prompt(
        self,
        input: str | AgentMessage,
        images: Sequence[ImageContent] = (),
        *,
        expand: bool = True,
    ) -> asyncio.Task[None]:
        """Start a run (with its compaction/retry follow-through); returns its task.
        Raises ``AgentBusyError`` at once while a run or a compaction is in progress.
        ``/skill:name`` and ``/template`` inputs are expanded unless ``expand`` is false (a
        front end that expanded the typed text itself, before adding attachments)."""
        if self.is_running:
            raise AgentBusyError(PROMPT_BUSY)
        if self.refresh_before_prompt:  # a changed AGENTS.md, skill or template: from this run on
            self.refresh_resources()
        message = user_message(input, images) if isinstance(input, str) else input
        if expand:
            message = self.expand_message(message)  # /skill:name, /template
        self._abort_requested = False
        self._run_provider = self.agent.state.model.provider
        self._mode_before_run()
        task = asyncio.get_running_loop().create_task(self._run_prompt([message]))
        self._task = task
        return task

    async def _run_prompt(self, messages: list[AgentMessage]) -> None:
        try:
            self._record_settings()
            if self.before_run is not None:
                try:
                    await self.before_run()
                except Exception:
                    log.exception("session %s: before_run failed", self.session_id)
                self._apply_mode()  # tools it put in the agent obey plan mode too
            last = self._last_assistant_in_state()
            if last is not None and await self._check_compaction(last, skip_aborted=False):
                await self._continue_loop(first=True)
            if self._abort_requested:
                return
            await self.agent.prompt(messages)
            await self._continue_loop(first=False)
        except Exception:
            log.exception("session %s: run failed", self.session_id)

    async def _continue_loop(self, *, first: bool) -> None:
        if first and not self._abort_requested:
            await self.agent.continue_()
        while not self._abort_requested and await self._handle_post_agent_run():
            await self.agent.continue_()

    async def _handle_post_agent_run(self) -> bool:
        message, self._last_assistant = self._last_assistant, None
        if message is None:
            return False
        if self._is_retryable(message) and await self._prepare_retry(message):
            return True
        if message.stop_reason == "error" and self._retry_attempt > 0:
            attempt, self._retry_attempt = self._retry_attempt, 0
            await self._emit(
                AutoRetryEndEvent(success=False, attempt=attempt, final_error=message.error_message)
            )
        if await self._check_compaction(message):
            return True
        return self.agent.has_queued_messages()

    def last_assistant(self) -> AssistantMessage | None:
        """The latest assistant message of the session's context (a ``task`` child's
        answer)."""
        return self._last_assistant_in_state()

    def _last_assistant_in_state(self) -> AssistantMessage | None:
        for message in reversed(self.agent.state.messages):
            if isinstance(message, AssistantMessage):
                return message
        return None

    def _drop_trailing_assistant(self, *, only_errors: bool = False) -> None:
        messages = self.agent.state.messages
        last = messages[-1] if messages else None
        if isinstance(last, AssistantMessage) and (not only_errors or last.stop_reason == "error"):
            self.agent.state.messages = messages[:-1]

    # ------------------------------------------------------------------ abort / idle

    def abort(self) -> None:
        """Abort the run, a retry wait and a compaction in progress."""
        self._abort_requested = True
        for signal in (self._retry_signal, self._compaction_signal):
            if signal is not None:
                signal.abort()
        self.agent.abort()

    async def wait_for_idle(self) -> None:
        task = self._task
        if task is not None and not task.done():
            await asyncio.wait({task})
        await self.agent.wait_for_idle()

    async def compact(
        self,
        reason: Literal["manual", "threshold", "overflow"] = "manual",
        *,
        custom_instructions: str | None = None,
    ) -> CompactionResult | None:
        """Compact now (a run in progress is aborted first). ``None`` when there is nothing
        to compact; raises ``CompactionError`` when the summary could not be made."""
        if self._task is not None and not self._task.done():
            self.abort()
            await self.wait_for_idle()
        self._compacting = True
        try:
            return await self._compact(
                reason, will_retry=False, custom_instructions=custom_instructions
            )
        finally:
            self._compacting = False
