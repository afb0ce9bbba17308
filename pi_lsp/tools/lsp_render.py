"""The ``lsp`` tool's answers written for a reader (docs/tools.md#lsp). Pure functions over
standard LSP result JSON: no I/O, the files' text comes in ``View``.

- locations: ``src/app/models.py:42:7  class User(Base):`` (1-based, code points), sorted
  by file and position; outside the workspace the absolute path and `` (outside workspace)``;
- hover: the Markdown / plain text of ``MarkupContent`` or ``MarkedString[]``;
- symbols: an indented tree ``User (class) 42:7`` from ``selectionRange``;
  ``SymbolInformation`` flat with ``[container]``;
- diagnostics: ``ERROR 12:5 message [source/code]``, errors first;
- caps: 200 locations, 300 symbols, then ``(N more not shown; narrow the query)``.

Must not import pygls/lsprotocol or anything above tools/.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from .code_intel import Encoding
from .lsp_positions import from_units

MAX_LOCATIONS = 200
MAX_SYMBOLS = 300
SYMBOL_KINDS = [
    "file",
    "module",
    "namespace",
    "package",
    "class",
    "method",
    "property",
    "field",
    "constructor",
    "enum",
    "interface",
    "function",
    "variable",
    "constant",
    "string",
    "number",
    "boolean",
    "array",
    "object",
    "key",
    "null",
    "enum-member",
    "struct",
    "event",
    "operator",
    "type-parameter",
]
"""LSP's ``SymbolKind`` names, 1-based (File = 1)."""
SEVERITY = {1: "ERROR", 2: "WARNING", 3: "INFO", 4: "HINT"}


