"""Model-given paths to absolute paths (Pi's ``resolveToCwd`` rules), before confinement.

Owns the expansion steps: Unicode spaces become plain spaces, one leading ``@`` is dropped,
``~`` / ``~/`` expand to home, ``file://`` URLs become paths, relative paths join the cwd; plus
the macOS file-name variants ``read`` retries. Pure functions; must not import above tools/.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import unquote, urlparse

_UNICODE_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
_AM_PM = re.compile(r" (AM|PM)\.")


def expand_path(raw: str, cwd: Path) -> Path:
    """The absolute, lexically normalised path a model-given ``raw`` names (no symlinks
    resolved, ``..`` collapsed like Node's ``path.resolve``)."""
    text = _UNICODE_SPACES.sub(" ", raw)
    if text.startswith("@"):
        text = text[1:]
    if text == "~":
        text = str(Path.home())
    elif text.startswith("~/"):
        text = str(Path.home()) + text[1:]
    if text.startswith("file://"):
        text = unquote(urlparse(text).path)
    path = Path(text)
    if not path.is_absolute():
        path = cwd / path
    return Path(os.path.normpath(path))


def macos_variants(path: Path) -> Iterator[Path]:
    """Alternative spellings ``read`` tries when a path does not exist (screenshots on macOS
    use a narrow no-break space before AM/PM; some names are stored NFD or with ``’``)."""
    text = str(path)
    seen = {text}
    am_pm = _AM_PM.sub("\u202f\\1.", text)
    nfd = unicodedata.normalize("NFD", text)
    curly = text.replace("'", "\u2019")
    for candidate in (am_pm, nfd, curly, unicodedata.normalize("NFD", curly)):
        if candidate not in seen:
            seen.add(candidate)
            yield Path(candidate)


def is_within(path: Path, root: Path) -> bool:
    """``path`` is ``root`` or below it (both absolute and normalised: compared as text,
    which is what ``root in path.parents`` means, without building the parents)."""
    if os.sep != "/":  # Windows paths compare case-insensitively: let pathlib do it
        return path == root or root in path.parents
    text, base = str(path), str(root)
    return text == base or text.startswith(base if base.endswith("/") else base + "/")


def root_for(roots: Sequence[Path], path: Path) -> Path:
    """The root ``path`` lies under (the first root, the cwd, when none does)."""
    for root in roots:
        if is_within(path, root):
            return root
    return roots[0]


def to_posix_relative(path: Path, base: Path) -> str:
    return path.relative_to(base).as_posix()
