"""Opening a file for reading only if it is a regular file, without ever blocking.

``open()`` on a FIFO waits for a writer, forever, in a worker thread no abort can reach; a
device can stream without end. ``open_regular`` opens non-blocking (a FIFO opens at once),
checks the *opened* file with ``fstat`` (no window between a check and the open) and only then
returns a normal blocking file object. Must not import anything above tools/.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO


class NotRegularFileError(OSError):
    """A FIFO, socket or device: never read by the tools."""


def open_regular(path: str | Path) -> BinaryIO:
    """A binary file object for ``path``; ``IsADirectoryError`` / ``NotRegularFileError`` /
    other ``OSError`` otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(errno.EINVAL, "Not a regular file", str(path))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
