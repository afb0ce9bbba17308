"""Where session files live, and how sessions and entries are named.

``sessions_dir(cwd)`` = ``<data dir>/sessions/<workspace-hash>/`` where the data dir is
``$PI_LSP_DATA_DIR`` if set, else ``$XDG_DATA_HOME/pi-lsp`` (or ``data_home/pi-lsp``), else the
platform user data dir. Ids: sessions get UUIDv7 (Pi 0.80.2), entries 8 hex characters.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import time
import uuid
from collections.abc import Container
from datetime import UTC, datetime
from pathlib import Path

import platformdirs

DATA_DIR_ENV = "PI_LSP_DATA_DIR"
APP_NAME = "pi-lsp"
SESSION_ID_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")


def data_dir(data_home: Path | None = None) -> Path:
    """The pi-lsp user data directory (``PI_LSP_DATA_DIR`` wins over everything)."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    if data_home is not None:
        return Path(data_home) / APP_NAME
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg:
        return Path(xdg).expanduser() / APP_NAME
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def workspace_key(cwd: Path) -> str:
    """A stable, filesystem-safe directory name for a workspace: ``<name>-<sha256[:16]>``."""
    resolved = str(Path(cwd).expanduser().resolve())
    digest = hashlib.sha256(resolved.encode("utf-8")).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(resolved).name).strip("-.")[:40]
    return f"{name}-{digest}" if name else digest


def sessions_dir(cwd: Path, data_home: Path | None = None) -> Path:
    """``<data dir>/sessions/<workspace-hash>/`` for the workspace rooted at ``cwd``."""
    return data_dir(data_home) / "sessions" / workspace_key(cwd)


def uuid7() -> str:
    """A time-ordered UUID (version 7): 48-bit ms timestamp, then random bits."""
    ms = time.time_ns() // 1_000_000
    rand = secrets.randbits(74)
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76  # version
    value |= ((rand >> 62) & 0xFFF) << 64  # rand_a (12 bits)
    value |= 0b10 << 62  # variant
    value |= rand & ((1 << 62) - 1)  # rand_b (62 bits)
    return str(uuid.UUID(int=value))


def new_entry_id(taken: Container[str]) -> str:
    """8 hex characters, checked against ``taken`` (100 tries, then a full UUID), as Pi."""
    for _ in range(100):
        candidate = uuid.uuid4().hex[:8]
        if candidate not in taken:
            return candidate
    return str(uuid.uuid4())


def iso_now() -> str:
    """The current time as JavaScript's ``toISOString()`` writes it (ms, ``Z``)."""
    return iso_from_datetime(datetime.now(UTC))


def iso_from_datetime(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso(text: str) -> datetime | None:
    """Parse an ISO timestamp (``Z`` accepted); ``None`` when it is not one."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def iso_to_ms(text: str) -> int | None:
    moment = parse_iso(text)
    return None if moment is None else int(moment.timestamp() * 1000)


def session_file_name(session_id: str, timestamp: str) -> str:
    """``<timestamp with : and . replaced by ->_<id>.jsonl`` (Pi's naming)."""
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


def assert_valid_session_id(session_id: str) -> None:
    if not SESSION_ID_RE.match(session_id):
        raise ValueError(
            "Session id must be non-empty, contain only alphanumeric characters, '-', '_', "
            "and '.', and start and end with an alphanumeric character"
        )
