"""What a Google API error says about retrying: the ``google.rpc.Status`` details.

Google APIs (Gemini among them) answer errors as ``{"error": {code, message, status,
details: [...]}}``; ``details`` may hold a ``google.rpc.RetryInfo`` (``retryDelay``, a
protobuf Duration such as ``"36.28s"``) and a ``google.rpc.QuotaFailure`` (the violated
quotas, e.g. ``GenerateRequestsPerMinutePerProjectPerModel-FreeTier``). Gemini's per-minute
rate limit and a spent quota are both HTTP 429 with the same words ("You exceeded your current
quota, please check your plan and billing details"); only these details tell them apart: a
per-minute limit comes with a ``retryDelay`` and names per-minute quotas only, a quota that
is used up (per day, or a limit of 0 on this plan) does not go away by waiting a minute.
Pure functions, standard library only. Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_RETRY_INFO = "google.rpc.RetryInfo"
_QUOTA_FAILURE = "google.rpc.QuotaFailure"
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")
_SHORT_WINDOW = re.compile(r"Per(?:Second|Minute)", re.IGNORECASE)
_ZERO_LIMIT = re.compile(r"\blimit: 0\b")


@dataclass(frozen=True, slots=True)
class RpcDetails:
    retry_delay_ms: int | None
    """``RetryInfo.retryDelay`` in ms, when the server gave one."""
    quota_ids: tuple[str, ...]
    """The ``quotaId`` (else ``quotaMetric``) of each ``QuotaFailure`` violation."""
    zero_limit: bool
    """A violated quota whose limit is 0: the plan does not include it at all."""

    @property
    def rate_limited(self) -> bool:
        """A per-minute (or per-second) limit that waiting ``retry_delay_ms`` lifts."""
        return (
            self.retry_delay_ms is not None
            and not self.zero_limit
            and all(_SHORT_WINDOW.search(quota) for quota in self.quota_ids)
        )

    @property
    def quota_names(self) -> str:
        return ", ".join(self.quota_ids)


def parse_duration_ms(value: Any) -> int | None:
    """A protobuf ``Duration`` in its JSON form (``"36s"``, ``"0.250s"``) in ms."""
    if not isinstance(value, str):
        return None
    match = _DURATION.match(value)
    return round(float(match.group(1)) * 1000) if match else None


def rpc_details(payload: Any) -> RpcDetails | None:
    """The retry-relevant details of a ``google.rpc.Status`` error body, or ``None`` when the
    body carries no ``RetryInfo`` and no ``QuotaFailure``."""
    error = payload.get("error") if isinstance(payload, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    if not isinstance(details, list):
        return None
    delay: int | None = None
    quotas: list[str] = []
    zero = False
    found = False
    for detail in details:
        if not isinstance(detail, dict):
            continue
        kind = str(detail.get("@type") or "")
        if kind.endswith(_RETRY_INFO):
            found = True
            delay = parse_duration_ms(detail.get("retryDelay"))
        elif kind.endswith(_QUOTA_FAILURE):
            found = True
            for violation in detail.get("violations") or ():
                if not isinstance(violation, dict):
                    continue
                name = violation.get("quotaId") or violation.get("quotaMetric")
                if isinstance(name, str) and name:
                    quotas.append(name)
                if str(violation.get("quotaValue", "")).strip() == "0":
                    zero = True
    if not found:
        return None
    message = error.get("message") if isinstance(error, dict) else None
    if isinstance(message, str) and _ZERO_LIMIT.search(message):
        zero = True
    return RpcDetails(delay, tuple(quotas), zero)
