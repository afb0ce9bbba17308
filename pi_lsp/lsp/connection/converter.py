"""A cattrs converter that keeps custom (``pi/*``) params and results as plain dicts.

pygls' default converter turns untyped params into namedtuples (PYGLS_NOTES gotcha 1); ours
leaves them as the JSON dicts they are, to be validated into pydantic models at the handler
boundary. Used by the server and by test clients alike.
"""

from __future__ import annotations

from typing import Any

from cattrs import Converter
from lsprotocol import converters
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage


def _keep_params(obj: dict[str, Any], cls: type[Any]) -> Any:
    return cls(**obj)


def dict_converter() -> Converter:
    converter = converters.get_converter()
    for cls in (JsonRPCRequestMessage, JsonRPCResponseMessage, JsonRPCNotification):
        converter.register_structure_hook(cls, _keep_params)
    return converter
