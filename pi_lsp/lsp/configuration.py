"""The server's live settings: initialization options, then ``workspace/configuration``.

Holds the base (defaults + ``initializationOptions.pi``) and the effective settings, re-read
on ``workspace/didChangeConfiguration``. Bad values are shown to the user with
``window/showMessage`` (Error) naming the key; unknown keys are logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from lsprotocol import types

from .bridge import ClientBridge
from .settings import (
    ClientFeatures,
    MergeResult,
    Settings,
    client_features,
    effective,
    merge_settings,
    pi_section,
)

log = logging.getLogger(__name__)

SECTION = "pi"
LOAD_TIMEOUT = 5.0


class Configuration:
    def __init__(self, bridge: ClientBridge) -> None:
        self.bridge = bridge
        self.base = Settings()
        self.settings = Settings()
        self.features = ClientFeatures()
        self._pending: list[MergeResult] = []
        self._loaded: asyncio.Event | None = None

    def _event(self) -> asyncio.Event:
        if self._loaded is None:
            self._loaded = asyncio.Event()
        return self._loaded

    def mark_loaded(self) -> None:
        """The first ``workspace/configuration`` answer is in (or will never come)."""
        self._event().set()

    async def wait_loaded(self, at_most: float = LOAD_TIMEOUT) -> None:
        """Let a prompt sent right after start-up see the client's settings."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._event().wait(), at_most)

    def current(self) -> Settings:
        return self.settings

    def initialize(self, init_options: Any) -> None:
        """From ``initializationOptions``; problems are reported once the client is ready."""
        self.features, report = client_features(pi_section(init_options))
        result = merge_settings(Settings(), pi_section(init_options))
        self.base = result.settings
        self.settings = result.settings.model_copy(deep=True)
        self._pending = [report, result]

    def report_pending(self) -> None:
        for result in self._pending:
            self._report(result)
        self._pending = []

    async def refresh(self, pushed: Any = None) -> None:
        """Re-read ``workspace/configuration`` (or use settings the client pushed)."""
        raw = None
        if self.bridge.configuration:
            try:
                raw = await asyncio.wait_for(self.bridge.fetch_configuration(SECTION), LOAD_TIMEOUT)
            except TimeoutError:
                log.warning("the client did not answer workspace/configuration")
        if raw is None and isinstance(pushed, dict):
            raw = pushed.get(SECTION)
        if raw is None:
            return
        log.info("settings from the client: %s", sorted(raw) if isinstance(raw, dict) else raw)
        result = effective(self.base, self.settings, raw)
        self.settings = result.settings
        self._report(result)

    def _report(self, result: MergeResult) -> None:
        for problem in result.problems:
            log.warning("invalid setting %s: %s", problem.key, problem.message)
            self.bridge.show_message(
                types.MessageType.Error,
                f"pi: invalid setting `{problem.key}`: {problem.message}. "
                "Keeping the previous value.",
            )
        if result.unknown:
            text = "pi: ignoring unknown settings: " + ", ".join(sorted(result.unknown))
            log.info(text)
            self.bridge.log_message(types.MessageType.Warning, text)
