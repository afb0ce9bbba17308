"""One ACP session: an ``AgentSession`` driven by ``session/prompt`` and ``session/cancel``.

- A prompt starts a *turn*: one run plus whatever it leads to (compaction, retries, the
  follow-ups queued meanwhile); every prompt waiting on the turn resolves only when it has
  settled, after all its updates were sent, with a v1 stop reason (``stop_reason``).
- A prompt during a turn is queued as a follow-up (or, with ``_meta.piLsp.deliver:
  "steer"``, as steering) and a notice tells its position.
- ``cancel`` clears this session's queues first, withdraws pending permission questions,
  aborts, and the waiting prompts resolve ``cancelled``; the next prompt starts at once
  (after the aborted run has finished writing).
- The todo list is sent as a ``plan`` update (the whole list each time; also when a session
  with a list is opened); plan/act is the ``mode`` config option: switching to ``act`` after
  planning queues the carry-out follow-up during a turn; when idle it is kept and carried
  out by the next prompt (its text before the prompt's), never as a turn of its own — no
  ``session/prompt`` would be waiting for it and clients drop updates outside a prompt.
- Events become updates through ``updates.LiveUpdates``; a ``write`` call's replaced text
  is read before it runs and kept in the session file for ``session/load``.
Imports the SDK's schema, ``sessions``, the todo items' type and this package.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeAlias

from acp import RequestError
from acp.schema import (
    AgentPlanUpdate,
    ConfigOptionUpdate,
    Cost,
    CurrentModeUpdate,
    PlanEntry,
    SessionInfoUpdate,
    TextContentBlock,
    UsageUpdate,
)

from ..agent.types import MessageEndEvent, ToolExecutionEndEvent, ToolExecutionStartEvent
from ..ai.types import AssistantMessage
from ..sessions.events import (
    ModeUpdateEvent,
    ResourceNoticeEvent,
    ResourcesUpdateEvent,
    SubagentUpdateEvent,
    TodoUpdateEvent,
)
from ..tools.todo import TodoItem
from . import config_options as options
from .background import BackgroundRelay
from .commands import BUILTINS, commands_update, context_text
from .factory import OpenedSession, Provision
from .permissions import PermissionBridge
from .prompt_input import prompt_text, to_message
from .questions import AcpQuestions
from .replay import OLD_TEXT_ENTRY
from .subagents import ChildStream
from .updates import (
    LiveUpdates,
    SessionUpdate,
    agent_text,
    message_text,
    still_running,
)

log = logging.getLogger("pi_lsp.acp")

StopReason: TypeAlias = Literal[
    "end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"
]
Send = Callable[[Any], Awaitable[None]]
OLD_TEXT_LIMIT = 512 * 1024
CARRY_OUT_NOTICE = "_Act mode: carrying out the plan._\n\n"
TITLE_MAX = 80
Settle = Callable[[], Awaitable[None]]


def _is_code_review(text: str) -> bool:
    """``/review [--base REF | --commit SHA]`` (an unknown ``--flag`` too: it is answered
    with the usage); ``/review`` with other arguments is a ``review`` prompt template's."""
    from ..codereview import parse_review_command

    try:
        return parse_review_command(text) is not None
    except ValueError:
        return True


