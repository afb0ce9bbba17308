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


def test_opaque_replay_data_keeps_its_bytes_but_not_known_secrets() -> None:
    """A reasoning item's ciphertext or a Gemini signature may contain a key *shape* by
    chance (about 1 in 4000 OpenAI reasoning items did in a sample); changing it would make
    the provider reject the replay after a resume. Only known secret values are cut there;
    readable text inside a reasoning item (its summary) is redacted as usual."""
    import json

    from pi_lsp.ai import AssistantMessage, TextContent, ThinkingContent, ToolCall

    chance = "gAAAAAB-sk-" + "x" * 30 + "=="  # ciphertext that happens to contain "sk-…"
    item = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": f"The user pasted {FAKE_KEY}."}],
        "encrypted_content": chance + CUSTOM,
    }
    message = AssistantMessage(
        content=[
            ThinkingContent(thinking="t", thinking_signature=json.dumps(item)),
            TextContent(text="x", text_signature="AAAA/sk-" + "y" * 24),
            ToolCall(id="c", name="ls", thought_signature="QUl6YQ+AIza" + "z" * 32),
        ],
        stop_reason="toolUse",
    )
    redactor = Redactor(env={}, extra_values={CUSTOM})
    out = redactor.data(message.to_wire())
    replayed = json.loads(out["content"][0]["thinkingSignature"])
    assert replayed["encrypted_content"] == chance + "[REDACTED]"  # the exact secret only
    assert FAKE_KEY not in json.dumps(replayed)
    assert out["content"][1]["textSignature"] == "AAAA/sk-" + "y" * 24
    assert out["content"][2]["thoughtSignature"] == "QUl6YQ+AIza" + "z" * 32
    untouched = dict(item, summary=[], encrypted_content=chance)
    signature = json.dumps(untouched)
    again = redactor.data({"thinkingSignature": signature})
    assert again["thinkingSignature"] == signature  # byte for byte when nothing is cut
