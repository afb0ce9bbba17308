"""Pieces every coding tool shares: the parameter base model, the error type, results, aborts.

Owns ``ToolParams`` (pydantic base whose JSON schema is what the model sees: camelCase
aliases, optional fields without ``null`` noise), ``ToolError`` (raised; its text is what the
model reads) and small result helpers. Must not import pygls/lsprotocol or anything above tools/.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from ..agent.types import AgentToolResult, ToolFailure, ToolUpdateCallback
from ..ai import AbortSignal, TextContent

if TYPE_CHECKING:
    from .workspace import Workspace

ABORTED_MESSAGE = "Operation aborted"


class ToolError(ToolFailure):
    """A tool failed; ``str(exc)`` is the error text the model reads (the loop sets isError)."""


def _drop_null_defaults(schema: dict[str, Any]) -> None:
    """Optional parameters are simply "not required" for the model: no ``default: null``."""
    for prop in schema.get("properties", {}).values():
        if isinstance(prop, dict) and "default" in prop and prop["default"] is None:
            del prop["default"]


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every ``$ref`` to ``$defs`` replaced by its definition (some providers
    reject references); the models here are not recursive."""
    defs: dict[str, Any] = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                target = walk(defs[ref.removeprefix("#/$defs/")])
                extra = {k: walk(v) for k, v in node.items() if k != "$ref"}
                return {**target, **extra}
            return {k: walk(v) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    result: dict[str, Any] = walk(schema)
    return result


class ToolParams(BaseModel):
    """Base of every tool's parameter model.

    Declare optional fields as ``int | SkipJsonSchema[None] = Field(default=None, ...)`` so the
    schema shows a plain ``{"type": "integer"}``; give camelCase wire names with ``alias``.
    Both the alias and the Python name are accepted when validating. The JSON schema has no
    ``$defs``: nested models are inlined.
    """

    model_config = ConfigDict(populate_by_name=True, json_schema_extra=_drop_null_defaults)

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return inline_refs(super().model_json_schema(*args, **kwargs))


def text_result(text: str, details: Any = None) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text=text)], details=details)


def throw_if_aborted(signal: AbortSignal | None) -> None:
    if signal is not None and signal.aborted:
        raise ToolError(ABORTED_MESSAGE)


async def emit_update(on_update: ToolUpdateCallback | None, result: AgentToolResult) -> None:
    """Call a (sync or async) update callback; a failing listener never breaks the tool."""
    if on_update is None:
        return
    try:
        maybe = on_update(result)
        if inspect.isawaitable(maybe):
            await maybe
    except Exception:  # listeners must not raise; the tool carries on
        return


def utf16_length(text: str) -> int:
    """``str.length`` in JavaScript: UTF-16 code units (Pi's ``write`` reports this)."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def format_number(value: float) -> str:
    """A number as JavaScript prints it in a template string (``1`` not ``1.0``)."""
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))


async def resolve_directory(workspace: Workspace, path: str | None) -> Path:
    """A model-given directory (default: the cwd), confined and checked: Pi's
    ``Path not found`` / ``Not a directory`` errors otherwise (find, ls)."""
    directory = workspace.resolve(path or ".")
    if not await workspace.exists(directory):
        raise ToolError(f"Path not found: {directory}")
    if not await workspace.is_dir(directory):
        raise ToolError(f"Not a directory: {directory}")
    return directory
