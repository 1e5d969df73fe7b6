"""The golden notifications (tests/golden/notifications/, shared with the extension's unit
tests) fit the contract as a closed JSON Schema, cover every notification and event kind,
and are what the server builds for the same state."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from workspace_agent import contract
from workspace_agent import protocol as p
from workspace_agent.sandbox.status import SandboxStatus

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "tests" / "golden" / "notifications"
SOURCE = json.loads((ROOT / "contract" / "workspace-agent.json").read_text(encoding="utf-8"))


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location(
        "generate_contract", ROOT / "scripts" / "generate_contract.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


GENERATOR = _generator()
DEFS = GENERATOR.json_schema(GENERATOR.load(ROOT), closed=True)["$defs"]


def golden(name: str) -> list[Any]:
    return json.loads((FOLDER / f"{name}.json").read_text("utf-8"))


def test_every_notification_of_the_contract_has_its_golden_file():
    names = {n["method"].split("/", 1)[1] for n in SOURCE["notifications"]}
    assert {path.stem for path in FOLDER.glob("*.json")} == names


@pytest.mark.parametrize("notification", SOURCE["notifications"], ids=lambda n: n["method"])
def test_each_golden_payload_fits_the_contract(notification: dict[str, Any]):
    validator = Draft202012Validator({"$ref": f"#/$defs/{notification['params']}", "$defs": DEFS})
    examples = golden(notification["method"].split("/", 1)[1])
    assert examples
    for example in examples:
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(example)]
        assert errors == [], example


def test_the_golden_events_have_every_kind():
    assert {event["kind"] for event in golden("event")} == set(contract.EVENT_KINDS)


def test_the_server_builds_the_golden_todos():
    items = [
        p.TodoItem("1", "Fix the parser", "completed"),
        p.TodoItem("2", "Document it", "in_progress"),
    ]
    assert golden("todos") == [p.todos_payload("s1", items)]


def test_the_server_builds_the_golden_sandbox_states():
    assert golden("sandbox") == [
        SandboxStatus("auto", True).to_wire(),
        SandboxStatus(
            "required",
            False,
            "bwrap is not installed",
            "install bubblewrap (sudo apt install bubblewrap)",
        ).to_wire(),
        SandboxStatus("off", False).to_wire(),
    ]
