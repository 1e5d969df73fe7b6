"""The golden notifications (tests/golden/notifications/, shared with the extension's unit
tests) fit the contract as a closed JSON Schema, cover every notification and event kind,
and are what the server builds for the same state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workspace_agent import contract
from workspace_agent import protocol as p
from workspace_agent.agent.context_meter import context_meter
from workspace_agent.sandbox.status import SandboxStatus

from tests.support.contract_schema import problems

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "tests" / "golden" / "notifications"
SOURCE = json.loads((ROOT / "contract" / "workspace-agent.json").read_text(encoding="utf-8"))


def golden(name: str) -> list[Any]:
    return json.loads((FOLDER / f"{name}.json").read_text("utf-8"))


def test_every_notification_of_the_contract_has_its_golden_file():
    names = {n["method"].split("/", 1)[1] for n in SOURCE["notifications"]}
    assert {path.stem for path in FOLDER.glob("*.json")} == names


@pytest.mark.parametrize("notification", SOURCE["notifications"], ids=lambda n: n["method"])
def test_each_golden_payload_fits_the_contract(notification: dict[str, Any]):
    examples = golden(notification["method"].split("/", 1)[1])
    assert examples
    for example in examples:
        assert problems(example, notification["params"]) == [], example


def test_the_golden_events_have_every_kind():
    assert {event["kind"] for event in golden("event")} == set(contract.EVENT_KINDS)


def test_the_server_builds_the_golden_todos():
    items = [
        p.TodoItem("1", "Fix the parser", "completed"),
        p.TodoItem("2", "Document it", "in_progress"),
    ]
    failed = p.ItemCheck(False, "1 failed, 3 passed", "F...\n1 failed, 3 passed", "check", 2140)
    checked = [
        p.TodoItem("1", "Fix the parser", "in_progress", failed, "pytest -q tests/test_parser.py"),
        p.TodoItem("2", "Document it", "pending"),
    ]
    assert golden("todos") == [p.todos_payload("s1", items), p.todos_payload("s1", checked)]


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


def test_the_server_builds_the_golden_context_meters():
    assert golden("contextMeter") == [
        context_meter("s1", 62_400, 200_000),
        context_meter("s1", 150_000, 200_000),
    ]
