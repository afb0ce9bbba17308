"""Size sweeps that show the slope of two costs that used to be quadratic.

- ``tool_args``: a ``write`` whose ``content`` arrives as streamed tool-call arguments in
  4-character deltas, through the real provider stream (``pi_lsp.ai.stream`` with the faux
  provider, which accumulates arguments and parses the partial JSON on every delta exactly as
  the HTTP providers do). Sizes 40 KB → 640 KB.
- ``did_change``: 10,000 one-character incremental ``didChange`` edits typed at the end of
  one very long line, applied by the server's document model (``PiTextDocument``). Line
  lengths 10,000 → 160,000 characters.

For each sweep the JSON gives the seconds per size and ``slope``: the exponent ``k`` in
``time ∝ size^k`` fitted between the smallest and largest size (1.0 is linear, 2.0 quadratic).
``python bench/linear_bench.py [--quick]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lsprotocol import types  # noqa: E402

from pi_lsp.ai import Context, StreamOptions, UserMessage, resolve_model  # noqa: E402
from pi_lsp.ai.providers.faux import FauxProvider, FauxResponse  # noqa: E402
from pi_lsp.lsp.editor.text_document import PiTextDocument  # noqa: E402


def slope(sizes: list[int], seconds: list[float]) -> float:
    return round(math.log(seconds[-1] / seconds[0]) / math.log(sizes[-1] / sizes[0]), 2)


async def _stream_write(size: int) -> float:
    content = ("x = value(1)  # a line of code\n" * (size // 31 + 1))[:size]
    provider = FauxProvider(
        [FauxResponse.tool_calls(("write", {"path": "big.py", "content": content}))], chunk_size=4
    )
    model = resolve_model("faux", "faux-1")
    started = time.perf_counter()
    events = provider.stream(model, Context(messages=[UserMessage(content="go")]), StreamOptions())
    async for _ in events:
        pass
    final = await events.result()
    elapsed = time.perf_counter() - started
    call = final.content[-1]
    assert getattr(call, "arguments", {}).get("content") == content, "arguments lost"
    return elapsed


def tool_args(sizes: list[int]) -> dict[str, object]:
    seconds = [round(asyncio.run(_stream_write(size)), 4) for size in sizes]
    return {
        "sizes_chars": sizes,
        "delta_chars": 4,
        "seconds": seconds,
        "us_per_kb": [round(s / (n / 1000) * 1e6, 1) for s, n in zip(seconds, sizes, strict=True)],
        "slope": slope(sizes, seconds),
    }


def _type_into_long_line(length: int, keystrokes: int) -> float:
    doc = PiTextDocument("file:///bench/long.txt", source="a" * length + "\n", version=0)
    started = time.perf_counter()
    column = length
    for version in range(1, keystrokes + 1):
        position = types.Position(line=0, character=column)
        doc.apply_change(
            types.TextDocumentContentChangePartial(
                range=types.Range(start=position, end=position), text="b"
            )
        )
        doc.version = version
        column += 1
    elapsed = time.perf_counter() - started
    assert len(doc.source) == length + keystrokes + 1
    return elapsed


def did_change(lengths: list[int], keystrokes: int) -> dict[str, object]:
    seconds = [round(_type_into_long_line(n, keystrokes), 4) for n in lengths]
    return {
        "line_lengths": lengths,
        "keystrokes": keystrokes,
        "seconds": seconds,
        "us_per_keystroke": [round(s / keystrokes * 1e6, 2) for s in seconds],
        "slope_in_line_length": slope(lengths, seconds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    args = parser.parse_args()
    if args.quick:
        arg_sizes, line_sizes, keys = [4_000, 16_000], [1_000, 4_000], 500
    else:
        arg_sizes = [40_000, 160_000, 640_000]
        line_sizes, keys = [10_000, 40_000, 160_000], 10_000
    print(
        json.dumps(
            {
                "schema": "pi-linear-bench/1",
                "python": platform.python_version(),
                "tool_args": tool_args(arg_sizes),
                "did_change": did_change(line_sizes, keys),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
