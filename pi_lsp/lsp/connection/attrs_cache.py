"""A disk cache for the methods attrs generates while lsprotocol is imported.

``import lsprotocol.types`` defines ~570 attrs classes; attrs writes the source of each
class's ``__init__`` / ``__eq__`` / ``__repr__`` … and ``compile()``s it: ≈ 550 compilations,
about half of the import (≈ 0.25 s of 0.5 s here). The generated source depends only on the
class definitions, so its code objects can be kept: ``attrs_code_cache()`` wraps attrs'
compile-and-eval step while the server's modules are imported, looks each script up by a
hash of its text and file name, and compiles only what it has not seen. The code objects are
stored with ``marshal`` next to nothing else, in the user cache directory, one file per
Python bytecode version and attrs version.

Clever, so careful:
- a hit returns exactly what ``compile`` would (same text, file name and ``__future__``
  flags as attrs' own call; the key is the text itself, so another attrs or lsprotocol
  version only misses);
- anything unexpected (attrs without that private function, an unreadable or corrupt file,
  an unwritable directory) falls back to attrs' own path silently; ``PI_LSP_NO_CODE_CACHE=1``
  turns it off;
- the file is trusted like ``__pycache__``: whoever can write the user's cache directory can
  already change what the user's Python runs.
Standard library only, and only what answering ``initialize`` already loads, at import time.
"""

from __future__ import annotations
import __future__

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import CodeType
from typing import Any

from ...runtime.cache_dir import cache_dir

log = logging.getLogger(__name__)

DISABLE_ENV = "PI_LSP_NO_CODE_CACHE"


def _future_flags(module: Any) -> int:
    """The ``__future__`` flags ``compile`` inherits inside ``module`` (attrs' own call)."""
    flags = 0
    for value in vars(module).values():
        if isinstance(value, __future__._Feature):
            flags |= value.compiler_flag
    return flags


def _key(script: str, filename: str) -> str:
    import hashlib

    return hashlib.blake2b(f"{filename}\0{script}".encode(), digest_size=16).hexdigest()


def _load(path: Path) -> dict[str, CodeType]:
    import marshal

    try:
        with path.open("rb") as fh:
            data = marshal.load(fh)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, CodeType)}


def _store(path: Path, codes: dict[str, CodeType]) -> None:
    import marshal
    import tempfile

    with contextlib.suppress(OSError, ValueError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                marshal.dump(codes, fh)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


@contextlib.contextmanager
def attrs_code_cache(directory: Path | None = None) -> Iterator[None]:
    """While the block runs, attrs' generated methods come from (and go to) the cache."""
    if os.environ.get(DISABLE_ENV):
        yield
        return
    try:
        import attr
        from attr import _make
    except ImportError:  # pragma: no cover - lsprotocol depends on attrs
        yield
        return
    original = getattr(_make, "_compile_and_eval", None)
    if original is None:  # another attrs: its own path
        yield
        return
    version = getattr(attr, "__version__", "unknown")
    path = (directory or cache_dir()) / f"attrs-code-{sys.implementation.cache_tag}-{version}.bin"
    codes = _load(path)
    flags = _future_flags(_make)
    missed = 0

    def compile_and_eval(
        script: str,
        globs: dict[str, Any] | None,
        locs: Any = None,
        filename: str = "",
    ) -> None:
        nonlocal missed
        key = _key(script, filename)
        code = codes.get(key)
        if code is None:
            code = compile(script, filename, "exec", flags=flags, dont_inherit=True)
            codes[key] = code
            missed += 1
        eval(code, globs, locs)

    _make._compile_and_eval = compile_and_eval
    try:
        yield
    finally:
        _make._compile_and_eval = original
        if missed:
            _store(path, codes)
            log.debug("attrs code cache: %d new code objects stored in %s", missed, path)
