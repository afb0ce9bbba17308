"""A pydantic ``TypeAdapter`` built on first use.

Building the adapter of a large union (every session entry, every agent message) costs
10–20 ms; at module level that is paid by every start-up, including ``pi-lsp run`` runs that
never read a session file. Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import TypeAdapter

T = TypeVar("T")


class LazyTypeAdapter(Generic[T]):
    """The ``TypeAdapter`` methods the code base uses, on an adapter built when first called."""

    __slots__ = ("_adapter", "_type")

    def __init__(self, tp: Any) -> None:
        self._type = tp
        self._adapter: TypeAdapter[T] | None = None

    @property
    def adapter(self) -> TypeAdapter[T]:
        adapter = self._adapter
        if adapter is None:
            adapter = self._adapter = TypeAdapter(self._type)
        return adapter

    def validate_python(self, obj: Any, **kwargs: Any) -> T:
        return self.adapter.validate_python(obj, **kwargs)

    def validate_json(self, data: str | bytes | bytearray, **kwargs: Any) -> T:
        return self.adapter.validate_json(data, **kwargs)

    def dump_python(self, value: T, **kwargs: Any) -> Any:
        return self.adapter.dump_python(value, **kwargs)

    def dump_json(self, value: T, **kwargs: Any) -> bytes:
        return self.adapter.dump_json(value, **kwargs)

    def json_schema(self, **kwargs: Any) -> dict[str, Any]:
        return self.adapter.json_schema(**kwargs)
