"""safe_path: nothing ever resolves outside the workspace root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workspace_agent.tools.base import ToolError
from workspace_agent.tools.paths import safe_path

parts = st.sampled_from(
    ["..", ".", "a", "b", "link_out", "link_in", "loop", "", "~", "/", "c d", "..."]
)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("tree")
    root = base / "root"
    (root / "a" / "b").mkdir(parents=True)
    outside = base / "outside"
    outside.mkdir()
    (root / "link_out").symlink_to(outside)
    (root / "a" / "link_out").symlink_to("../../outside")
    (root / "link_in").symlink_to(root / "a")
    (root / "loop").symlink_to("loop")
    return root, outside


def inside(root: Path, path: Path) -> bool:
    real_root = root.resolve()
    return path == real_root or real_root in path.parents


@settings(max_examples=400, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(parts, min_size=1, max_size=8), st.booleans())
def test_generated_paths_never_escape(tree: tuple[Path, Path], chain: list[str], absolute: bool):
    root, _ = tree
    raw = "/".join(chain)
    if absolute:
        raw = str(root) + "/" + raw
    try:
        resolved = safe_path(root, raw)
    except ToolError as exc:
        assert any(
            why in str(exc) for why in ("outside the workspace", "non-empty", "cannot be resolved")
        )
        return
    assert inside(root, resolved)
    assert inside(root, Path(os.path.realpath(resolved)))


@pytest.mark.parametrize(
    "raw", ["../x", "/etc/passwd", "link_out/f", "a/link_out/f", "a/../../x", "~/x"]
)
def test_known_escapes_are_refused(tree: tuple[Path, Path], raw: str):
    root, _ = tree
    with pytest.raises(ToolError, match=r"outside the workspace|cannot be resolved"):
        safe_path(root, raw)


@pytest.mark.parametrize("raw", ["a/b", "./a/../a/b", "link_in/b", "new/file.txt", "."])
def test_paths_inside_are_resolved(tree: tuple[Path, Path], raw: str):
    root, _ = tree
    assert inside(root, safe_path(root, raw))


def test_empty_and_nul_paths_are_refused(tree: tuple[Path, Path]):
    root, _ = tree
    for raw in ("", "  ", "a\x00b"):
        with pytest.raises(ToolError):
            safe_path(root, raw)
