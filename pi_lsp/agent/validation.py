"""Tool-argument validation: the model's raw arguments into the tool's pydantic model.

Pydantic's lax mode does the coercion pi gets from TypeBox ``Value.Convert`` (``"5"`` -> ``5``).
A failure raises ``ToolArgumentsError`` whose text is pi's exact format::

    Validation failed for tool "<name>":
      - <dotted.path | root>: <message>

    Received arguments:
    <JSON, indent 2>

Must not import pygls/lsprotocol or anything above agent/.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ValidationError

from .types import ToolFailure


class ToolArgumentsError(ToolFailure, ValueError):
    """The arguments do not fit the tool's parameters; ``str()`` is the model-facing text."""


def format_error_path(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "root"


def validate_tool_arguments(name: str, parameters: type[BaseModel], args: Any) -> BaseModel:
    """Validate (with coercion) ``args`` into ``parameters``; raise ``ToolArgumentsError``."""
    try:
        return parameters.model_validate(args, strict=False)
    except ValidationError as exc:
        lines = (
            "\n".join(f"  - {format_error_path(err['loc'])}: {err['msg']}" for err in exc.errors())
            or "Unknown validation error"
        )
        received = json.dumps(args, indent=2, ensure_ascii=False, default=str)
        raise ToolArgumentsError(
            f'Validation failed for tool "{name}":\n{lines}\n\nReceived arguments:\n{received}'
        ) from None
