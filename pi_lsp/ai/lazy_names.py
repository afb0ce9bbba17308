"""A package's names loaded on first use (PEP 562): ``__getattr__ = lazy_names(__name__, SOURCES)``.

``SOURCES`` maps each public name to the (relative) module that defines it; the first access
imports that module and caches the value in the package's namespace, so later accesses are
plain attribute reads. Packages keep the same imports under ``TYPE_CHECKING`` for mypy and
the layer tests. Standard library only; must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, sources: Mapping[str, str]) -> Callable[[str], Any]:
    """The module-level ``__getattr__`` for ``package`` (which is being imported)."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        source = sources.get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source, package), name)
        namespace[name] = value
        return value

    return __getattr__
