"""JSON Schema of the ``pi/*`` wire contract, exported from the pydantic models in ``models``.

The one source of truth for what the server sends and accepts: ``docs/protocol.schema.json`` is
this module's output (checked in; ``tests/lsp/test_protocol_schema.py`` fails when it is stale)
and the VS Code client's ``src/protocol/generated.ts`` is generated from that file with
``json-schema-to-typescript`` (``cd vscode-client && npm run gen:protocol`` runs both steps).

``pi/event``'s ``event`` is ``contract.PiEvent``: the union of the event declarations
(``pi_lsp/wire_events.py``, plus ``review_update``), exported with the models it refers to.

Beside the models, three method tables (``PiRequests``, ``PiServerRequests``,
``PiNotifications``: method → ``{params, result}``, from ``contract``) let a client type one
function per method without spelling a model name twice.

``python -m pi_lsp.lsp.protocol.schema [PATH]`` writes the schema to PATH (default: stdout).
"""

from __future__ import annotations

import inspect
import json
import sys
from typing import Any

from pydantic.json_schema import models_json_schema

from . import contract, methods, models

SCHEMA_ID = "https://pi-lsp.invalid/protocol.schema.json"


def contract_models() -> list[type[models.WireParams]]:
    """Every wire model defined in ``models`` and ``contract`` (params, results and their
    parts), by name."""
    found = [
        obj
        for module in (models, contract)
        for obj in vars(module).values()
        if inspect.isclass(obj)
        and issubclass(obj, models.WireParams)
        and obj is not models.WireParams
        and obj.__module__ == module.__name__
    ]
    return sorted(found, key=lambda m: m.__name__)


def _method_table(title: str, table: dict[str, contract.Pair], description: str) -> dict[str, Any]:
    """``{method: {params, result}}`` as one object type (a notification has no result)."""
    props: dict[str, Any] = {}
    for method, (params, result) in table.items():
        entry: dict[str, Any] = {"params": {"$ref": f"#/$defs/{params.__name__}"}}
        if result is not None:
            entry["result"] = {"$ref": f"#/$defs/{result.__name__}"}
        props[method] = {
            "type": "object",
            "properties": entry,
            "required": list(entry),
            "additionalProperties": False,
        }
    return {
        "title": title,
        "description": description,
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }


def _drop_field_titles(model_schema: dict[str, Any]) -> dict[str, Any]:
    """pydantic titles every field ("Sessionid"); a code generator turns each title into a
    named type alias, so fields keep only their description."""
    props = model_schema.get("properties")
    if isinstance(props, dict):
        for field in props.values():
            if isinstance(field, dict):
                field.pop("title", None)
    return model_schema


def _method_enum(title: str, names: tuple[str, ...], description: str) -> dict[str, Any]:
    return {"title": title, "description": description, "type": "string", "enum": list(names)}


def protocol_schema() -> dict[str, Any]:
    """The schema document: every model under ``$defs``, each also a property of the root so a
    code generator emits all of them, plus the method names as string enums."""
    # validation mode: a field with a default may be left out on the wire in both directions
    # (results are sent with exclude_none), so "optional" is the truthful reading for clients.
    _, defs = models_json_schema(
        [(m, "validation") for m in contract_models()],
        by_alias=True,
        ref_template="#/$defs/{model}",
    )
    all_defs: dict[str, Any] = {
        name: _drop_field_titles(d) for name, d in defs.get("$defs", {}).items()
    }
    all_defs["RequestMethod"] = _method_enum(
        "RequestMethod", methods.REQUESTS, "Client → server pi/* requests."
    )
    all_defs["ServerMethod"] = _method_enum(
        "ServerMethod",
        (
            methods.EVENT,
            methods.SAVE_DOCUMENTS,
            methods.REQUEST_PERMISSION,
            methods.ASK,
            methods.LSP_QUERY,
        ),
        "Server → client pi/* notifications and requests.",
    )
    all_defs["ClientNotificationMethod"] = _method_enum(
        "ClientNotificationMethod", (methods.DIAGNOSTICS,), "Client → server pi/* notifications."
    )
    all_defs["PiRequests"] = _method_table(
        "PiRequests", contract.REQUEST_TYPES, "Client → server requests: params and result."
    )
    all_defs["PiServerRequests"] = _method_table(
        "PiServerRequests",
        contract.SERVER_REQUEST_TYPES,
        "Server → client requests: params and result.",
    )
    all_defs["PiNotifications"] = _method_table(
        "PiNotifications", contract.NOTIFICATION_TYPES, "Notifications: params."
    )
    names = sorted(all_defs)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "PiProtocol",
        "description": (
            "The pi/* wire contract of pi-lsp (docs/protocol.md), generated from "
            "pi_lsp/lsp/protocol/models.py and contract.py by "
            "`python -m pi_lsp.lsp.protocol.schema`."
        ),
        "type": "object",
        "properties": {name: {"$ref": f"#/$defs/{name}"} for name in names},
        "$defs": {name: all_defs[name] for name in names},
    }


def render() -> str:
    """The schema as the checked-in file holds it (stable key order, trailing newline)."""
    return json.dumps(protocol_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = render()
    if args:
        with open(args[0], "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
