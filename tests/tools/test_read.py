"""The read tool: byte limits, binary and huge files, images, editor buffers."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path

import pytest

from pi_lsp.ai import ImageContent, TextContent
from pi_lsp.tools import DiskWorkspace, Document, ReadTool, ToolError

from .conftest import call, text


def _png(width: int = 2, height: int = 1) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


async def test_byte_limit_hint(ws: DiskWorkspace, root: Path) -> None:
    line = "x" * 99  # 100 bytes with the newline
    (root / "wide.txt").write_text((line + "\n") * 1000)  # 100 KB, 1000 lines
    result = await call(ReadTool(ws), {"path": "wide.txt"})
    body, hint = text(result).split("\n\n")
    shown = body.split("\n")
    assert len(shown) == 512  # 512 * 100 - 1 <= 51200 < 513 * 100 - 1
    assert hint == ("[Showing lines 1-512 of 1001 (50.0KB limit). Use offset=513 to continue.]")
    assert result.details["truncation"]["truncatedBy"] == "bytes"


async def test_first_line_over_the_limit(ws: DiskWorkspace, root: Path) -> None:
    (root / "min.js").write_text("a" * 60 * 1024 + "\nsecond\n")
    out = text(await call(ReadTool(ws), {"path": "min.js"}))
    assert out == (
        "[Line 1 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' min.js | head -c 51200]"
    )
    assert text(await call(ReadTool(ws), {"path": "min.js", "offset": 2})) == "second\n"


async def test_binary_file_is_refused(ws: DiskWorkspace, root: Path) -> None:
    (root / "prog.bin").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)
    with pytest.raises(ToolError) as err:
        await call(ReadTool(ws), {"path": "prog.bin"})
    assert str(err.value).startswith("Cannot read prog.bin: it is a binary file (1.0KB).")


async def test_huge_file_is_refused_with_a_way_forward(root: Path) -> None:
    ws = DiskWorkspace([root])
    (root / "huge.log").write_text("line\n" * 3000)  # 15 KB
    tool = ReadTool(ws, max_file_bytes=10 * 1024)
    with pytest.raises(ToolError) as err:
        await call(tool, {"path": "huge.log"})
    message = str(err.value)
    assert message.startswith("Cannot read huge.log: the file is 14.6KB, over the 10.0KB limit")
    assert "sed -n" in message
    # below the limit, a large file is simply paged
    assert text(await call(ReadTool(ws), {"path": "huge.log", "limit": 1})).startswith("line\n")


async def test_png_is_returned_as_an_image(ws: DiskWorkspace, root: Path) -> None:
    data = _png()
    (root / "pic.txt").write_bytes(data)  # sniffed from the content, not the name
    result = await call(ReadTool(ws), {"path": "pic.txt"})
    note, image = result.content
    assert isinstance(note, TextContent)
    assert note.text == "Read image file [image/png]"
    assert isinstance(image, ImageContent)
    assert image.mime_type == "image/png"
    assert base64.b64decode(image.data) == data


@pytest.mark.parametrize(
    ("head", "mime"),
    [
        (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", "image/jpeg"),
        (b"GIF89a\x01\x00\x01\x00\x00\x00\x00", "image/gif"),
        (b"RIFF\x24\x00\x00\x00WEBPVP8 ", "image/webp"),
    ],
)
async def test_other_image_types(ws: DiskWorkspace, root: Path, head: bytes, mime: str) -> None:
    (root / "img").write_bytes(head + b"\x00" * 64)
    result = await call(ReadTool(ws), {"path": "img"})
    assert text(result) == f"Read image file [{mime}]"
    assert isinstance(result.content[1], ImageContent)


async def test_image_over_the_inline_limit_is_omitted(
    ws: DiskWorkspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pi_lsp.tools.read.MAX_INLINE_IMAGE_BYTES", 10)
    (root / "pic.png").write_bytes(_png())
    result = await call(ReadTool(ws), {"path": "pic.png"})
    assert len(result.content) == 1
    assert text(result).startswith("Read image file [image/png]\n[Image omitted: it is ")
    assert "inline image size limit" in text(result)


async def test_directory_and_missing_file(ws: DiskWorkspace, root: Path) -> None:
    (root / "d").mkdir()
    with pytest.raises(ToolError, match="Cannot read d: it is a directory"):
        await call(ReadTool(ws), {"path": "d"})
    with pytest.raises(ToolError) as err:
        await call(ReadTool(ws), {"path": "missing.txt"})
    assert str(err.value) == f"File not found: {root / 'missing.txt'}"


async def test_macos_screenshot_name_variant(ws: DiskWorkspace, root: Path) -> None:
    name = "Screenshot 2024-01-01 at 10.00.00\u202fAM.txt"
    (root / name).write_text("shot")
    out = await call(ReadTool(ws), {"path": "Screenshot 2024-01-01 at 10.00.00 AM.txt"})
    assert text(out) == "shot"


class _BufferWorkspace(DiskWorkspace):
    """An editor-like workspace: open buffers win over the disk."""

    def __init__(self, roots: list[Path], buffers: dict[Path, str]) -> None:
        super().__init__(roots)
        self.buffers = buffers

    async def read_document(self, path: Path) -> Document:
        if path in self.buffers:
            return Document(path=path, text=self.buffers[path], version=7, from_buffer=True)
        return await super().read_document(path)


async def test_read_sees_the_editor_buffer(root: Path) -> None:
    (root / "open.py").write_text("on disk\n")
    ws = _BufferWorkspace([root], {root / "open.py": "unsaved\n", root / "new.py": "fresh\n"})
    assert text(await call(ReadTool(ws), {"path": "open.py"})) == "unsaved\n"
    assert text(await call(ReadTool(ws), {"path": "new.py"})) == "fresh\n"  # never saved


async def test_aborted_before_start(ws: DiskWorkspace, root: Path) -> None:
    from pi_lsp.ai import AbortSignal

    (root / "a.txt").write_text("a")
    signal = AbortSignal()
    signal.abort()
    with pytest.raises(ToolError, match=r"^Operation aborted$"):
        await call(ReadTool(ws), {"path": "a.txt"}, signal=signal)


async def test_fifo_is_refused_not_waited_on(ws: DiskWorkspace, root: Path) -> None:
    import os

    os.mkfifo(root / "pipe")
    with pytest.raises(ToolError, match=r"^Cannot read pipe: Not a regular file\.$"):
        await call(ReadTool(ws), {"path": "pipe"})
