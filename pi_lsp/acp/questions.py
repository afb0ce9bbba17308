"""The ``ask`` tool's questions, put to an ACP client.

A client that advertises ``clientCapabilities.elicitation.form`` gets ``elicitation/create``
(form mode, tied to the session and the tool call): one ``answer`` property — a single choice
(``oneOf``) or, with ``multiSelect``, several (``anyOf``) — plus a ``text`` property when the
model allowed free text; ``accept`` is the answer, ``decline`` / ``cancel`` dismiss it.

Any other client gets ``session/request_permission`` for the ask tool call, with one
``allow_once`` option per choice and a ``Dismiss`` (``reject_once``) option: one choice, no
free text (``AskAnswer.free_text_unavailable``, so the tool result says so, as the language
server's message-box fallback does). A ``reject`` or ``cancelled`` outcome dismisses it.

While a question waits the run waits; an abort (``session/cancel``) withdraws it and the
question counts as dismissed. A client error counts as dismissed too. Imports the SDK's
schema, ``tools.ask`` and ``ai.abort`` only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from acp.schema import (
    AcceptElicitationResponse,
    AllowedOutcome,
    CancelElicitationResponse,
    DeclineElicitationResponse,
    ElicitationFormSessionMode,
    ElicitationMultiSelectPropertySchema,
    ElicitationSchema,
    ElicitationStringPropertySchema,
    EnumOption,
    OtherElicitationResponse,
    PermissionOption,
    RequestPermissionResponse,
    TitledMultiSelectItems,
    ToolCallUpdate,
)

from ..ai.abort import AbortSignal, done_before_abort
from ..tools.ask import AskAnswer, AskParams

log = logging.getLogger("pi_lsp.acp")

DISMISS = "dismiss"
ANSWER = "answer"
TEXT = "text"
T = TypeVar("T")
ElicitationAnswer = (
    AcceptElicitationResponse
    | DeclineElicitationResponse
    | CancelElicitationResponse
    | OtherElicitationResponse
)
RequestPermission = Callable[
    [ToolCallUpdate, list[PermissionOption]], Awaitable[RequestPermissionResponse]
]
Elicit = Callable[[str, ElicitationFormSessionMode], Awaitable[ElicitationAnswer]]


def choice_options(params: AskParams) -> list[PermissionOption]:
    """One ``allow_once`` option per choice (id ``choice-N``), then ``Dismiss``."""
    options = [
        PermissionOption(
            option_id=f"choice-{i}",
            name=f"{o.label} — {o.description}" if o.description else o.label,
            kind="allow_once",
        )
        for i, o in enumerate(params.options)
    ]
    options.append(PermissionOption(option_id=DISMISS, name="Dismiss", kind="reject_once"))
    return options


def form_schema(params: AskParams) -> ElicitationSchema:
    choices = [
        EnumOption(const=o.label, title=o.label, description=o.description) for o in params.options
    ]
    answer: Any
    if params.multi_select:
        answer = ElicitationMultiSelectPropertySchema(
            type="array", title="Choose", items=TitledMultiSelectItems(any_of=choices)
        )
    else:
        answer = ElicitationStringPropertySchema(type="string", title="Choose", one_of=choices)
    properties: dict[str, Any] = {ANSWER: answer}
    if params.allow_free_text:
        properties[TEXT] = ElicitationStringPropertySchema(
            type="string", title="Or write your own answer"
        )
    return ElicitationSchema(
        type="object",
        properties=properties,
        required=None if params.allow_free_text else [ANSWER],
    )


def from_form(content: dict[str, Any] | None) -> AskAnswer:
    content = content or {}
    raw = content.get(ANSWER)
    answers = tuple(str(a) for a in raw) if isinstance(raw, list) else (str(raw),) if raw else ()
    text = content.get(TEXT)
    return AskAnswer(answers, text if isinstance(text, str) and text.strip() else None)


@dataclass(slots=True)
class AcpQuestions:
    """One per session: the ``ask`` handler given to ``create_agent_session``."""

    request_permission: RequestPermission
    elicit: Elicit | None = None
    """Set when the client advertises form elicitation."""
    session_id: str = ""
    pending: set[asyncio.Future[Any]] = field(default_factory=set)

    async def ask(
        self, tool_call_id: str, params: AskParams, signal: AbortSignal | None
    ) -> AskAnswer | None:
        try:
            if self.elicit is not None:
                return await self._form(tool_call_id, params, signal)
            return await self._choices(tool_call_id, params, signal)
        except Exception as exc:  # the client failed: dismissed
            log.info("question not answered: %s", exc or type(exc).__name__)
            return None

    async def _form(
        self, tool_call_id: str, params: AskParams, signal: AbortSignal | None
    ) -> AskAnswer | None:
        assert self.elicit is not None
        mode = ElicitationFormSessionMode(
            session_id=self.session_id,
            tool_call_id=tool_call_id,
            requested_schema=form_schema(params),
        )
        answer = await self._wait(self.elicit(params.question, mode), signal)
        if not isinstance(answer, AcceptElicitationResponse):
            return None
        return from_form(answer.content)

    async def _choices(
        self, tool_call_id: str, params: AskParams, signal: AbortSignal | None
    ) -> AskAnswer | None:
        tool_call = ToolCallUpdate(
            tool_call_id=tool_call_id,
            title=params.question,
            kind="other",
            status="pending",
            raw_input=params.model_dump(by_alias=True, exclude_none=True),
        )
        answer = await self._wait(
            self.request_permission(tool_call, choice_options(params)), signal
        )
        if answer is None or not isinstance(answer.outcome, AllowedOutcome):
            return None
        chosen = answer.outcome.option_id
        if not chosen.startswith("choice-") or not chosen[7:].isdigit():
            return None  # "dismiss" or an option we did not offer
        index = int(chosen[7:])
        if index >= len(params.options):
            return None
        return AskAnswer((params.options[index].label,), free_text_unavailable=True)

    async def _wait(self, request: Awaitable[T], signal: AbortSignal | None) -> T | None:
        """The client's answer, or ``None`` when the run was aborted (or the question
        withdrawn) first."""
        task = asyncio.ensure_future(request)
        self.pending.add(task)
        try:
            done = await done_before_abort(task, signal)
        finally:
            self.pending.discard(task)
        if not done:
            task.cancel()
            return None
        if task.cancelled():
            return None
        return task.result()  # a client error raises: dismissed by ``ask``

    def withdraw_all(self) -> None:
        for task in list(self.pending):
            task.cancel()
