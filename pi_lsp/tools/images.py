"""Image sniffing for ``read``: the MIME type from a file's first bytes (png, jpeg, gif, webp).

Pi resizes images to fit 2000x2000 and its inline limit; pi-lsp does not resize (no image
library dependency) and refuses images above ``MAX_INLINE_IMAGE_BYTES`` with a clear note.
Must not import anything above tools/.
"""

from __future__ import annotations

# base64 grows data by 4/3: 3.75 MiB of image becomes the 5 MiB most providers accept inline.
MAX_INLINE_IMAGE_BYTES = 3 * 1024 * 1024 + 768 * 1024
SNIFF_BYTES = 16


def sniff_image_mime(head: bytes) -> str | None:
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def looks_binary(head: bytes) -> bool:
    """Git's rule: a NUL byte in the first 8 KB means binary."""
    return b"\x00" in head
