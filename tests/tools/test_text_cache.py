"""DiskWorkspace serves an unchanged file's text again without a worker thread (the lsp
tool's warm calls read the same few files each time), and never serves a stale one: any
rewrite — even of the same size with the old mtime put back — is read again, and a file
modified within the last seconds (coarse timestamps could hide a rewrite) is not cached."""

from __future__ import annotations

import os
import time
from pathlib import Path

import anyio.to_thread
import pytest

from pi_lsp.tools.disk_workspace import DiskWorkspace

OLD = time.time() - 3600


def old_file(path: Path, text: str) -> None:
    path.write_text(text)
    os.utime(path, (OLD, OLD))


async def test_an_unchanged_file_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.py"
    old_file(path, "one\n")
    ws = DiskWorkspace([tmp_path])
    assert (await ws.read_document(path)).text == "one\n"
    real = anyio.to_thread.run_sync
    hops: list[object] = []

    async def counted(*args: object, **kwargs: object) -> object:
        hops.append(args[0])
        return await real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    assert (await ws.read_document(path)).text == "one\n"
    assert hops == [], "an unchanged file went through a worker thread again"


async def test_a_rewrite_is_seen_even_with_the_same_size_and_mtime(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    old_file(path, "one\n")
    ws = DiskWorkspace([tmp_path])
    assert (await ws.read_document(path)).text == "one\n"
    old_file(path, "two\n")  # same size, same mtime: the ctime moved
    assert (await ws.read_document(path)).text == "two\n"
    path.unlink()
    with pytest.raises(FileNotFoundError):
        await ws.read_document(path)


async def test_a_freshly_modified_file_is_not_cached(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text("one\n")
    ws = DiskWorkspace([tmp_path])
    await ws.read_document(path)
    assert ws._texts.get(path) is None


async def test_the_cache_is_bounded_oldest_first(tmp_path: Path) -> None:
    ws = DiskWorkspace([tmp_path])
    ws._texts.max_files = 3
    paths = [tmp_path / f"f{n}.py" for n in range(5)]
    for n, path in enumerate(paths):
        old_file(path, f"file {n}\n")
        await ws.read_document(path)
    assert [ws._texts.get(p) for p in paths] == [None, None, "file 2\n", "file 3\n", "file 4\n"]
    assert ws._texts._bytes == 3 * len("file 0\n")
