"""A VS Code user chats with a real model: the extension in code-server's extension host (tier
2 of ``vscode-client/test/e2e/run.mjs``, only its ``real.test.js``) against this checkout's
``pi-lsp`` and the llama.cpp server of this tier (OpenAI-compatible endpoint). Skips with the
reason when the code-server cache or the llama.cpp runtime is missing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.editors.test_vscode import _missing, run_e2e, tier_counts

from .conftest import LlamaServer, start_server

pytestmark = [pytest.mark.real_server, pytest.mark.editor, pytest.mark.slow]


@pytest.fixture(scope="module")
def big_llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """The agent's system prompt and tool definitions need more than the tier's 2k context."""
    reason = _missing()
    if reason:
        pytest.skip(reason)
    server = start_server(tmp_path_factory.mktemp("llama-vscode"), n_predict=32, ctx=8192)
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.timeout(900)
def test_a_user_chats_with_a_real_model_in_the_panel(big_llama: LlamaServer) -> None:
    out = run_e2e(
        "--tiers",
        "2",
        env={"PI_E2E_REAL_BASE_URL": big_llama.url + "/v1", "PI_E2E_REAL_MODEL": "smollm2"},
        timeout=840,
    )
    passed, failed, skipped = tier_counts(out, "2")
    assert failed == 0, out[-8000:]
    assert skipped == 0, out[-8000:]
    assert passed == 1, out[-8000:]
