"""A cattrs converter that keeps custom (``pi/*``) params and results as plain dicts.

pygls' default converter (``pygls.protocol.default_converter``) structures the params of a
method it has no lsprotocol type for into namedtuples, so a ``pi/*`` handler would get
attribute access on a tuple instead of the JSON object the client sent; ours leaves them as
the JSON dicts they are, to be validated into pydantic models at the handler boundary
(``lsp/protocol/models.py``). Used by the server and by test clients alike.

One converter per process: cattrs generates (``compile``s) the structuring code of each
lsprotocol type the first time it meets it, on the converter that meets it, and that is most
of the cost of a first message. Every server and client of the process share the work.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from cattrs import Converter
from lsprotocol import converters
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage


def _keep_params(obj: dict[str, Any], cls: type[Any]) -> Any:
    return cls(**obj)


@cache
def dict_converter() -> Converter:
    """The process's converter (built on first use; it holds no per-connection state)."""
    converter = converters.get_converter()
    for cls in (JsonRPCRequestMessage, JsonRPCResponseMessage, JsonRPCNotification):
        converter.register_structure_hook(cls, _keep_params)
    return converter
