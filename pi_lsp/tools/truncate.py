"""Output limits shared by the tools (docs/reference/pi.md#tool-limits): 2000 lines / 50 KiB, head
or tail.

Owns ``truncate_head`` (read, grep, find, ls keep the start), ``truncate_tail`` (bash keeps the
end), ``truncate_line`` (grep's 500-character cut) and ``format_size``. Lines split on ``\\n``; a
trailing newline does not count as a line; bytes are UTF-8. Must not import above tools/.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500
UNLIMITED = 1 << 62


@dataclass(frozen=True, slots=True)
class TruncationResult:
    content: str
    truncated: bool
    truncated_by: Literal["lines", "bytes"] | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool = False
    first_line_exceeds_limit: bool = False
    max_lines: int = DEFAULT_MAX_LINES
    max_bytes: int = DEFAULT_MAX_BYTES

    def to_dict(self) -> dict[str, Any]:
        """The camelCase shape Pi stores in ``details.truncation`` (without ``content``, which
        is already the result text: sessions need not store it twice)."""
        return {
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "lastLinePartial": self.last_line_partial,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "maxLines": self.max_lines,
            "maxBytes": min(self.max_bytes, UNLIMITED),
        }

    def with_totals(self, total_lines: int, total_bytes: int) -> TruncationResult:
        return replace(self, total_lines=total_lines, total_bytes=total_bytes)


def utf8_len(text: str) -> int:
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def format_size(n: int) -> str:
    if n < 1024:
        return f"{n}B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f}KB"
    return f"{n / (1024 * 1024):.1f}MB"


def _lines(content: str) -> list[str]:
    if not content:
        return []
    lines = content.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def truncate_head(
    content: str,
    *,
    max_lines: int = DEFAULT_MAX_LINES,
    max_bytes: int = DEFAULT_MAX_BYTES,
    lines: list[str] | None = None,
) -> TruncationResult:
    """Keep whole lines from the start while both limits hold. ``lines`` may pass
    ``content.split("\n")`` when the caller already has it (large files)."""
    total_bytes = utf8_len(content)
    if lines is None:
        lines = _lines(content)
    elif len(lines) > 1 and lines[-1] == "":
        lines = lines[:-1]
    total = len(lines)
    if total <= max_lines and total_bytes <= max_bytes:
        return TruncationResult(
            content,
            False,
            None,
            total,
            total_bytes,
            total,
            total_bytes,
            max_lines=max_lines,
            max_bytes=max_bytes,
        )
    if utf8_len(lines[0]) > max_bytes:
        return TruncationResult(
            "",
            True,
            "bytes",
            total,
            total_bytes,
            0,
            0,
            first_line_exceeds_limit=True,
            max_lines=max_lines,
            max_bytes=max_bytes,
        )
    kept: list[str] = []
    size = 0
    truncated_by: Literal["lines", "bytes"] = "lines"
    for i, line in enumerate(lines):
        if i >= max_lines:
            break
        cost = utf8_len(line) + (1 if i > 0 else 0)
        if size + cost > max_bytes:
            truncated_by = "bytes"
            break
        kept.append(line)
        size += cost
    out = "\n".join(kept)
    return TruncationResult(
        out,
        True,
        truncated_by,
        total,
        total_bytes,
        len(kept),
        utf8_len(out),
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def _tail_bytes(line: str, max_bytes: int) -> str:
    data = line.encode("utf-8", "surrogatepass")
    start = max(0, len(data) - max_bytes)
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1  # never start inside a UTF-8 sequence
    return data[start:].decode("utf-8", "replace")


def truncate_tail(
    content: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole lines from the end; if even the last line is too big, keep its tail."""
    total_bytes = utf8_len(content)
    lines = _lines(content)
    total = len(lines)
    if total <= max_lines and total_bytes <= max_bytes:
        return TruncationResult(
            content,
            False,
            None,
            total,
            total_bytes,
            total,
            total_bytes,
            max_lines=max_lines,
            max_bytes=max_bytes,
        )
    kept: list[str] = []
    size = 0
    truncated_by: Literal["lines", "bytes"] = "lines"
    partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        cost = utf8_len(line) + (1 if kept else 0)
        if size + cost > max_bytes:
            truncated_by = "bytes"
            if not kept:
                kept.append(_tail_bytes(line, max_bytes))
                partial = True
            break
        kept.append(line)
        size += cost
    kept.reverse()
    out = "\n".join(kept)
    return TruncationResult(
        out,
        True,
        truncated_by,
        total,
        total_bytes,
        len(kept),
        utf8_len(out),
        last_line_partial=partial,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> tuple[str, bool]:
    if len(line) <= max_chars:
        return line, False
    return f"{line[:max_chars]}... [truncated]", True
