"""The contract as a closed JSON Schema (the generator's own `json_schema`), for tests that
check what went over the wire, or a golden file, against it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[2]


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


def problems(value: Any, type_name: str) -> list[str]:
    """Where `value` breaks the contract's `type_name` (empty: it fits)."""
    validator = Draft202012Validator({"$ref": f"#/$defs/{type_name}", "$defs": DEFS})
    return [
        f"{'/'.join(map(str, error.absolute_path)) or '.'}: {error.message}"
        for error in validator.iter_errors(value)
    ]
