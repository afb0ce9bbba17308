"""Settings: merge order, key-by-key validation, unknown keys, client capabilities."""

from __future__ import annotations

from pi_lsp.lsp.settings import Settings, client_features, effective, merge_settings


def test_default_settings_ask_before_bash_and_apply_edits() -> None:
    s = Settings()
    assert s.thinking_level == "off"
    assert s.permissions.bash == "ask"
    assert s.edits == "apply"
    assert s.follow_edits is False


def test_camel_case_keys_apply() -> None:
    r = merge_settings(
        Settings(),
        {
            "provider": "faux",
            "fauxScript": "/tmp/s.json",
            "thinkingLevel": "high",
            "permissions": {"bash": "allow"},
            "followEdits": True,
            "steeringMode": "all",
        },
    )
    assert not r.problems
    assert not r.unknown
    assert r.settings.provider == "faux"
    assert r.settings.faux_script == "/tmp/s.json"
    assert r.settings.thinking_level == "high"
    assert r.settings.permissions.bash == "allow"
    assert r.settings.follow_edits is True
    assert r.settings.steering_mode == "all"


def test_bad_value_is_reported_by_key_and_previous_kept() -> None:
    base = merge_settings(Settings(), {"thinkingLevel": "low"}).settings
    r = merge_settings(base, {"thinkingLevel": "extreme", "edits": "confirm"})
    assert [p.key for p in r.problems] == ["pi.thinkingLevel"]
    assert "extreme" in r.problems[0].message
    assert r.settings.thinking_level == "low"
    assert r.settings.edits == "confirm"


def test_nested_bad_and_unknown_keys() -> None:
    r = merge_settings(Settings(), {"permissions": {"bash": "sometimes", "rm": "no"}, "colour": 1})
    assert [p.key for p in r.problems] == ["pi.permissions.bash"]
    assert sorted(r.unknown) == ["pi.colour", "pi.permissions.rm"]
    assert r.settings.permissions.bash == "ask"


def test_not_an_object() -> None:
    r = merge_settings(Settings(), ["x"])
    assert r.problems
    assert r.problems[0].key == "pi"


def test_effective_recomputes_from_base_but_keeps_previous_for_bad_keys() -> None:
    base = merge_settings(Settings(), {"provider": "faux"}).settings
    previous = merge_settings(base, {"thinkingLevel": "medium", "edits": "confirm"}).settings
    r = effective(base, previous, {"thinkingLevel": 7})
    assert r.settings.thinking_level == "medium"  # bad value: previous kept
    assert r.settings.edits == "apply"  # no longer configured: back to base
    assert r.settings.provider == "faux"
    r2 = effective(base, previous, {"permissions": "all"})
    assert r2.settings.permissions.bash == previous.permissions.bash
    r3 = effective(base, previous, 5)
    assert r3.settings == previous


def test_client_features_are_read_and_a_bad_update_budget_falls_back() -> None:
    f, report = client_features(
        {"clientCapabilities": {"saveDocuments": True, "maxUpdatesPerSecond": 30}}
    )
    assert f.save_documents
    assert f.max_updates_per_second == 30
    assert abs(f.update_interval - 1 / 30) < 1e-9
    assert not report.problems
    f2, report2 = client_features({"clientCapabilities": {"maxUpdatesPerSecond": 0, "x": 1}})
    assert f2.max_updates_per_second == 60
    assert report2.problems[0].key == "pi.clientCapabilities.maxUpdatesPerSecond"
    assert report2.unknown == ["pi.clientCapabilities.x"]
    slow, _ = client_features({"clientCapabilities": {"maxUpdatesPerSecond": 2}})
    assert slow.update_interval == 0.1  # merging never spans more than ~100 ms


def test_provider_and_base_url_are_checked() -> None:
    r = merge_settings(Settings(), {"provider": "openia", "baseUrl": "localhost:8080"})
    assert sorted(p.key for p in r.problems) == ["pi.baseUrl", "pi.provider"]
    assert "unknown provider" in next(p.message for p in r.problems if p.key == "pi.provider")
    assert r.settings.provider is None
    assert r.settings.base_url is None
    ok = merge_settings(Settings(), {"provider": "ollama", "baseUrl": "http://127.0.0.1:11434/v1"})
    assert not ok.problems
