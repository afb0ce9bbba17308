"""The ``task`` tool: the model hands a piece of work to a child agent with its own context
(docs/subagents.md#the-task-tool).

``task {description, prompt, agent?, isolation?}``. Several ``task`` calls in one assistant
message run in parallel (bounded per root by ``Subagents``). The result is the child's final
text with a one-line summary (turns, tokens, cost, session id); a child that failed or was
cancelled is an error result with the reason and its partial text.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar, Literal

from pydantic import Field

from ..agent.types import AgentTool, AgentToolResult, ToolUpdateCallback, clean_json_schema
from ..ai import AbortSignal, TextContent, Tool
from ..tools.common import ToolError, ToolParams
from .definitions import GENERAL
from .runner import Subagents

MAX_LISTED = 40


class TaskParams(ToolParams):
    description: str = Field(description="A short (3-5 words) description of the task")
    prompt: str = Field(
        description="The task for the agent: everything it needs to know, since it does not "
        "see this conversation"
    )
    agent: str | None = Field(default=None, description=f'Which agent to use (default "{GENERAL}")')
    isolation: Literal["worktree"] | None = Field(
        default=None,
        description='"worktree": the agent works in its own git worktree; its changes come '
        "back for the user's review when it ends",
    )


BASE_DESCRIPTION = (
    "Hand a self-contained task to a subagent that works in its own context with its own "
    "tools and returns only its final answer. Use it for research that would fill your "
    "context, or for independent pieces of work; send several task calls in one message to "
    "run them in parallel. The agent does not see this conversation: the prompt must say "
    "everything it needs. Its answer is not shown to the user: summarise it."
)


class TaskTool(AgentTool[TaskParams]):
    name: ClassVar[str] = "task"
    label: ClassVar[str] = "task"
    description: ClassVar[str] = BASE_DESCRIPTION
    parameters: ClassVar[type[TaskParams]] = TaskParams
    prompt_snippet: ClassVar[str] = "Run a subagent on a self-contained task (several at once)"

    def __init__(self, subagents: Subagents) -> None:
        self.subagents = subagents
        self._definition: tuple[str, Tool] | None = None

    def to_tool(self) -> Tool:
        """The definition, with the agents available now listed in the description."""
        text = describe_agents(self.subagents)
        if self._definition is None or self._definition[0] != text:
            self._definition = (
                text,
                Tool(
                    name=self.name,
                    description=f"{BASE_DESCRIPTION}\n\nAvailable agents:\n{text}",
                    parameters=_parameters(),
                ),
            )
        return self._definition[1]

    async def execute(
        self,
        tool_call_id: str,
        params: TaskParams,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        outcome = await self.subagents.run_task(
            tool_call_id,
            params.agent or GENERAL,
            params.description,
            params.prompt,
            isolation=params.isolation,
            signal=signal,
            on_update=on_update,
        )
        if outcome.is_error:
            raise ToolError(outcome.text)
        details: dict[str, Any] = outcome.details
        return AgentToolResult(content=[TextContent(text=outcome.text)], details=details)


@functools.cache
def _parameters() -> dict[str, Any]:
    """The parameters' JSON schema, made once per process (pydantic takes ~10 ms)."""
    return clean_json_schema(TaskParams.model_json_schema(by_alias=True))


def describe_agents(subagents: Subagents) -> str:
    catalog = subagents.catalog()
    names = catalog.names()
    lines = [f"- {n}: {catalog.agents[n].description}" for n in names[:MAX_LISTED]]
    if len(names) > MAX_LISTED:
        lines.append(f"…and {len(names) - MAX_LISTED} more")
    return "\n".join(lines)
