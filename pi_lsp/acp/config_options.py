"""Session config options: the model, the thinking level and plan/act
(``session/set_config_option``), and the same thinking levels as session modes for clients
that only know ``session/set_mode`` (ACP's modes were taken by the thinking levels first, so
plan/act is a config option, id ``mode``, category ``mode``).

Model values are ``provider/id``; the list is the configured model plus the catalog's other
models of the same provider. Pure functions over the SDK's schema models.
"""

from __future__ import annotations

from collections.abc import Sequence

from acp.schema import (
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)

from ..ai.thinking_levels import THINKING_LEVELS
from ..ai.types import Model

MODEL = "model"
THINKING = "thinking"
MODE = "mode"
PLAN_MODES = {
    "act": ("Act", "The agent may edit files and run commands"),
    "plan": ("Plan", "Read-only: the agent explores and writes a plan, nothing is changed"),
}
THINKING_NAMES = {
    "off": "Thinking off",
    "minimal": "Minimal thinking",
    "low": "Low thinking",
    "medium": "Medium thinking",
    "high": "High thinking",
    "xhigh": "Extra-high thinking",
}


def model_value(model: Model) -> str:
    return f"{model.provider}/{model.id}"


def config_options(
    current: Model, models: Sequence[Model], thinking: str, mode: str = "act"
) -> list[SessionConfigOptionSelect]:
    choices = list(models)
    if not any(model_value(m) == model_value(current) for m in choices):
        choices.insert(0, current)
    return [
        SessionConfigOptionSelect(
            type="select",
            id=MODEL,
            name="Model",
            category="model",
            current_value=model_value(current),
            options=[
                SessionConfigSelectOption(value=model_value(m), name=m.name or m.id)
                for m in choices
            ],
        ),
        SessionConfigOptionSelect(
            type="select",
            id=THINKING,
            name="Thinking",
            category="thought_level",
            current_value=thinking,
            options=[
                SessionConfigSelectOption(value=level, name=THINKING_NAMES.get(level, level))
                for level in THINKING_LEVELS
            ],
        ),
        SessionConfigOptionSelect(
            type="select",
            id=MODE,
            name="Mode",
            category="mode",
            description=(
                "Plan: read-only tools; after switching to Act the next prompt carries out the plan"
            ),
            current_value=mode,
            options=[
                SessionConfigSelectOption(value=value, name=name, description=description)
                for value, (name, description) in PLAN_MODES.items()
            ],
        ),
    ]


def modes(thinking: str) -> SessionModeState:
    """The thinking levels as modes, for clients without config options."""
    return SessionModeState(
        current_mode_id=thinking,
        available_modes=[
            SessionMode(id=level, name=THINKING_NAMES.get(level, level))
            for level in THINKING_LEVELS
        ],
    )


def find_model(models: Sequence[Model], value: str) -> Model | None:
    for model in models:
        if model_value(model) == value:
            return model
    return None
