"""Compaction rules (docs/reference/pi.md#compaction), named after checklist items 87–90."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.agent.messages import CompactionSummaryMessage, convert_to_llm_coding
from pi_lsp.ai import (
    ImageContent,
    Model,
    TextContent,
    ThinkingContent,
    Usage,
    UserMessage,
)
from pi_lsp.ai.providers.faux import FAUX_MODEL, FauxProvider, FauxResponse
from pi_lsp.sessions import SessionFile, is_context_overflow, is_retryable_error
from pi_lsp.sessions.compaction import (
    SPLIT_TURN_SEPARATOR,
    SUMMARIZATION_SYSTEM_PROMPT,
    CompactionError,
    CompactionSettings,
    SummaryRequest,
    compact,
    estimate_context_tokens,
    estimate_message_tokens,
    find_cut_point,
    prepare_compaction,
    serialize_conversation,
    should_compact,
)
from pi_lsp.sessions.entries import MessageEntry

from .helpers import assistant, chars, tool_result, user


def memory() -> SessionFile:
    return SessionFile.in_memory(Path("/w"))


# ------------------------------------------------------------------ item 87


def test_item87_context_is_summary_then_kept_then_later() -> None:
    f = memory()
    f.append_message(user("u1"))
    f.append_message(assistant("a1"))
    kept = f.append_message(user("u2"))
    f.append_message(assistant("a2"))
    f.append_compaction("SUMMARY", kept, tokens_before=1234)
    f.append_message(user("u3"))
    f.append_message(assistant("a3"))
    messages = f.build_context().messages
    assert isinstance(messages[0], CompactionSummaryMessage)
    assert messages[0].summary == "SUMMARY"
    assert messages[0].tokens_before == 1234
    texts = [m.content[0].text for m in messages[1:]]
    assert texts == ["u2", "a2", "u3", "a3"]


def test_item87_only_the_last_compaction_counts() -> None:
    f = memory()
    f.append_message(user("u1"))
    k1 = f.append_message(assistant("a1"))
    f.append_compaction("S1", k1, 10)
    k2 = f.append_message(user("u2"))
    f.append_message(assistant("a2"))
    f.append_compaction("S2", k2, 20)
    messages = f.build_context().messages
    assert messages[0].summary == "S2"
    assert [m.content[0].text for m in messages[1:]] == ["u2", "a2"]


# ------------------------------------------------------------------ item 88


def test_item88_should_compact_threshold() -> None:
    s = CompactionSettings()
    assert (s.reserve_tokens, s.keep_recent_tokens) == (16384, 20000)
    window = 100_000
    assert not should_compact(window - 16384, window, s)
    assert should_compact(window - 16384 + 1, window, s)
    assert not should_compact(10**9, window, CompactionSettings(enabled=False))


def test_token_estimates() -> None:
    assert estimate_message_tokens(user(chars(401))) == 101  # ceil(chars / 4)
    image = UserMessage(content=[ImageContent(data="AAAA", mime_type="image/png")])
    assert estimate_message_tokens(image) == 1200  # 4800 chars
    call = assistant("", calls=[("read", {"path": "a.py"})])
    call.content.insert(0, ThinkingContent(thinking="hmm"))
    # "hmm" + "read" + '{"path":"a.py"}'
    assert estimate_message_tokens(call) == -(-(3 + 4 + 15) // 4)
    assert estimate_message_tokens(CompactionSummaryMessage(summary=chars(40))) == 10


def test_context_tokens_from_the_last_valid_usage() -> None:
    msgs: list[Any] = [user(chars(400)), assistant("a", tokens=5000), user(chars(40))]
    est = estimate_context_tokens(msgs)
    assert (est.tokens, est.usage_tokens, est.trailing_tokens, est.last_usage_index) == (
        5010,
        5000,
        10,
        1,
    )
    # an error or all-zero usage is not a source: estimated from the earlier one
    msgs += [assistant("", error="boom", tokens=99999), assistant("z", tokens=0)]
    est = estimate_context_tokens(msgs)
    assert est.last_usage_index == 1
    assert est.tokens == 5000 + 10 + 0 + 1
    assert estimate_context_tokens([user(chars(8))]).last_usage_index is None


# ------------------------------------------------------------------ item 89


def test_item89_cut_never_at_a_tool_result_and_splits_the_turn() -> None:
    f = memory()
    f.append_message(user("old question " + chars(4000)))
    f.append_message(assistant("old answer " + chars(4000)))
    turn = f.append_message(user("do the big thing"))
    call = assistant("", calls=[("read", {"path": "big.txt"})])
    call_id = f.append_message(call)
    result_id = f.append_message(tool_result(call, chars(120_000)))  # 30k tokens
    last = f.append_message(assistant("done " + chars(400)))
    path = f.get_branch()
    cut = find_cut_point(path, 0, len(path), 20_000)
    # the budget is crossed at the tool result: cut at the first valid point after it
    assert path[cut.first_kept_entry_index].id == last
    assert path[cut.first_kept_entry_index].id != result_id
    assert cut.is_split_turn
    assert path[cut.turn_start_index].id == turn
    prep = prepare_compaction(path, CompactionSettings())
    assert prep is not None
    assert prep.first_kept_entry_id == last
    assert [m.role for m in prep.messages_to_summarize] == ["user", "assistant"]
    assert [m.role for m in prep.turn_prefix_messages] == ["user", "assistant", "toolResult"]
    assert prep.file_ops.lists() == (["big.txt"], [])
    assert call_id in {e.id for e in path}


def test_item89_keeps_about_keep_recent_tokens_of_whole_turns() -> None:
    f = memory()
    ids = []
    for i in range(10):
        ids.append(f.append_message(user(f"q{i} " + chars(16_000))))  # ~4k tokens
        f.append_message(assistant(f"a{i} " + chars(16_000)))
    path = f.get_branch()
    cut = find_cut_point(path, 0, len(path), 20_000)
    kept = path[cut.first_kept_entry_index :]
    kept_tokens = sum(estimate_message_tokens(e.message) for e in kept)  # type: ignore[union-attr]
    assert kept_tokens >= 20_000
    assert kept_tokens - estimate_message_tokens(kept[0].message) < 20_000  # type: ignore[union-attr]
    # crossing at an assistant: the cut is that assistant, so its turn is split
    assert kept[0].message.role == "assistant"  # type: ignore[union-attr]
    assert cut.is_split_turn


def test_cut_point_takes_adjacent_settings_changes_along() -> None:
    f = memory()
    f.append_message(user(chars(100_000)))
    f.append_message(assistant(chars(40)))
    change = f.append_model_change("openai", "gpt")
    f.append_thinking_level_change("high")
    f.append_message(user(chars(90_000)))
    path = f.get_branch()
    cut = find_cut_point(path, 0, len(path), 20_000)
    assert path[cut.first_kept_entry_index].id == change
    # as in Pi, the cut entry is then not a user message, so the turn before counts as split
    assert cut.is_split_turn
    assert cut.turn_start_index == 0


roles = st.lists(
    st.tuples(st.sampled_from(["user", "assistant", "tools"]), st.integers(1, 30_000)),
    min_size=1,
    max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(roles)
def test_item89_property_cut_is_valid_and_minimal(spec: list[tuple[str, int]]) -> None:
    f = memory()
    for role, size in spec:
        if role == "user":
            f.append_message(user(chars(size)))
        elif role == "assistant":
            f.append_message(assistant(chars(size)))
        else:
            call = assistant("", calls=[("bash", {"command": "ls"}), ("read", {"path": "x"})])
            f.append_message(call)
            f.append_message(tool_result(call, chars(size), 0))
            f.append_message(tool_result(call, chars(size // 2), 1))
    path = f.get_branch()
    keep = 20_000
    cut = find_cut_point(path, 0, len(path), keep)
    first = path[cut.first_kept_entry_index]
    assert isinstance(first, MessageEntry)
    assert first.message.role != "toolResult"
    tokens = [estimate_message_tokens(e.message) for e in path]  # type: ignore[union-attr]
    crossing = next((j for j in range(len(path) - 1, -1, -1) if sum(tokens[j:]) >= keep), None)
    if crossing is None:  # everything fits: keep from the first valid point
        assert cut.first_kept_entry_index == 0
    else:
        assert cut.first_kept_entry_index >= crossing
        between = path[crossing : cut.first_kept_entry_index]
        assert all(e.message.role == "toolResult" for e in between)  # type: ignore[union-attr]


def test_prepare_compaction_edges() -> None:
    f = memory()
    assert prepare_compaction(f.get_branch(), CompactionSettings()) is None
    f.append_message(user("small"))
    f.append_message(assistant("small"))
    assert prepare_compaction(f.get_branch(), CompactionSettings()) is None  # nothing to drop
    f.append_compaction("S", f.entries[0].id, 1)
    assert prepare_compaction(f.get_branch(), CompactionSettings()) is None  # already


def test_prepare_starts_at_the_previous_first_kept_entry() -> None:
    f = memory()
    f.append_message(user("u0 " + chars(100_000)))
    k = f.append_message(user("u1 " + chars(100)))
    f.append_message(assistant("a1 " + chars(100)))
    f.append_compaction("PREVIOUS", k, 30_000, details={"readFiles": ["r.py"], "modifiedFiles": []})
    f.append_message(user("u2 " + chars(100)))
    f.append_message(assistant("a2 " + chars(100_000)))
    prep = prepare_compaction(f.get_branch(), CompactionSettings())
    assert prep is not None
    assert prep.previous_summary == "PREVIOUS"
    texts = [m.content[0].text[:2] for m in prep.messages_to_summarize]
    assert texts == ["u1", "a1"]  # kept-but-unsummarised messages are summarised now
    assert "r.py" in prep.file_ops.read


# ------------------------------------------------------------------ serialisation, item 90


def test_serialize_conversation_format() -> None:
    call = assistant("Let me look.", calls=[("read", {"path": "a.py", "limit": 10})])
    call.content.insert(0, ThinkingContent(thinking="thinking hard"))
    text = serialize_conversation(
        convert_to_llm_coding(
            [user("fix it"), call, tool_result(call, "z" * 2500), assistant("Fixed.")]
        )
    )
    assert text.split("\n\n[Tool result]")[0] == (
        "[User]: fix it\n\n"
        "[Assistant thinking]: thinking hard\n\n"
        "[Assistant]: Let me look.\n\n"
        '[Assistant tool calls]: read(path="a.py", limit=10)'
    )
    assert "[Tool result]: " + "z" * 2000 + "\n\n[... 500 more characters truncated]" in text
    assert text.endswith("\n\n[Assistant]: Fixed.")


def test_item90_summary_reaches_the_model_as_a_user_message() -> None:
    f = memory()
    k = f.append_message(user("u"))
    f.append_compaction("the summary", k, 5)
    llm = convert_to_llm_coding(f.build_context().messages)
    assert llm[0].role == "user"
    assert llm[0].content[0].text == (
        "The conversation history before this point was compacted into the following "
        "summary:\n\n<summary>\nthe summary\n</summary>"
    )


# ------------------------------------------------------------------ summaries via the faux model


def _request(faux: FauxProvider, **kw: Any) -> SummaryRequest:
    return SummaryRequest(model=kw.pop("model", FAUX_MODEL), stream_fn=faux.stream, **kw)


def _big_session() -> SessionFile:
    f = memory()
    f.append_message(user("please edit a.py " + chars(60_000)))
    call = assistant(
        "", calls=[("edit", {"path": "a.py", "edits": []}), ("read", {"path": "b.py"})]
    )
    f.append_message(call)
    f.append_message(tool_result(call, "ok", 0))
    f.append_message(tool_result(call, "b", 1))
    f.append_message(assistant("done"))
    f.append_message(user("next " + chars(90_000)))
    f.append_message(assistant("ok " + chars(4)))
    return f


async def test_compact_with_the_faux_model() -> None:
    f = _big_session()
    prep = prepare_compaction(f.get_branch(), CompactionSettings())
    assert prep is not None
    assert not prep.is_split_turn
    faux = FauxProvider([FauxResponse.text("## Goal\nEdit a.py")])
    result = await compact(prep, _request(faux), custom_instructions="focus on a.py")
    assert result.summary == (
        "## Goal\nEdit a.py\n\n<read-files>\nb.py\n</read-files>\n\n"
        "<modified-files>\na.py\n</modified-files>"
    )
    assert result.details == {"readFiles": ["b.py"], "modifiedFiles": ["a.py"]}
    assert result.first_kept_entry_id == prep.first_kept_entry_id
    context = faux.calls[0]
    assert context.system_prompt == SUMMARIZATION_SYSTEM_PROMPT
    prompt = context.messages[0].content[0].text
    assert prompt.startswith("<conversation>\n[User]: please edit a.py")
    assert "</conversation>\n\n" in prompt
    for section in (
        "## Goal",
        "## Constraints & Preferences",
        "### Done",
        "### In Progress",
        "### Blocked",
        "## Key Decisions",
        "## Next Steps",
        "## Critical Context",
    ):
        assert section in prompt
    assert prompt.endswith("Additional focus: focus on a.py")
    assert "<previous-summary>" not in prompt
    assert faux.options[0].max_tokens == int(0.8 * 16384)


async def test_update_prompt_with_previous_summary_and_max_tokens_cap() -> None:
    f = _big_session()
    f.append_compaction("EARLIER", f.entries[-2].id, 1000)
    f.append_message(user("more " + chars(100_000)))
    f.append_message(assistant("fine " + chars(100)))
    prep = prepare_compaction(f.get_branch(), CompactionSettings())
    assert prep is not None
    faux = FauxProvider([FauxResponse.text("merged")])
    small = FAUX_MODEL.model_copy(update={"max_tokens": 1000, "reasoning": True})
    await compact(prep, _request(faux, model=small, thinking_level="high"))
    prompt = faux.calls[0].messages[0].content[0].text
    assert "<previous-summary>\nEARLIER\n</previous-summary>" in prompt
    assert "NEW messages" in prompt
    assert faux.options[0].max_tokens == 1000
    assert faux.options[0].reasoning == "high"


async def test_split_turn_makes_two_summaries() -> None:
    f = memory()
    f.append_message(user("old " + chars(2000)))
    f.append_message(assistant("old answer"))
    f.append_message(user("big turn"))
    call = assistant("", calls=[("bash", {"command": "make"})])
    f.append_message(call)
    f.append_message(tool_result(call, chars(100_000)))
    f.append_message(assistant("after " + chars(100)))
    prep = prepare_compaction(f.get_branch(), CompactionSettings())
    assert prep is not None
    assert prep.is_split_turn

    def answer(context: Any, options: Any) -> FauxResponse:
        text = context.messages[0].content[0].text
        return FauxResponse.text("PREFIX" if "BEGINNING of one turn" in text else "HISTORY")

    faux = FauxProvider([answer, answer])
    result = await compact(prep, _request(faux))
    assert result.summary == "HISTORY" + SPLIT_TURN_SEPARATOR + "PREFIX"
    assert sorted(o.max_tokens for o in faux.options) == [int(0.5 * 16384), int(0.8 * 16384)]


async def test_summary_error_raises() -> None:
    f = _big_session()
    prep = prepare_compaction(f.get_branch(), CompactionSettings())
    assert prep is not None
    faux = FauxProvider([FauxResponse.error("503 overloaded")])
    with pytest.raises(CompactionError, match=r"^Summarization failed: 503 overloaded$"):
        await compact(prep, _request(faux))


def test_model_usage_fixture_sanity() -> None:
    m: Model = FAUX_MODEL
    assert m.context_window > 0
    assert Usage(input=1).input == 1
    assert TextContent(text="x").text == "x"


# ------------------------------------------------------------------ overflow classification


@pytest.mark.parametrize(
    "text",
    [
        "prompt is too long: 213462 tokens > 200000 maximum",
        "Your input exceeds the context window of this model",
        "This model's maximum context length is 8192 tokens",
        "error code: context_length_exceeded",
        "Too many tokens in the request",
        "the request exceeds the available context size, try increasing it",
        "413 status code (no body)",
    ],
)
def test_overflow_texts(text: str) -> None:
    assert is_context_overflow(assistant("", error=text))
    assert not is_retryable_error(assistant("", error=text))


@pytest.mark.parametrize(
    "text",
    [
        "ThrottlingException: Too many tokens, please wait (rate limit)",
        "429 Too Many Requests: too many tokens per minute",
        "503 service unavailable",
    ],
)
def test_rate_limits_are_never_overflows(text: str) -> None:
    assert not is_context_overflow(assistant("", error=text))
    assert is_retryable_error(assistant("", error=text))


def test_silent_overflows() -> None:
    ok = assistant("fine", tokens=0)
    ok.usage.input = 150_000
    assert is_context_overflow(ok, 128_000)
    assert not is_context_overflow(ok, 200_000)
    cut = assistant("", stop_reason="length")
    cut.usage.input = 127_000
    assert is_context_overflow(cut, 128_000)
    assert not is_retryable_error(assistant("", error="insufficient_quota"))


def test_compaction_settings_fit_small_windows_and_leave_large_ones_alone() -> None:
    from pi_lsp.sessions.compaction import CompactionSettings, fitted_to_window

    pi_defaults = CompactionSettings()
    assert fitted_to_window(pi_defaults, 200_000) is pi_defaults
    assert fitted_to_window(pi_defaults, 64_000) is pi_defaults
    small = fitted_to_window(pi_defaults, 4096)
    assert (small.reserve_tokens, small.keep_recent_tokens) == (1024, 1024)
    mid = fitted_to_window(pi_defaults, 32_768)  # the reserve works; keeping 20k leaves no cut
    assert (mid.reserve_tokens, mid.keep_recent_tokens) == (16_384, 8192)
    custom = CompactionSettings(keep_recent_tokens=12)
    assert fitted_to_window(custom, 20_000) is custom
