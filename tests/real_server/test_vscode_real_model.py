"""A VS Code user chats with a real model: the extension in code-server's extension host (the
real-model pass ``tier 2r`` of ``vscode-client/test/e2e/run.mjs``: tier 2's ``real.test.js``)
against this checkout's ``pi-lsp`` and the llama.cpp server of this tier (OpenAI-compatible
endpoint, 8k context: the agent's system prompt and tool definitions need more than the
tier's 2k). The pass is part of ``tests/editors/test_vscode.py``'s one run (one build, one
code-server: ``tiers_run``), which starts llama.cpp for it. Skips with the reason when the
code-server cache or the llama.cpp runtime is missing."""

from __future__ import annotations

import re

import pytest

from tests.editors.test_vscode import tiers_run

pytestmark = [pytest.mark.real_server, pytest.mark.editor, pytest.mark.slow]

LINE = re.compile(r"^tier 2r: (\d+) passed, (\d+) failed, (\d+) skipped", re.M)


@pytest.mark.timeout(1200)
def test_a_user_chats_with_a_real_model_in_the_panel(request: pytest.FixtureRequest) -> None:
    run = tiers_run(request)
    if run.real_skipped is not None:
        pytest.skip(run.real_skipped)
    assert run.real_failed is None, run.real_failed
    out = run.out
    found = LINE.search(out)
    assert found, f"no result line for tier 2r:\n{out[-6000:]}"
    passed, failed, skipped = map(int, found.groups())
    assert failed == 0, out[-8000:]
    assert skipped == 0, out[-8000:]
    assert passed == 1, out[-8000:]
