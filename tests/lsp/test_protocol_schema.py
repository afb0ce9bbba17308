"""The checked-in JSON Schema of the wire contract (``docs/protocol.schema.json``) is what the
server's pydantic models export now: a model change without regenerating fails here. (The VS Code
client's ``generated.ts`` is checked against this file in tests/editors/test_vscode_unit.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from pi_lsp.lsp.protocol import contract, methods, models, schema

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "protocol.schema.json"
REGENERATE = (
    "cd vscode-client && npm run gen:protocol "
    "(or python -m pi_lsp.lsp.protocol.schema docs/protocol.schema.json)"
)


def test_checked_in_schema_is_current() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema.render(), (
        f"docs/protocol.schema.json is stale; regenerate: {REGENERATE}"
    )


def test_schema_covers_every_contract_model_and_method() -> None:
    doc = json.loads(schema.render())
    defs = doc["$defs"]
    for model in schema.contract_models():
        assert model.__name__ in defs
        assert doc["properties"][model.__name__] == {"$ref": f"#/$defs/{model.__name__}"}
    assert defs["RequestMethod"]["enum"] == list(methods.REQUESTS)
    assert {"PromptParams", "PromptResult", "StateResult", "RequestPermissionParams"} <= set(defs)


def test_schema_speaks_the_wire_names_and_optionality() -> None:
    defs = json.loads(schema.render())["$defs"]
    prompt = defs["PromptParams"]
    assert "sessionId" in prompt["properties"]
    assert "deliverAs" in prompt["properties"]
    assert prompt["required"] == ["text"]
    # field docstrings are carried as descriptions; pydantic's per-field titles are not
    cost = defs["ModelInfo"]["properties"]["cost"]
    assert "per million tokens" in cost["description"]
    assert "title" not in cost
    assert models.StateResult.__name__ in defs


def test_method_tables_name_every_method_with_its_models() -> None:
    """``PiRequests`` & co. are what the clients' typed functions are built from: every method
    has its params (and, for a request, its result) model, and nothing else is listed."""
    assert list(contract.REQUEST_TYPES) == list(methods.REQUESTS)
    assert set(contract.SERVER_REQUEST_TYPES) == {
        methods.SAVE_DOCUMENTS,
        methods.REQUEST_PERMISSION,
        methods.ASK,
        methods.LSP_QUERY,
    }
    assert set(contract.NOTIFICATION_TYPES) == {methods.EVENT, methods.DIAGNOSTICS}
    defs = json.loads(schema.render())["$defs"]
    table = defs["PiRequests"]["properties"]
    assert table[methods.RESTORE]["properties"] == {
        "params": {"$ref": "#/$defs/RestoreParams"},
        "result": {"$ref": "#/$defs/RestoreResult"},
    }
    assert defs["PiNotifications"]["properties"][methods.EVENT]["required"] == ["params"]
    for name in ("PiRequests", "PiServerRequests", "PiNotifications"):
        for entry in defs[name]["properties"].values():
            for ref in entry["properties"].values():
                assert ref["$ref"].removeprefix("#/$defs/") in defs


def test_pi_event_is_a_union_of_the_declared_events() -> None:
    """``pi/event``'s ``event`` is exported as ``PiEvent``: one declared model per kind, each
    naming its ``type`` as a constant (a discriminated union in the generated types), with no
    field beyond its declaration."""
    defs = json.loads(schema.render())["$defs"]
    assert defs["EventNotification"]["properties"]["event"] == {"$ref": "#/$defs/PiEvent"}
    members = [ref["$ref"].removeprefix("#/$defs/") for ref in defs["PiEvent"]["anyOf"]]
    kinds = set()
    for name in members:
        event = defs[name]
        assert event["additionalProperties"] is False
        assert "type" in event["required"]
        kinds.add(event["properties"]["type"]["const"])
    assert {"agent_start", "message_update", "tool_execution_end", "queue_update"} <= kinds
    assert {"review_update", "todo_update", "mode_update", "retry", "compaction_end"} <= kinds
    update = defs["MessageUpdateEvent"]["properties"]["assistantMessageEvent"]
    assert {ref["$ref"] for ref in update["anyOf"]} == {
        "#/$defs/ContentBoundary",
        "#/$defs/ContentDelta",
        "#/$defs/ToolCallDone",
    }
