"""The ``ask`` tool: the model asks the user a question with choices instead of guessing
(docs/tools.md#ask-question-options-label-description-allowfreetext-multiselect).

``{question, options: [{label, description?}] (2–6), allowFreeText?, multiSelect?}``. The
question goes to an ``Asker`` the front end supplies (a card in the editor, a message box, a
terminal prompt); the run waits for the answer, which is the tool result. A dismissed
question (``None``) is an error result saying so. Must not import anything above tools/.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from ..agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from ..ai import AbortSignal
from .common import ToolError, ToolParams, text_result, throw_if_aborted

DISMISSED = (
    "The user dismissed the question without answering. Do not assume an answer: continue "
    "with what you know, or stop and say what you need."
)


class AskOption(BaseModel):
    model_config = ConfigDict(frozen=True)

    label: str = Field(min_length=1, description="Short text of the choice (1-5 words)")
    description: str | SkipJsonSchema[None] = Field(
        default=None, description="What choosing it means (optional)"
    )


class AskParams(ToolParams):
    question: str = Field(min_length=1, description="The question, ending with '?'")
    options: list[AskOption] = Field(
        min_length=2, max_length=6, description="2 to 6 distinct choices"
    )
    allow_free_text: bool = Field(
        default=False,
        alias="allowFreeText",
        description="Let the user type their own answer besides the choices",
    )
    multi_select: bool = Field(
        default=False, alias="multiSelect", description="Let the user pick several choices"
    )

    @model_validator(mode="after")
    def _distinct_labels(self) -> AskParams:
        labels = [o.label for o in self.options]
        if len(set(labels)) != len(labels):
            raise ValueError("option labels must be distinct")
        return self


@dataclass(frozen=True, slots=True)
class AskAnswer:
    answers: tuple[str, ...] = ()
    """The labels the user chose (in the options' order)."""
    text: str | None = None
    """What the user typed, if anything."""
    free_text_unavailable: bool = False
    """The front end could only offer one of the options: no text field, no multiple choice
    (a plain LSP message box)."""


class Asker(Protocol):
    """Who puts the question to the user. ``None``: the user dismissed it (or the run was
    aborted while it waited)."""

    async def ask(
        self, tool_call_id: str, params: AskParams, signal: AbortSignal | None
    ) -> AskAnswer | None: ...


def answer_text(params: AskParams, answer: AskAnswer) -> str:
    """The tool result the model reads."""
    lines: list[str] = []
    if answer.answers:
        chosen = ", ".join(f'"{label}"' for label in answer.answers)
        lines.append(f"The user chose {chosen}.")
    if answer.text:
        lines.append(f"The user wrote: {answer.text}")
    if not lines:
        lines.append("The user answered without choosing an option or writing anything.")
    if params.allow_free_text and answer.free_text_unavailable:
        lines.append("(This editor could only offer the listed choices, not a free-text answer.)")
    if params.multi_select and answer.free_text_unavailable:
        lines.append("(This editor could only offer one choice, not several.)")
    return "\n".join(lines)


class AskTool(AgentTool[AskParams]):
    name: ClassVar[str] = "ask"
    label: ClassVar[str] = "ask"
    description: ClassVar[str] = (
        "Ask the user a question with 2-6 choices and wait for the answer. Use it when a "
        "decision is the user's (which approach, which file, unclear requirements) and "
        "guessing wrong would waste work; not for things you can find out yourself by "
        "reading the code, and not to ask permission for routine steps. Keep labels short, "
        "put details in descriptions; set multiSelect when several choices can apply and "
        "allowFreeText when the right answer may not be listed."
    )
    parameters: ClassVar[type[AskParams]] = AskParams
    read_only: ClassVar[bool] = True
    prompt_snippet: ClassVar[str] = "Ask the user a multiple-choice question and wait"
    prompt_guidelines: ClassVar[tuple[str, ...]] = ()

    def __init__(self, asker: Asker):
        self.asker = asker

    async def execute(
        self,
        tool_call_id: str,
        params: AskParams,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        throw_if_aborted(signal)
        answer = await self.asker.ask(tool_call_id, params, signal)
        throw_if_aborted(signal)
        if answer is None:
            raise ToolError(DISMISSED)
        known = {o.label for o in params.options}
        chosen = tuple(a for a in answer.answers if a in known)
        text = answer.text
        strays = [a for a in answer.answers if a not in known]
        if strays:  # a label the client made up: keep it as what the user said
            text = "; ".join([*strays, *([text] if text else [])])
        if not params.multi_select and len(chosen) > 1:
            chosen = chosen[:1]
        final = AskAnswer(chosen, text or None, answer.free_text_unavailable)
        details = {"answers": list(final.answers), "text": final.text}
        return text_result(answer_text(params, final), details)
