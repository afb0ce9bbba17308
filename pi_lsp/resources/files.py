"""Reading the files the loader finds: text with Pi's decoding (BOM stripped, bad UTF-8
replaced), YAML frontmatter, and the stat signatures a reload compares.

Everything here fails soft: a read error becomes ``None`` plus a ``Diagnostic``.
"""

from __future__ import annotations

import functools
import os
import stat
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import yaml

from .models import Diagnostic

Signature = tuple[int, int, int] | None
"""``(mode, size, mtime_ns)`` of a path, ``None`` when it does not exist."""


def signature(path: str) -> Signature:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (stat.S_IFMT(st.st_mode), st.st_size, st.st_mtime_ns)


@dataclass
class Watch:
    """The paths one load looked at (files read, directories listed, candidates that did not
    exist) with their signatures: ``changed()`` says whether loading again would differ."""

    seen: dict[str, Signature] = field(default_factory=dict)

    def note(self, path: str) -> Signature:
        sig = signature(path)
        self.seen.setdefault(path, sig)
        return sig

    def changed(self) -> bool:
        return any(signature(p) != sig for p, sig in self.seen.items())


def is_file(path: str, watch: Watch) -> bool:
    sig = watch.note(path)
    return sig is not None and sig[0] == stat.S_IFREG


def is_dir(path: str, watch: Watch) -> bool:
    sig = watch.note(path)
    return sig is not None and sig[0] == stat.S_IFDIR


def read_text(path: str, diagnostics: list[Diagnostic], watch: Watch) -> str | None:
    """The file's text as Pi reads it (``readFileSync(…, "utf-8")`` + BOM strip): bytes that
    are not UTF-8 become U+FFFD, and a diagnostic says so."""
    watch.note(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        diagnostics.append(Diagnostic(type="warning", message=f"cannot read: {exc}", path=path))
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        diagnostics.append(
            Diagnostic(
                type="warning",
                message="not valid UTF-8: the bad bytes were replaced with U+FFFD",
                path=path,
            )
        )
    return text.removeprefix("\ufeff")


def list_dir(path: str, watch: Watch) -> list[os.DirEntry[str]]:
    """The directory's entries sorted by name (Node's ``readdirSync`` order); ``[]`` when it
    cannot be listed."""
    watch.note(path)
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        return []


def entry_kind(entry: os.DirEntry[str]) -> str | None:
    """``"file"``, ``"dir"`` or ``None`` (a symlink is followed; a broken one is ``None``)."""
    try:
        if entry.is_dir(follow_symlinks=True):
            return "dir"
        if entry.is_file(follow_symlinks=True):
            return "file"
    except OSError:
        return None
    return None


class FrontmatterError(ValueError):
    pass


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader where PyYAML has it (about 10× faster; a project's skills are read
again at each reload)."""


@functools.lru_cache(maxsize=4096)
def _load_yaml(raw: str) -> Any:
    """The YAML of one frontmatter (cached by its text: unchanged files parse once; callers
    copy the mapping and never change it)."""
    return yaml.load(raw, Loader=_LOADER)  # a safe loader (CSafeLoader or SafeLoader)


def _normalize(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff")


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """``(yaml text or None, body)`` as Pi splits them: ``---`` first, up to the next
    ``\\n---``; the body is trimmed."""
    normalized = _normalize(text)
    if not normalized.startswith("---"):
        return None, normalized
    end = normalized.find("\n---", 3)
    if end == -1:
        return None, normalized
    return normalized[4:end], normalized[end + 4 :].strip()


def parse_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """``(frontmatter, body)``; ``FrontmatterError`` when the YAML is invalid.

    Like the Agent Skills client guide, a value such as ``description: Use when: …`` (an
    unquoted colon, which strict YAML refuses) is retried with the values quoted."""
    raw, body = split_frontmatter(text)
    if not raw:
        return {}, body
    try:
        data = _load_yaml(raw)
    except yaml.YAMLError as exc:
        data = _retry_quoted(raw)
        if data is None:
            mark = getattr(exc, "problem_mark", None)
            where = f" (line {mark.line + 2})" if mark is not None else ""
            problem = getattr(exc, "problem", None) or "invalid YAML"
            raise FrontmatterError(f"invalid YAML frontmatter{where}: {problem}") from None
    if data is None:
        return {}, body
    if not isinstance(data, dict):
        raise FrontmatterError("invalid YAML frontmatter: not a mapping")
    return {str(k): v for k, v in data.items()}, body


def _retry_quoted(raw: str) -> dict[str, Any] | None:
    lines = []
    for line in raw.split("\n"):
        key, sep, value = line.partition(":")
        value = value.strip()
        if sep and key and not key.startswith((" ", "\t", "-", "#")) and ": " in value:
            escaped = value.replace("\\", "\\\\").replace('"', '\\"')
            line = f'{key}: "{escaped}"'
        lines.append(line)
    try:
        data = _load_yaml("\n".join(lines))
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) else None


class _Named(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def path(self) -> str: ...


N = TypeVar("N", bound=_Named)


class FirstOfName(Generic[N]):
    """Skills or templates by name, in load order: the first of a name is kept; a later one
    is a ``collision`` diagnostic naming the one kept (``shown`` prefixes the name: ``/``
    for a template's command)."""

    def __init__(self, shown: str = "") -> None:
        self._shown = shown
        self._by_name: dict[str, N] = {}
        self.collisions: list[Diagnostic] = []

    def add(self, item: N) -> bool:
        """Keep ``item`` unless its name is taken (then ``False``, and a diagnostic)."""
        existing = self._by_name.get(item.name)
        if existing is None:
            self._by_name[item.name] = item
            return True
        message = f'name "{self._shown}{item.name}" collision: {existing.path} is kept'
        self.collisions.append(Diagnostic(type="collision", message=message, path=item.path))
        return False

    def items(self) -> list[N]:
        return list(self._by_name.values())
