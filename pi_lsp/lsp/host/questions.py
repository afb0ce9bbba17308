"""Putting the ``ask`` tool's questions to the editor (docs/protocol.md#piask-server--client).

A client that declared ``clientCapabilities.ask`` gets the request ``pi/ask {sessionId,
toolCallId, question, options, allowFreeText, multiSelect}`` → ``{answers, text?}`` or
``{cancelled: true}``. Any other client gets ``window/showMessageRequest`` with one action
per option (one choice, no free text: the tool result says so when free text was allowed).
While a question waits it is listed for ``pi/state`` (``pendingQuestions``); ``pi/abort``
withdraws it (``$/cancelRequest``) and the tool reports the question as dismissed. A client
error or an answer that does not parse counts as dismissed too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from ...ai.abort import AbortSignal
from ...tools.ask import AskAnswer, AskParams
from ..bridge import ClientBridge, RequestAborted
from ..protocol.models import ASK, AskOptionWire, AskRequestParams, AskResult
from ..settings import ClientFeatures

log = logging.getLogger(__name__)


def message_box_text(params: AskParams) -> str:
    """The question and each option's description, for a plain message box."""
    lines = [params.question]
    described = [o for o in params.options if o.description]
    if described:
        lines.append("")
        lines += [f"{o.label}: {o.description}" for o in described]
    return "\n".join(lines)


class Questions:
    """One per session: its open questions, asked the way the client supports."""

    def __init__(
        self, bridge: ClientBridge, features: Callable[[], ClientFeatures], session_id: str
    ) -> None:
        self._bridge = bridge
        self._features = features
        self.session_id = session_id
        self.pending: dict[str, dict[str, str]] = {}

    def pending_list(self) -> list[dict[str, str]]:
        return list(self.pending.values())

    async def ask(
        self, tool_call_id: str, params: AskParams, signal: AbortSignal | None
    ) -> AskAnswer | None:
        self.pending[tool_call_id] = {"toolCallId": tool_call_id, "question": params.question}
        try:
            if self._features().ask:
                return await self._request(tool_call_id, params, signal)
            return await self._message_box(params, signal)
        finally:
            self.pending.pop(tool_call_id, None)

    async def _request(
        self, tool_call_id: str, params: AskParams, signal: AbortSignal | None
    ) -> AskAnswer | None:
        wire = AskRequestParams(
            session_id=self.session_id,
            tool_call_id=tool_call_id,
            question=params.question,
            options=[
                AskOptionWire(label=o.label, description=o.description) for o in params.options
            ],
            allow_free_text=params.allow_free_text,
            multi_select=params.multi_select,
        )
        try:
            raw = await self._bridge.request(ASK, wire.to_wire(), signal)
        except (JsonRpcException, RequestAborted) as exc:
            log.info("question not answered: %s", exc or type(exc).__name__)
            return None
        try:
            answer = AskResult.model_validate(raw if raw is not None else {"cancelled": True})
        except ValueError:
            log.info("unusable pi/ask answer: %r", raw)
            return None
        if answer.cancelled:
            return None
        return AskAnswer(tuple(answer.answers), answer.text or None)

    async def _message_box(self, params: AskParams, signal: AbortSignal | None) -> AskAnswer | None:
        title = await self._bridge.ask(
            message_box_text(params),
            [o.label for o in params.options],
            kind=types.MessageType.Info,
            signal=signal,
        )
        if title is None:
            return None
        return AskAnswer((title,), free_text_unavailable=True)
