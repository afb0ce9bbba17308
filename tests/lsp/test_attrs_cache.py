"""The attrs code cache (``lsp/connection/attrs_cache.py``): lsprotocol's generated methods
come from the cache on the second start, behave the same, and anything odd falls back to
attrs' own compile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pi_lsp.lsp.connection import attrs_cache

# A fresh interpreter imports lsprotocol under the cache and reports what it saw.
PROBE = """
import json, sys
from pathlib import Path
from pi_lsp.lsp.connection import attrs_cache
from attr import _make
compiled = []
real_compile = compile
def counting(*args, **kwargs):
    compiled.append(1)
    return real_compile(*args, **kwargs)
attrs_cache.compile = counting  # the cache's misses
with attrs_cache.attrs_code_cache(Path(sys.argv[1])):
    import lsprotocol.types as t
p = t.Position(line=1, character=2)
r = t.Range(start=p, end=t.Position(line=3, character=4))
print(json.dumps({
    "misses": len(compiled),
    "restored": _make._compile_and_eval.__module__ == "attr._make",
    "repr": repr(r) + " " + repr(t.MessageActionItem(title="x")),
    "eq": p == t.Position(line=1, character=2) and p != t.Position(line=1, character=3),
    "hash_frozen": hasattr(t.Position, "__attrs_attrs__"),
}))
"""


def probe(directory: Path, **env: str) -> dict[str, object]:
    res = subprocess.run(
        [sys.executable, "-c", PROBE, str(directory)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **env},
    )
    return dict(json.loads(res.stdout))


def test_the_second_start_compiles_nothing_and_behaves_the_same(tmp_path: Path) -> None:
    first = probe(tmp_path)
    assert isinstance(first["misses"], int)
    assert first["misses"] > 100
    files = list(tmp_path.iterdir())
    assert len(files) == 1
    assert files[0].name.startswith("attrs-code-")
    second = probe(tmp_path)
    assert second["misses"] == 0
    for result in (first, second):
        assert result["restored"]
        assert result["eq"]
        assert result["hash_frozen"]
    assert first["repr"] == second["repr"]
    assert "MessageActionItem(title='x')" in str(second["repr"])  # attrs' generated repr


def test_a_corrupt_cache_file_is_ignored_and_replaced(tmp_path: Path) -> None:
    probe(tmp_path)
    (cache,) = tmp_path.iterdir()
    cache.write_bytes(b"not marshal data")
    again = probe(tmp_path)
    assert isinstance(again["misses"], int)
    assert again["misses"] > 100
    assert again["eq"]
    assert probe(tmp_path)["misses"] == 0


def test_it_can_be_turned_off(tmp_path: Path) -> None:
    result = probe(tmp_path, **{attrs_cache.DISABLE_ENV: "1"})
    assert result["misses"] == 0
    assert result["eq"]
    assert list(tmp_path.iterdir()) == []


def test_loading_tolerates_anything(tmp_path: Path) -> None:
    assert attrs_cache._load(tmp_path / "missing.bin") == {}
    odd = tmp_path / "odd.bin"
    odd.write_bytes(b"\x00\x01")
    assert attrs_cache._load(odd) == {}


def test_an_unwritable_directory_is_not_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    attrs_cache._store(blocker / "sub" / "x.bin", {})  # parent is a file: silently skipped
