"""No API key, authorization header or scrubbed-environment value reaches a session file."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.sessions import Redactor, SessionStore

from .helpers import assistant, tool_result, user

FAKE_KEY = "sk-test-FAKE0123456789abcdefSECRET"
FAKE_TOKEN = "ghp_fakeTokenValue0987654321"
CUSTOM = "custom-provider-secret-value-42"


def test_env_secrets_and_headers_never_reach_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("GITHUB_TOKEN", FAKE_TOKEN)
    monkeypatch.setenv("MY_LLM_KEY", CUSTOM)  # not secret-looking: named by apiKeyEnv
    monkeypatch.setenv("HARMLESS", "visible-value-1234")
    store = SessionStore(tmp_path / "s", tmp_path, redactor=Redactor(extra_names={"MY_LLM_KEY"}))
    f = store.create()
    f.append_message(user(f"my key is {FAKE_KEY}, please use it"))
    call = assistant("", calls=[("read", {"path": f"{tmp_path}/.env"})])
    f.append_message(call)
    f.append_message(
        tool_result(
            call,
            f"OPENAI_API_KEY={FAKE_KEY}\nGITHUB_TOKEN={FAKE_TOKEN}\nMY_LLM_KEY={CUSTOM}\n"
            "curl -H 'Authorization: Bearer abcdefghijklmnop1234' -H \"x-api-key: zzzzzzzzzzzz\"\n"
            "HARMLESS=visible-value-1234",
        )
    )
    f.append_message(assistant(f"Found {FAKE_TOKEN} and sk-ant-api03-abcdefghijklmnopqrstuvwxyz"))
    text = f.path.read_text()
    for secret in (
        FAKE_KEY,
        FAKE_TOKEN,
        CUSTOM,
        "abcdefghijklmnop1234",
        "zzzzzzzzzzzz",
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
    ):
        assert secret not in text, secret
    assert "[REDACTED]" in text
    assert "visible-value-1234" in text
    # the file still loads, with the redacted text in place of the secret
    ctx = store.open(f.session_id).build_context()
    assert "[REDACTED]" in ctx.messages[0].content[0].text


def test_short_values_are_not_treated_as_secrets() -> None:
    r = Redactor({"SOME_TOKEN": "1", "API_KEY": "abc"})
    assert r.text("1 abc") == "1 abc"
