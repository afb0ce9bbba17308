"""DiskWorkspace: path expansion, the confinement rule, apply_edits, the mutation queue."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pi_lsp.tools import (
    DiskWorkspace,
    EditTool,
    LsTool,
    OutsideWorkspaceError,
    ReadTool,
    StaleDocumentError,
    TextEdit,
    WorkspaceError,
    WriteTool,
    apply_text_edits,
)
from pi_lsp.tools.mutation_queue import FileMutationQueue

from .conftest import call, text

RULE = "Only files inside the workspace can be accessed."


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    out.mkdir()
    (out / "secret.txt").write_text("top secret\n")
    return out


def test_dotdot_escape_is_refused_with_the_rule(ws: DiskWorkspace, root: Path) -> None:
    with pytest.raises(OutsideWorkspaceError) as err:
        ws.resolve("../outside/secret.txt")
    message = str(err.value)
    assert message.startswith(f"Path {root.parent / 'outside' / 'secret.txt'} is outside")
    assert f"(roots: {root})" in message
    assert message.endswith(RULE)


def test_absolute_path_elsewhere_is_refused(ws: DiskWorkspace) -> None:
    with pytest.raises(OutsideWorkspaceError) as err:
        ws.resolve("/etc/passwd")
    assert str(err.value).startswith("Path /etc/passwd is outside the workspace (roots: ")
    with pytest.raises(OutsideWorkspaceError):
        ws.resolve("file:///etc/passwd")
    with pytest.raises(OutsideWorkspaceError):
        ws.resolve("sub/../../x")


def test_tilde_is_home_and_home_is_usually_outside(
    ws: DiskWorkspace, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with pytest.raises(OutsideWorkspaceError):
        ws.resolve("~/.ssh/id_rsa")


async def test_symlink_pointing_out_is_refused_for_every_tool(
    ws: DiskWorkspace, root: Path, outside: Path
) -> None:
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "linkdir").symlink_to(outside)
    with pytest.raises(OutsideWorkspaceError) as err:
        ws.resolve("link.txt")
    assert "is a symbolic link to" in str(err.value)
    assert str(err.value).endswith(RULE)
    for tool, args in [
        (ReadTool(ws), {"path": "link.txt"}),
        (ReadTool(ws), {"path": "linkdir/secret.txt"}),
        (WriteTool(ws), {"path": "linkdir/new.txt", "content": "x"}),
        (WriteTool(ws), {"path": "link.txt", "content": "x"}),
        (EditTool(ws), {"path": "link.txt", "oldText": "top", "newText": "x"}),
        (LsTool(ws), {"path": "linkdir"}),
    ]:
        with pytest.raises(WorkspaceError):
            await call(tool, args)
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert not (outside / "new.txt").exists()


async def test_write_outside_creates_nothing(ws: DiskWorkspace, root: Path) -> None:
    with pytest.raises(OutsideWorkspaceError):
        await call(WriteTool(ws), {"path": "../escaped/new.txt", "content": "x"})
    assert not (root.parent / "escaped").exists()


async def test_symlink_inside_the_workspace_works(ws: DiskWorkspace, root: Path) -> None:
    (root / "real").mkdir()
    (root / "real" / "a.txt").write_text("inside\n")
    (root / "alias").symlink_to(root / "real")
    assert text(await call(ReadTool(ws), {"path": "alias/a.txt"})) == "inside\n"
    await call(EditTool(ws), {"path": "alias/a.txt", "oldText": "inside", "newText": "edited"})
    await call(WriteTool(ws), {"path": "alias/b.txt", "content": "new"})
    assert (root / "real" / "a.txt").read_text() == "edited\n"
    assert (root / "real" / "b.txt").read_text() == "new"
    assert ws.resolve("alias/a.txt") == root / "alias" / "a.txt"  # the spelling is kept


def test_several_roots_first_is_cwd_and_others_are_reachable(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    ws = DiskWorkspace([one, two])
    assert ws.cwd == one.resolve()
    assert ws.resolve(str(two / "x.py")) == two / "x.py"
    assert ws.resolve("../two/y.py") == two / "y.py"
    with pytest.raises(OutsideWorkspaceError) as err:
        ws.resolve("../three/z.py")
    assert f"(roots: {one}, {two})" in str(err.value)


def test_path_expansion_details(ws: DiskWorkspace, root: Path) -> None:
    assert ws.resolve("") == root
    assert ws.resolve(".") == root
    assert ws.resolve("@src/a.py") == root / "src" / "a.py"
    assert ws.resolve("a\u00a0b.txt") == root / "a b.txt"
    assert ws.resolve("a\u3000b.txt") == root / "a b.txt"
    assert ws.resolve(f"file://{root}/with%20space.txt") == root / "with space.txt"
    assert ws.resolve("x/./y/../z") == root / "x" / "z"
    assert ws.display_path(root / "x" / "z") == "x/z"
    assert ws.display_path(root) == "."


def test_roots_must_not_be_empty() -> None:
    with pytest.raises(ValueError):
        DiskWorkspace([])


async def test_apply_edits_refuses_a_stale_document(ws: DiskWorkspace, root: Path) -> None:
    path = root / "f.txt"
    path.write_text("one\ntwo\n")
    document = await ws.read_document(path)
    path.write_text("one\nTWO\n")  # someone else changed it
    with pytest.raises(StaleDocumentError) as err:
        await ws.apply_edits(document, [TextEdit(0, 3, "1")], label="test")
    assert "changed on disk" in str(err.value)
    assert path.read_text() == "one\nTWO\n"


async def test_apply_edits_applies_offsets_into_the_original(ws: DiskWorkspace, root: Path) -> None:
    path = root / "f.txt"
    path.write_bytes(b"\xef\xbb\xbfab\r\ncd\r\n")
    document = await ws.read_document(path)
    assert document.text == "\ufeffab\r\ncd\r\n"
    await ws.apply_edits(document, [TextEdit(5, 7, "XY"), TextEdit(1, 2, "A")], label="t")
    assert path.read_bytes() == b"\xef\xbb\xbfAb\r\nXY\r\n"


def test_apply_text_edits_validates() -> None:
    assert apply_text_edits("abc", []) == "abc"
    assert apply_text_edits("abc", [TextEdit(3, 3, "d"), TextEdit(0, 0, "_")]) == "_abcd"
    with pytest.raises(ValueError):
        apply_text_edits("abc", [TextEdit(0, 2, "x"), TextEdit(1, 3, "y")])
    with pytest.raises(ValueError):
        apply_text_edits("abc", [TextEdit(2, 5, "x")])


async def test_non_utf8_bytes_survive_an_edit(ws: DiskWorkspace, root: Path) -> None:
    path = root / "latin1.txt"
    path.write_bytes(b"caf\xe9\nchange me\n")
    await call(EditTool(ws), {"path": "latin1.txt", "oldText": "change me", "newText": "done"})
    assert path.read_bytes() == b"caf\xe9\ndone\n"
    shown = text(await call(ReadTool(ws), {"path": "latin1.txt"}))
    assert shown == "caf\ufffd\ndone\n"


async def test_mutation_queue_is_fifo_per_key_and_cleans_up() -> None:
    queue = FileMutationQueue()
    order: list[str] = []
    gate = asyncio.Event()

    async def job(name: str, key: str, wait: bool = False) -> None:
        async with queue.hold(key):
            order.append(f"start {name}")
            if wait:
                await gate.wait()
            await asyncio.sleep(0)
            order.append(f"end {name}")

    first = asyncio.create_task(job("a1", "a", wait=True))
    await asyncio.sleep(0)
    others = [asyncio.create_task(job(n, "a")) for n in ("a2", "a3")]
    other_key = asyncio.create_task(job("b1", "b"))
    await other_key  # a different file is not blocked by "a"
    assert order == ["start a1", "start b1", "end b1"]
    gate.set()
    await asyncio.gather(first, *others)
    assert order[3:] == ["end a1", "start a2", "end a2", "start a3", "end a3"]
    assert len(queue) == 0