def _title(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= TITLE_MAX else flat[: TITLE_MAX - 1].rstrip() + "…"


def _retrieved(task: asyncio.Task[None]) -> None:
    """A turn's failure was logged and answered to its prompts; a turn nobody awaits
    (the carry-out after a switch to act) must not warn that it was never retrieved."""
    if not task.cancelled():
        task.exception()


def plan_update(items: Sequence[TodoItem]) -> AgentPlanUpdate:
    """The todo list as ACP's plan (the client replaces the whole plan each time)."""
    return AgentPlanUpdate(
        session_update="plan",
        entries=[
            PlanEntry(content=item.content, status=item.status, priority="medium") for item in items
        ],
    )


class AcpSession:
    def __init__(
        self,
        opened: OpenedSession,
        cwd: Path,
        prov: Provision,
        permissions: PermissionBridge,
        send: Send,
        questions: AcpQuestions | None = None,
        settle_trust: Settle | None = None,
    ) -> None:
        self.opened = opened
        self.questions = questions
        self.session = opened.session
        self.session_id = self.session.session_id
        self.cwd = cwd
        self.prov = prov
        self.permissions = permissions
        self._send = send
        self.live = LiveUpdates(self.session_id, cwd)
        self._turn: asyncio.Task[None] | None = None
        self._cancel_requested = False
        self._compacting = False
        self._reviews = 0
        self._review_task: asyncio.Future[Any] | None = None
        """A ``/review`` in progress (``cancel`` stops it)."""
        self._carry_out_text: str | None = None
        """The carry-out follow-up of a switch to ``act`` made while idle: the next prompt's."""
        self._titled = bool(self.session.messages)
        self._settle_trust = settle_trust
        """Asks the project's trust (``project_trust.TrustGate``) before the first prompt."""
        self.session.builtin_commands = frozenset(BUILTINS)
        self._told_reloads = 0
        self._unsubscribe = self.session.subscribe(self._on_event)
        self.closed = False
        self.children: ChildStream | None = None
        """The ``task`` children's updates, for a client that declared ``subagents``."""
        self.background = BackgroundRelay(
            self.session.jobs, self.send, terminal=lambda: self.live.terminal
        )
        self._jobs_mark = self.session.jobs.mark()
        """Background processes started after this mark belong to the current prompt."""

    # ------------------------------------------------------------------ state for the client

    @property
    def thinking(self) -> str:
        return str(self.session.thinking_level)

    def config_options(self) -> list[Any]:
        return options.config_options(
            self.session.model, self.prov.models, self.thinking, self.session.mode
        )

    def modes(self) -> Any:
        return options.modes(self.thinking)

    async def announce(self, *, commands: bool = True) -> None:
        """What a client shows beside the conversation: commands, title, usage."""
        if commands:
            await self.send(commands_update(self.session.project_resources))
        info = self.session.tree.name or self._first_prompt()
        if info:
            self._titled = True
            await self.send(
                SessionInfoUpdate(session_update="session_info_update", title=_title(info))
            )
        if self.session.todos:
            await self.send(plan_update(self.session.todos))
        if self.session.messages:
            await self.send(self.usage())

    def _first_prompt(self) -> str | None:
        for message in self.session.messages:
            if getattr(message, "role", None) == "user":
                return message_text(message) or None
        return None

    def usage(self) -> UsageUpdate:
        totals = self.session.usage_totals()
        return UsageUpdate(
            session_update="usage_update",
            used=max(0, self.session.context_tokens()),
            size=self.session.model.context_window,
            cost=Cost(amount=round(totals.cost, 6), currency="USD"),
        )

    async def set_option(self, config_id: str, value: str) -> None:
        if config_id == options.MODEL:
            model = options.find_model(self.prov.models, value)
            if model is None:
                raise ValueError(f"unknown model {value!r}")
            self.session.select_model(model.provider, model.id, None)
        elif config_id == options.MODE:
            if value not in options.PLAN_MODES:
                raise ValueError(f"unknown mode {value!r} (expected 'plan' or 'act')")
            mode: Literal["plan", "act"] = "plan" if value == "plan" else "act"
            if mode == "plan":
                self._carry_out_text = None  # back to planning: nothing to carry out yet
            if mode != self.session.mode:  # the mode_update event pushes the options
                self.session.set_mode(mode, deliver=self._carry_out)
            return
        elif config_id == options.THINKING:
            self.session.set_thinking_level(value)  # ValueError for an unknown level
            self.session.thinking_choice = value  # type: ignore[assignment]  # checked
            await self.send(
                CurrentModeUpdate(session_update="current_mode_update", current_mode_id=value)
            )
        else:
            raise ValueError(f"unknown config option {config_id!r}")
        await self.send(
            ConfigOptionUpdate(
                session_update="config_option_update", config_options=self.config_options()
            )
        )

    # ------------------------------------------------------------------ sending

    async def send(self, update: SessionUpdate | Any) -> None:
        if self.closed:
            return
        try:
            await self._send(update)
        except (ConnectionError, OSError) as exc:
            log.info("session %s: the client is gone (%s): aborting", self.session_id, exc)
            self.closed = True
            self.cancel()

    async def _on_event(self, event: Any) -> None:
        if isinstance(event, SubagentUpdateEvent):
            if self.children is not None:
                await self.children.on_update(event)
            return
        if isinstance(event, ResourcesUpdateEvent):  # a reload: the commands may differ
            if self._told_reloads:
                self._told_reloads -= 1
                return
            await self.send(commands_update(self.session.project_resources))
            return
        if isinstance(event, ResourceNoticeEvent):
            await self.send(agent_text(f"_{event.message}_\n\n"))
            return
        if isinstance(event, TodoUpdateEvent):
            await self.send(plan_update(event.items))
            return
        if isinstance(event, ModeUpdateEvent):
            await self.send(
                ConfigOptionUpdate(
                    session_update="config_option_update", config_options=self.config_options()
                )
            )
            return
        if isinstance(event, ToolExecutionStartEvent) and event.tool_name == "write":
            await self._remember_old_text(event)
        for update in self.live.map(event):
            await self.send(update)
        if isinstance(event, ToolExecutionEndEvent) and event.tool_name == "write":
            self._record_old_text(event.tool_call_id)
        if isinstance(event, ToolExecutionEndEvent):
            self.background.tool_ended(
                event.tool_call_id,
                event.tool_name == "bash" and still_running(event.result.details),
            )
        if isinstance(event, MessageEndEvent) and isinstance(event.message, AssistantMessage):
            await self.send(self.usage())

    async def _remember_old_text(self, event: ToolExecutionStartEvent) -> None:
        path = getattr(event.args, "path", None)
        if not isinstance(path, str):
            return
        workspace = self.opened.workspace
        try:
            target = workspace.resolve(path)
            if await workspace.exists(target) and not await workspace.is_dir(target):
                document = await workspace.read_document(target)
                if len(document.text) <= OLD_TEXT_LIMIT:
                    self.live.old_texts[event.tool_call_id] = document.text
        except Exception as exc:  # the tool reports its own errors
            log.debug("no old text for %s: %s", path, exc)

    def _record_old_text(self, call_id: str) -> None:
        text = self.live.old_texts.pop(call_id, None)
        if text is None:
            return
        try:
            self.session.tree.append_custom(
                OLD_TEXT_ENTRY, {"toolCallId": call_id, "oldText": text}
            )
        except Exception as exc:
            log.warning("could not record the replaced text: %s", exc)

    # ------------------------------------------------------------------ prompting

    @property
    def running(self) -> bool:
        return self._turn is not None and not self._turn.done()

    async def prompt(self, blocks: Sequence[Any], deliver: str | None = None) -> StopReason:
        if self.running and (self._cancel_requested or self._compacting):
            assert self._turn is not None
            await asyncio.shield(self._turn)  # a cancelled run or a compaction finishes first
        text = prompt_text(blocks)
        if not self.running and self._settle_trust is not None:
            settle, self._settle_trust = self._settle_trust, None
            await settle()  # before this prompt's resources load
        if not self.running and text.startswith("/compact"):
            return await self._compact(text[len("/compact") :].strip() or None)
        if not self.running and _is_code_review(text):
            return await self._review(text)
        if text.split(maxsplit=1)[:1] in (["/context"], ["/reload"]):
            if self._turn is not None and self.running:  # after the turn, never to the model
                await asyncio.wait({self._turn})
            return await self._resources_command(text.split(maxsplit=1)[0][1:])
        if text.startswith("/export"):
            await self._export(text[len("/export") :].strip() or None)
            return "end_turn"
        carry_out = None if self.running else self._carry_out_text
        if carry_out is not None:  # the plan the user approved, then what they typed
            blocks = [TextContentBlock(type="text", text=carry_out + "\n\n"), *blocks]
        message = to_message(blocks, images_allowed="image" in self.session.model.input)
        if len(message.content) == 1 and not message_text(message).strip():
            return "end_turn"  # an empty prompt: nothing to ask the model
        if self.running:
            await self._queue(message, deliver)
        else:
            self._carry_out_text = None
            shown: list[SessionUpdate] = []
            if not self._titled and text:
                self._titled = True
                shown.append(
                    SessionInfoUpdate(
                        session_update="session_info_update",
                        title=_title(text),
                        updated_at=datetime.now(UTC).isoformat().replace("+00:00", "Z"),
                    )
                )
            if carry_out is not None:
                shown.append(agent_text(CARRY_OUT_NOTICE))
            # the turn exists before anything is awaited (the title is sent by the turn):
            # a prompt arriving meanwhile is queued behind it instead of racing it
            self._cancel_requested = False
            self._jobs_mark = self.session.jobs.mark()
            self._turn = asyncio.get_running_loop().create_task(self._drive(message, shown))
            self._turn.add_done_callback(_retrieved)
        turn = self._turn
        assert turn is not None
        try:
            await asyncio.shield(turn)
        except Exception as exc:  # never a silent end_turn for a prompt that did not run
            raise RequestError.internal_error(
                {"message": f"the prompt could not run: {exc}"}
            ) from exc
        return self.stop_reason()

    def _carry_out(self, text: str) -> None:
        """The follow-up of a switch to ``act``: queued during a turn (the waiting prompts
        see it carried out), else kept for the next prompt."""
        if self.running:
            message = to_message([TextContentBlock(type="text", text=text)], images_allowed=False)
            self.session.follow_up(message)
            return
        self._carry_out_text = text

    async def _queue(self, message: Any, deliver: str | None) -> None:
        session = self.session
        if deliver == "steer":
            session.steer(message)
            steering, _ = session.queue_items()
            notice = (
                f"Steering message {len(steering)} queued: the agent reads it after its "
                "current step."
            )
        else:
            session.follow_up(message)
            _, follow_ups = session.queue_items()
            notice = f"Queued as follow-up {len(follow_ups)}: sent when the current run finishes."
        await self.send(agent_text(f"\n\n_{notice}_\n\n"))

    async def _drive(self, message: Any, shown: Sequence[SessionUpdate] = ()) -> None:
        try:
            for update in shown:
                await self.send(update)
                if self._cancel_requested or self.closed:
                    return  # cancelled while the update was being sent: nothing runs
            self.session.prompt(message)
            while True:
                await self.session.wait_for_idle()
                if self._cancel_requested or self.closed:
                    return
                queued = self.session.take_next_queued()
                if queued is None:
                    return
                self.session.prompt(queued)  # a message queued just as the run ended
        except Exception:
            log.exception("session %s: the run failed", self.session_id)
            raise  # the prompts waiting on this turn answer with the error

    def stop_reason(self) -> StopReason:
        if self._cancel_requested:
            return "cancelled"
        last = next(
            (m for m in reversed(self.session.messages) if isinstance(m, AssistantMessage)),
            None,
        )
        if last is None:
            return "end_turn"
        if last.stop_reason == "length":
            return "max_tokens"
        if last.stop_reason == "aborted":
            return "cancelled"
        return "end_turn"  # "error" too: the failure was sent as an agent message

    async def announce_commands(self) -> None:
        """The commands alone (after ``session/load``'s response)."""
        await self.send(commands_update(self.session.project_resources))

    async def _resources_command(self, name: str) -> StopReason:
        """``/context`` (what was loaded) and ``/reload`` (load again now): answered here,
        no model call."""
        if name == "reload":
            self._told_reloads += 1  # sent here, before the response, not by _on_event
            if self.session.reload_resources() is None:
                self._told_reloads -= 1
            await self.send(commands_update(self.session.project_resources))
        project = self.session.project_resources
        payload = project.payload() if project is not None else None
        prefix = "Reloaded.\n\n" if name == "reload" else ""
        await self.send(agent_text(prefix + context_text(payload)))
        return "end_turn"

    async def _compact(self, instructions: str | None) -> StopReason:
        from ..sessions.compaction.summarize import CompactionError

        async def run() -> None:
            try:
                result = await self.session.compact("manual", custom_instructions=instructions)
            except CompactionError as exc:
                await self.send(agent_text(f"Compaction failed: {exc}"))
                return
            except Exception as exc:
                log.exception("compaction failed")
                await self.send(agent_text(f"Compaction failed: {exc}"))
                return
            if result is None:
                await self.send(agent_text("Nothing to compact yet."))
            else:
                await self.send(agent_text("The conversation was compacted."))
                await self.send(self.usage())

        self._cancel_requested = False
        self._compacting = True
        self._turn = asyncio.get_running_loop().create_task(run())
        self._turn.add_done_callback(lambda _: setattr(self, "_compacting", False))
        await asyncio.shield(self._turn)
        return self.stop_reason()

    async def _review(self, text: str) -> StopReason:
        """``/review [--base REF | --commit SHA]``: the findings as a message, tool calls with
        their locations and a plan (``review.py``)."""
        from ..codereview import ReviewError, parse_review_command, run_review
        from .review import review_updates

        async def run() -> None:
            try:
                target = parse_review_command(text)
                if target is None:  # _is_code_review said it is one
                    raise ValueError("not a code review")
                review = asyncio.ensure_future(run_review(self.session.config, self.cwd, target))
                self._review_task = review
                report = await review
            except (ValueError, ReviewError) as exc:
                await self.send(agent_text(f"Review: {exc}"))
                return
            except asyncio.CancelledError:
                if not self._cancel_requested:
                    raise  # the turn itself is being cancelled (shutdown)
                await self.send(agent_text("Review cancelled."))
                return
            finally:
                self._review_task = None
            self._reviews += 1
            for update in review_updates(report, self.cwd, f"review-{self._reviews}"):
                await self.send(update)

        self._cancel_requested = False
        self._turn = asyncio.get_running_loop().create_task(run())
        self._turn.add_done_callback(_retrieved)
        await asyncio.shield(self._turn)
        return "cancelled" if self._cancel_requested else "end_turn"

    async def _export(self, where: str | None) -> None:
        """``/export [PATH]``: the session as an HTML page (docs/sessions.md#export)."""
        from ..sessions.export import write_export

        file = self.session.file
        if file is None:
            await self.send(agent_text("This session has no file to export."))
            return
        default = f"pi-session-{self.session_id}.html"
        fmt: Literal["html", "markdown"] = "markdown" if (where or "").endswith(".md") else "html"

        def write() -> Path:
            target = self.cwd / Path(where).expanduser() if where else None
            return write_export(file, target or Path(tempfile.gettempdir()) / default, fmt)

        try:
            written = await asyncio.to_thread(write)
        except OSError as exc:
            await self.send(agent_text(f"Could not export the session: {exc}"))
            return
        await self.send(agent_text(f"Exported the session to {written}"))

    # ------------------------------------------------------------------ cancel / close

    def cancel(self) -> None:
        """Clear the queues, withdraw questions, abort, and kill the background processes
        this prompt started (those of earlier prompts keep running: docs/acp.md). Never
        raises."""
        if not self.running:
            return
        self.session.jobs.kill_started_since(self._jobs_mark)
        self._cancel_requested = True
        if self._review_task is not None:
            self._review_task.cancel()
        self.session.clear_queues()
        self.permissions.withdraw_all()
        if self.questions is not None:
            self.questions.withdraw_all()
        self.session.abort()

    async def close(self) -> None:
        self.cancel()
        if self._turn is not None:
            await asyncio.wait({self._turn})
        await self.session.wait_for_idle()
        await self.background.finish_all()
        self._unsubscribe()
        self.closed = True
        await self.opened.close()
        self.background.close()
