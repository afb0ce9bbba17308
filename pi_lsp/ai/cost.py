"""Usage bookkeeping: total tokens and dollar cost (pi-ai ``calculateCost``).

Prices are dollars per million tokens. One-hour cache writes are billed at 2x the input price.
Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

from typing import Any

from .types import Model, Usage


def calculate_cost(model: Model, usage: Usage) -> Usage:
    """Fill ``usage.total_tokens`` and ``usage.cost`` in place from the model's prices."""
    price = model.cost
    long_writes = usage.cache_write_1h or 0
    short_writes = max(0, usage.cache_write - long_writes)
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
    cost = usage.cost
    cost.input = price.input / 1e6 * usage.input
    cost.output = price.output / 1e6 * usage.output
    cost.cache_read = price.cache_read / 1e6 * usage.cache_read
    cost.cache_write = price.cache_write / 1e6 * short_writes + 2 * price.input / 1e6 * long_writes
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
    return usage


def estimate_tokens(chars: int) -> int:
    """Pi's rough token estimate: ceil(chars / 4)."""
    return -(-chars // 4)


def reasoning_tokens(details: Any) -> int | None:
    """``reasoning_tokens`` of OpenAI's ``output_tokens_details`` / ``completion_tokens_details``
    (a part of the output tokens), or ``None`` when the server does not report it."""
    value = details.get("reasoning_tokens") if isinstance(details, dict) else None
    return value if isinstance(value, int) and value >= 0 else None
