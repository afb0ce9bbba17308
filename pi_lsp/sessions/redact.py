"""Keeps secrets out of session files.

A ``Redactor`` replaces, in every string of an entry about to be written: the values of
secret-looking environment variables (by name or value, ``security.env_secrets``), every
secret the process holds or was told about (``security.vault``: the variables moved out of
``os.environ`` at start-up, names marked secret such as the configured ``apiKeyEnv`` — by the
server and the CLI alike — and remembered key values), names and values the caller adds,
authorization headers, bearer tokens and ``sk-…`` style keys. The default redactor follows
the vault as it grows, so there is one redaction path for every front-end. Opaque replay
data a provider handed back (signatures, an OpenAI reasoning item's ``encrypted_content``)
loses only exact secret values, never key *shapes*: a shape in ciphertext is chance, and one
changed byte makes the provider reject the replay after a resume.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..ai.env_keys import is_secret_env_name
from ..security import env_secrets, vault
from ..security.vault import MIN_SECRET_LENGTH

REDACTED = "[REDACTED]"

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
    (env_secrets.URL_CREDENTIALS, r"\1" + REDACTED + "@"),
    (env_secrets.PRIVATE_KEY_BLOCK, REDACTED),
    (env_secrets.TOKEN, REDACTED),
    (env_secrets.WEBHOOK_URL, REDACTED),
)


OPAQUE_FIELDS = frozenset({"thinkingSignature", "textSignature", "thoughtSignature"})
"""Content-block fields holding a provider's opaque replay data (base64 bytes, ids), or a
reasoning item as JSON (then only its ``encrypted_content`` is opaque)."""
CIPHERTEXT_FIELDS = frozenset({"encrypted_content"})


class Redactor:
    """Replaces secrets in strings and (recursively) in JSON-like data."""

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        *,
        extra_names: Iterable[str] = (),
        extra_values: Iterable[str] = (),
    ) -> None:
        self._env = env
        self._names = set(extra_names)
        self._extra = {v for v in extra_values if v and len(v.strip()) >= MIN_SECRET_LENGTH}
        self._version = -1
        self._values: re.Pattern[str] | None = None
        self._refresh()

    def _refresh(self) -> None:
        version = vault.version()
        if version == self._version:
            return
        self._version = version
        source = vault.environ() if self._env is None else self._env
        values = set(self._extra) | vault.secret_values(source)
        for name, value in source.items():
            if name in self._names or is_secret_env_name(name):
                values.update(v for v in (value, value.strip()) if len(v) >= MIN_SECRET_LENGTH)
        ordered = sorted(values, key=len, reverse=True)
        self._values = re.compile("|".join(re.escape(v) for v in ordered)) if ordered else None

    def text(self, value: str) -> str:
        self._refresh()
        if self._values is not None:
            value = self._values.sub(REDACTED, value)
        for pattern, replacement in _PATTERNS:
            value = pattern.sub(replacement, value)
        return value

    def exact(self, value: str) -> str:
        """``value`` with only the known secret values replaced (no shape patterns)."""
        self._refresh()
        return self._values.sub(REDACTED, value) if self._values is not None else value

    def data(self, value: Any) -> Any:
        """A copy of JSON-like ``value`` with every string redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self._field(k, v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.data(v) for v in value]
        return value

    def _field(self, key: str, value: Any) -> Any:
        if isinstance(value, str):
            if key in CIPHERTEXT_FIELDS:
                return self.exact(value)
            if key in OPAQUE_FIELDS:
                return self._opaque(value)
        return self.data(value)

    def _opaque(self, value: str) -> str:
        if not value.startswith("{"):
            return self.exact(value)
        try:
            item = json.loads(value)
        except ValueError:
            return self.text(value)
        if not isinstance(item, dict):
            return self.text(value)
        redacted = self.data(item)  # e.g. a reasoning summary: fully redacted
        if redacted == item:
            return value  # the provider's exact text, untouched
        return json.dumps(redacted, ensure_ascii=False, separators=(",", ":"))
