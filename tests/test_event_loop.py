"""``PI_LSP_EVENT_LOOP``: which event loop the front ends run on (runtime/event_loop.py)."""

from __future__ import annotations

import asyncio
import logging
import sys

import pytest

from pi_lsp.runtime import event_loop


def _block_uvloop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # ``import uvloop`` raises ImportError


def test_asyncio_is_asyncio(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_LSP_EVENT_LOOP", "asyncio")
    assert event_loop.loop_factory() is None

    async def main() -> str:
        return event_loop.loop_name(asyncio.get_running_loop())

    assert event_loop.run(main()) == "asyncio"


def test_without_uvloop_every_choice_falls_back_to_asyncio(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _block_uvloop(monkeypatch)
    for choice in ("auto", "", "uvloop"):
        monkeypatch.setenv("PI_LSP_EVENT_LOOP", choice)
        with caplog.at_level(logging.WARNING):
            assert event_loop.loop_factory() is None
    assert "uvloop is not installed" in caplog.text  # said only when asked for by name


def test_an_unknown_choice_warns_and_means_auto(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PI_LSP_EVENT_LOOP", "trio")
    with caplog.at_level(logging.WARNING):
        factory = event_loop.loop_factory()
    assert "not one of auto, uvloop, asyncio" in caplog.text
    monkeypatch.setenv("PI_LSP_EVENT_LOOP", "auto")
    assert factory == event_loop.loop_factory()
