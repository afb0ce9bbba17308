"""Keeps secrets out of session files.

A ``Redactor`` replaces, in every string of an entry about to be written: the values of
secret-looking environment variables (``ai.env_keys.is_secret_env_name``: provider keys,
``*_TOKEN``, ``*_SECRET`` …, plus names the caller adds such as the configured ``apiKeyEnv``),
explicit secret values, authorization headers, bearer tokens and ``sk-…`` style keys.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..ai.env_keys import is_secret_env_name

REDACTED = "[REDACTED]"
MIN_SECRET_LENGTH = 8
"""Shorter values are not treated as secrets (``TOKEN=1`` would redact every ``1``)."""

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # Authorization: Bearer xyz / "authorization": "Basic xyz" / proxy-authorization=...
    (
        re.compile(
            r"(?i)\b((?:proxy-)?authorization\b[\"']?\s*[:=]\s*[\"']?)"
            r"(?:(?:bearer|basic|token)\s+)?[^\s\"',;]+"
        ),
        r"\1" + REDACTED,
    ),
    # x-api-key: xyz / api_key=xyz / "apiKey": "xyz"
    (
        re.compile(
            r"(?i)\b((?:x-api-key|x-goog-api-key|api[_-]?key)\b[\"']?\s*[:=]\s*[\"']?)"
            r"[^\s\"',;]{8,}"
        ),
        r"\1" + REDACTED,
    ),
    (re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}"), "Bearer " + REDACTED),
    (re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"), REDACTED),
)


class Redactor:
    """Replaces secrets in strings and (recursively) in JSON-like data."""

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        *,
        extra_names: Iterable[str] = (),
        extra_values: Iterable[str] = (),
    ) -> None:
        source = os.environ if env is None else env
        names = set(extra_names)
        values = {v for v in extra_values if v and len(v.strip()) >= MIN_SECRET_LENGTH}
        for name, value in source.items():
            if (name in names or is_secret_env_name(name)) and len(value) >= MIN_SECRET_LENGTH:
                values.add(value)
                if value.strip() != value and len(value.strip()) >= MIN_SECRET_LENGTH:
                    values.add(value.strip())
        ordered = sorted(values, key=len, reverse=True)
        self._values = (
            re.compile("|".join(re.escape(v) for v in ordered)) if ordered else None
        )

    def text(self, value: str) -> str:
        if self._values is not None:
            value = self._values.sub(REDACTED, value)
        for pattern, replacement in _PATTERNS:
            value = pattern.sub(replacement, value)
        return value

    def data(self, value: Any) -> Any:
        """A copy of JSON-like ``value`` with every string redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.data(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.data(v) for v in value]
        return value
