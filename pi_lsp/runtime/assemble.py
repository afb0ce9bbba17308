"""The one place an ``Agent`` is built for a front end."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..agent import Agent
from ..ai import Model, StreamOptions
from ..resources import Resources
from ..tools import (
    BashOptions,
    ProcessRegistry,
    Workspace,
    build_system_prompt,
    create_coding_tools,
)
from ..tools.code_intel import CodeIntel
from ..tools.lsp import LspTool
from ..tools.read_areas import ReadAreas


def build_agent(
    workspace: Workspace,
    *,
    registry: ProcessRegistry,
    api_key_env: str | None = None,
    system_prompt_append: str | None = None,
    before_tool_call: Any = None,
    stream_options: StreamOptions | None = None,
    model: Model | None = None,
    stream_fn: Any = None,
    get_api_key: Callable[[str], str | None] | None = None,
    resources: Resources | None = None,
    read_areas: ReadAreas | None = None,
    code_intel: CodeIntel | None = None,
) -> Agent:
    """An agent with the coding tools over ``workspace``.

    The bash tool runs its commands through ``registry`` (so a front end can kill them all)
    in an environment without the server's secrets; ``api_key_env`` names one more variable
    to keep out of it (a key the user configured under their own name). The system prompt
    describes the workspace and the tools, plus ``system_prompt_append``, and the project's
    ``resources`` (docs/context.md); ``read_areas`` are the directories outside the workspace
    the read-only tools may read (the skills'). With ``code_intel`` the agent has the
    ``lsp`` tool too (docs/tools.md#lsp).
    """
    secret_env = frozenset({api_key_env}) if api_key_env else frozenset()
    tools = create_coding_tools(
        workspace,
        bash=BashOptions(process_registry=registry, extra_secret_env=secret_env),
        read_areas=read_areas,
    )
    if code_intel is not None:
        tools.append(LspTool(workspace, code_intel))
    kwargs: dict[str, Any] = {}
    if model is not None:
        kwargs["model"] = model
    if stream_fn is not None:
        kwargs["stream_fn"] = stream_fn
    if get_api_key is not None:
        kwargs["get_api_key"] = get_api_key
    return Agent(
        system_prompt=build_system_prompt(
            workspace, tools, extra=system_prompt_append, resources=resources
        ),
        tools=tools,
        before_tool_call=before_tool_call,
        stream_options=stream_options,
        **kwargs,
    )
