"""When an edit's oldText is not found: the region of the file that looks most like it.

Owns ``closest_candidate``: anchor on the oldText's first non-blank line (difflib ratios with
the quick upper bounds first, so a large file stays cheap), then score a window of the same
height around the best anchors and show the winner with line numbers, so the model can copy
the real text and retry. Pure functions; must not import anything above tools/.
"""

from __future__ import annotations

import heapq
from difflib import SequenceMatcher

MAX_SHOWN_LINES = 30
MAX_LINE_CHARS = 200
MIN_ANCHOR_RATIO = 0.3
MIN_WINDOW_RATIO = 0.4
ANCHORS = 5


def closest_candidate(content: str, old_text: str) -> str | None:
    """A short text naming and showing the closest region, or ``None`` if nothing is close."""
    if not content.strip():
        return "The file is empty."
    lines = content.split("\n")
    old_lines = old_text.split("\n")
    while old_lines and not old_lines[-1].strip():
        old_lines.pop()
    first = next((i for i, line in enumerate(old_lines) if line.strip()), None)
    if first is None:
        return None
    anchor = old_lines[first].strip()
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(anchor)
    best: list[tuple[float, int]] = []  # min-heap of the best anchor lines
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            continue
        floor = best[0][0] if len(best) == ANCHORS else MIN_ANCHOR_RATIO
        matcher.set_seq1(stripped)
        if matcher.real_quick_ratio() <= floor or matcher.quick_ratio() <= floor:
            continue
        ratio = matcher.ratio()
        if ratio <= floor:
            continue
        if len(best) == ANCHORS:
            heapq.heapreplace(best, (ratio, -i))
        else:
            heapq.heappush(best, (ratio, -i))
    if not best:
        return None
    target = "\n".join(line.strip() for line in old_lines)
    height = len(old_lines)
    winner: tuple[float, int] | None = None
    for _, neg_i in best:
        start = max(0, -neg_i - first)
        window = "\n".join(line.strip() for line in lines[start : start + height])
        ratio = SequenceMatcher(None, window, target, autojunk=False).ratio()
        if winner is None or ratio > winner[0] or (ratio == winner[0] and start < winner[1]):
            winner = (ratio, start)
    if winner is None or winner[0] < MIN_WINDOW_RATIO:
        return None
    ratio, start = winner
    end = min(len(lines), start + height)
    shown = lines[start : min(end, start + MAX_SHOWN_LINES)]
    body = "\n".join(f"  {start + k + 1}: {_clip(line)}" for k, line in enumerate(shown))
    more = "\n  ..." if end - start > MAX_SHOWN_LINES else ""
    where = f"line {start + 1}" if end - start == 1 else f"lines {start + 1}-{end}"
    return (
        f"The closest text in the file is at {where} ({round(ratio * 100)}% similar). "
        f"Re-read it and copy oldText exactly:\n{body}{more}"
    )


def _clip(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + "…"