@lru_cache(maxsize=1024)  # the same few files come back call after call
def uri_to_path(uri: str) -> Path | None:
    """The path of a ``file://`` URI (``None`` for any other scheme)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


def more(count: int) -> str:
    return f"({count} more not shown; narrow the query)"


def kind_name(kind: Any) -> str:
    if isinstance(kind, int) and 1 <= kind <= len(SYMBOL_KINDS):
        return SYMBOL_KINDS[kind - 1]
    return "symbol"


@dataclass(slots=True)
class View:
    """What rendering needs to know about files: their lines (when read) and how a path is
    shown (``None``: outside the workspace)."""

    display: Callable[[Path], str | None]
    lines: dict[Path, list[str]] = field(default_factory=dict)
    encoding: Encoding = "utf-16"

    def line(self, path: Path, line: int) -> str | None:
        lines = self.lines.get(path)
        if lines is None or not 0 <= line < len(lines):
            return None
        return lines[line]

    def where(self, path: Path, pos: dict[str, Any]) -> tuple[str, int, int]:
        """``(shown path, 1-based line, 1-based code point column)``."""
        line = int(pos.get("line", 0))
        units = int(pos.get("character", 0))
        text = self.line(path, line)
        column = from_units(text, units, self.encoding) if text is not None else units
        shown = self.display(path)
        return (shown if shown is not None else f"{path} (outside workspace)"), line + 1, column + 1


def location_of(item: Any) -> tuple[Path, dict[str, Any]] | None:
    """``(path, range)`` of a ``Location`` or ``LocationLink`` (its ``targetSelectionRange``)."""
    if not isinstance(item, dict):
        return None
    uri = item.get("uri") or item.get("targetUri")
    rng = item.get("range") or item.get("targetSelectionRange") or item.get("targetRange")
    if not isinstance(uri, str) or not isinstance(rng, dict):
        return None
    path = uri_to_path(uri)
    return (path, rng) if path is not None else None


def locations(result: Any) -> list[tuple[Path, dict[str, Any]]]:
    """Every location of a definition/references/… result (one, a list, or ``null``),
    deduplicated and sorted by file and position."""
    items = result if isinstance(result, list) else [result] if result else []
    found: dict[tuple[str, int, int], tuple[Path, dict[str, Any]]] = {}
    for item in items:
        loc = location_of(item)
        if loc is None:
            continue
        start = loc[1].get("start", {})
        key = (str(loc[0]), int(start.get("line", 0)), int(start.get("character", 0)))
        found.setdefault(key, loc)
    return [found[k] for k in sorted(found)]


def render_locations(result: Any, view: View, *, limit: int = MAX_LOCATIONS) -> list[str]:
    """One line per location: ``path:line:col  source line``."""
    out: list[str] = []
    locs = locations(result)
    for path, rng in locs[:limit]:
        start = rng.get("start", {})
        shown, line, col = view.where(path, start)
        source = view.line(path, int(start.get("line", 0)))
        out.append(f"{shown}:{line}:{col}" + (f"  {source.strip()}" if source else ""))
    if len(locs) > limit:
        out.append(more(len(locs) - limit))
    return out


def hover_text(result: Any) -> str:
    """The text of a ``Hover`` (``MarkupContent``, ``MarkedString`` or a list of them)."""
    if not isinstance(result, dict):
        return ""
    contents = result.get("contents")
    parts = contents if isinstance(contents, list) else [contents]
    texts: list[str] = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and "language" in part:
            texts.append(f"```{part.get('language', '')}\n{part.get('value', '')}\n```")
        elif isinstance(part, dict):
            texts.append(str(part.get("value", "")))
    return "\n\n".join(t.strip() for t in texts if t and t.strip())


def render_symbols(
    result: Any, view: View, path: Path | None, *, limit: int = MAX_SYMBOLS
) -> list[str]:
    """``DocumentSymbol`` trees (indented) or ``SymbolInformation`` / ``WorkspaceSymbol``
    lists (flat, with their file and ``[container]``)."""
    out: list[str] = []
    hidden = 0

    def emit(text: str) -> None:
        nonlocal hidden
        if len(out) < limit:
            out.append(text)
        else:
            hidden += 1

    def walk(symbols: Iterable[Any], depth: int) -> None:
        for sym in symbols:
            if not isinstance(sym, dict):
                continue
            kind = kind_name(sym.get("kind"))
            name = sym.get("name", "?")
            if "location" in sym:  # SymbolInformation / WorkspaceSymbol
                loc = sym["location"]
                sym_path = uri_to_path(str(loc.get("uri", "")))
                rng = loc.get("range")
                container = sym.get("containerName")
                suffix = f" [{container}]" if container else ""
                if sym_path is None:
                    emit(f"{name} ({kind}){suffix}")
                elif isinstance(rng, dict):
                    shown, line, col = view.where(sym_path, rng.get("start", {}))
                    emit(f"{name} ({kind}){suffix}  {shown}:{line}:{col}")
                else:
                    shown = view.display(sym_path) or f"{sym_path} (outside workspace)"
                    emit(f"{name} ({kind}){suffix}  {shown}")
                continue
            rng = sym.get("selectionRange") or sym.get("range") or {}
            if path is not None:
                _, line, col = view.where(path, rng.get("start", {}))
                emit(f"{'  ' * depth}{name} ({kind}) {line}:{col}")
            else:
                emit(f"{'  ' * depth}{name} ({kind})")
            walk(sym.get("children") or (), depth + 1)

    walk(result if isinstance(result, list) else [], 0)
    if hidden:
        out.append(more(hidden))
    return out


def render_diagnostics(items: Any, view: View, path: Path) -> list[str]:
    """``ERROR 12:5 message [source/code]``, errors first, then by position."""
    diags = [d for d in (items or []) if isinstance(d, dict)]
    diags.sort(
        key=lambda d: (
            int(d.get("severity") or 1),
            int(d.get("range", {}).get("start", {}).get("line", 0)),
            int(d.get("range", {}).get("start", {}).get("character", 0)),
        )
    )
    out: list[str] = []
    for d in diags[:MAX_LOCATIONS]:
        _, line, col = view.where(path, d.get("range", {}).get("start", {}))
        tag = "/".join(str(x) for x in (d.get("source"), d.get("code")) if x not in (None, ""))
        message = str(d.get("message", "")).strip().replace("\n", " ")
        out.append(
            f"{SEVERITY.get(int(d.get('severity') or 1), 'ERROR')} {line}:{col} {message}"
            + (f" [{tag}]" if tag else "")
        )
    if len(diags) > MAX_LOCATIONS:
        out.append(more(len(diags) - MAX_LOCATIONS))
    return out


def render_calls(result: Any, view: View, *, incoming: bool) -> list[str]:
    """``name (kind)  path:line:col`` for each caller (incoming) or callee (outgoing)."""
    out: list[str] = []
    calls = [c for c in (result or []) if isinstance(c, dict)]
    for call in calls[:MAX_LOCATIONS]:
        item = call.get("from" if incoming else "to") or {}
        path = uri_to_path(str(item.get("uri", "")))
        rng = item.get("selectionRange") or item.get("range") or {}
        label = f"{item.get('name', '?')} ({kind_name(item.get('kind'))})"
        if path is None:
            out.append(label)
            continue
        shown, line, col = view.where(path, rng.get("start", {}))
        out.append(f"{label}  {shown}:{line}:{col}")
    if len(calls) > MAX_LOCATIONS:
        out.append(more(len(calls) - MAX_LOCATIONS))
    return out
