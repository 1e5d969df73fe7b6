"""The tests stay sorted by level (docs/architecture.md, Tests): every test file sits in a
level's folder, never flat in tests/; the unit tests mirror the source packages; a unit
test imports none of the support modules that start a server, an agent, a CLI or a
process, so `make test-unit` stays a matter of seconds; and no test imports a conftest
(fixtures come to a test by name, helpers from tests/support)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
SOURCE = TESTS.parent / "server" / "workspace_agent"
LEVELS = {"unit", "lsp", "acp", "cli", "processes", "sandbox", "release", "neovim"}
STARTS_THINGS = {
    "tests.support.server",
    "tests.support.client",
    "tests.support.acp",
    "tests.support.cli",
    "tests.support.mcp",
    "tests.support.processes",
}
"""Support modules whose helpers spawn the agent or another process."""


def all_test_files() -> list[Path]:
    return sorted(TESTS.rglob("test_*.py"))


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_every_test_file_is_in_a_level_folder():
    misplaced = [
        str(path.relative_to(TESTS))
        for path in all_test_files()
        if "node_modules" not in path.parts
        and "mcp_servers" not in path.parts
        and path.relative_to(TESTS).parts[0] not in LEVELS
    ]
    assert misplaced == [], f"move these into one of tests/{sorted(LEVELS)}: {misplaced}"


def test_unit_tests_mirror_the_source_packages():
    packages = {path.name for path in SOURCE.iterdir() if path.is_dir() and any(path.glob("*.py"))}
    folders = {path.name for path in (TESTS / "unit").iterdir() if path.is_dir()}
    folders.discard("__pycache__")
    assert folders <= packages, f"tests/unit/ folders with no package: {folders - packages}"


def test_unit_tests_import_nothing_that_starts_a_process():
    offenders = {
        str(path.relative_to(TESTS)): sorted(imported_modules(path) & STARTS_THINGS)
        for path in (TESTS / "unit").rglob("test_*.py")
    }
    offenders = {name: modules for name, modules in offenders.items() if modules}
    assert offenders == {}, f"these unit tests belong to another level: {offenders}"


def test_no_test_imports_a_conftest_or_another_test_module():
    offenders: dict[str, list[str]] = {}
    for path in [*all_test_files(), *TESTS.rglob("conftest.py")]:
        if "node_modules" in path.parts:
            continue
        bad = sorted(
            name
            for name in imported_modules(path)
            if name.rsplit(".", 1)[-1] == "conftest" or ".test_" in f".{name}"
        )
        if bad:
            offenders[str(path.relative_to(TESTS))] = bad
    assert offenders == {}, f"import helpers from tests/support instead: {offenders}"
