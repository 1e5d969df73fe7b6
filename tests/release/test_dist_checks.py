"""The release checks of `make dist` catch what they are there for: artefacts of different
versions, a VSIX whose wheel is not the released one, sources in the VSIX, build warnings."""

from __future__ import annotations

import importlib.util
import io
import json
import tarfile
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


check_dist = _script("check_dist")
build_python_dist = _script("build_python_dist")

CHANGELOG = b"# Changelog\n\n## [1.2.3]\n"


def _wheel(path: Path, version: str) -> bytes:
    info = f"workspace_agent-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("workspace_agent/__init__.py", f'__version__ = "{version}"\n')
        archive.writestr(
            f"{info}/METADATA",
            f"Metadata-Version: 2.4\nName: workspace-agent\nVersion: {version}\n"
            "License-Expression: MIT\nLicense-File: LICENSE\n\nreadme\n",
        )
        archive.writestr(f"{info}/licenses/LICENSE", "MIT License\n")
    return path.read_bytes()


def _sdist(path: Path, version: str, extra: tuple[str, ...] = ()) -> None:
    top = f"workspace_agent-{version}"
    with tarfile.open(path, "w:gz") as archive:
        files = {
            "PKG-INFO": f"Metadata-Version: 2.4\nName: workspace-agent\nVersion: {version}\n",
            "LICENSE": "MIT License\n",
            "CHANGELOG.md": CHANGELOG.decode(),
            "README.md": "# x\n",
            "pyproject.toml": "",
            **dict.fromkeys(extra, ""),
        }
        for name, text in files.items():
            data = text.encode()
            member = tarfile.TarInfo(f"{top}/{name}")
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))


def _vsix(path: Path, version: str, wheel: tuple[str, bytes], extra: tuple[str, ...] = ()) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(
            "extension.vsixmanifest",
            f'<PackageManifest><Metadata><Identity Id="workspace-agent" Version="{version}" '
            'Publisher="workspace-agent"/></Metadata></PackageManifest>',
        )
        archive.writestr("extension/package.json", json.dumps({"version": version}))
        archive.writestr("extension/changelog.md", CHANGELOG)
        archive.writestr("extension/dist/extension.js", "")
        archive.writestr(f"extension/bundled/{wheel[0]}", wheel[1])
        for name in extra:
            archive.writestr(name, "")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "server" / "workspace_agent").mkdir(parents=True)
    (root / "server" / "workspace_agent" / "__init__.py").write_text('__version__ = "1.2.3"\n')
    (root / "CHANGELOG.md").write_bytes(CHANGELOG)
    return root


def _release(dist: Path, version: str = "1.2.3", **vsix: tuple[str, ...]) -> None:
    dist.mkdir(exist_ok=True)
    wheel_name = f"workspace_agent-{version}-py3-none-any.whl"
    wheel = _wheel(dist / wheel_name, version)
    _sdist(dist / f"workspace_agent-{version}.tar.gz", version)
    _vsix(dist / f"workspace-agent-{version}.vsix", version, (wheel_name, wheel), **vsix)


def test_a_consistent_release_passes(repo: Path):
    _release(repo / "dist")
    assert check_dist.check(repo / "dist", repo) == []


def test_artefacts_of_another_version_are_refused(repo: Path):
    _release(repo / "dist", version="1.2.2")
    problems = check_dist.check(repo / "dist", repo)
    assert "missing: dist/workspace_agent-1.2.3-py3-none-any.whl" in problems
    assert "not a release artefact of 1.2.3: dist/workspace-agent-1.2.2.vsix" in problems


def test_a_vsix_with_another_version_inside_is_refused(repo: Path):
    dist = repo / "dist"
    _release(dist)
    wheel = (dist / "workspace_agent-1.2.3-py3-none-any.whl").read_bytes()
    _vsix(
        dist / "workspace-agent-1.2.3.vsix",
        "1.2.4",
        ("workspace_agent-1.2.3-py3-none-any.whl", wheel),
    )
    problems = check_dist.check(dist, repo)
    assert "workspace-agent-1.2.3.vsix: package.json version is 1.2.4" in problems
    assert "workspace-agent-1.2.3.vsix: extension.vsixmanifest has another version" in problems


def test_a_vsix_must_bundle_the_released_wheel_byte_for_byte(repo: Path):
    dist = repo / "dist"
    _release(dist)
    name = "workspace_agent-1.2.3-py3-none-any.whl"
    _vsix(dist / "workspace-agent-1.2.3.vsix", "1.2.3", (name, b"another build"))
    assert check_dist.check(dist, repo) == [
        f"workspace-agent-1.2.3.vsix: the bundled wheel differs from dist/{name}"
    ]


def test_sources_tests_and_maps_in_the_vsix_are_refused(repo: Path):
    extra = (
        "extension/src/client.ts",
        "extension/dist/extension.js.map",
        "extension/test/e2e/x.js",
    )
    _release(repo / "dist", extra=extra)
    problems = check_dist.check(repo / "dist", repo)
    assert problems == [f"workspace-agent-1.2.3.vsix: ships {name}" for name in extra]


def test_tests_in_the_sdist_are_refused(repo: Path):
    dist = repo / "dist"
    _release(dist)
    _sdist(dist / "workspace_agent-1.2.3.tar.gz", "1.2.3", extra=("tests/test_x.py",))
    assert check_dist.check(dist, repo) == [
        "workspace_agent-1.2.3.tar.gz: holds tests/ (they need the whole repository)"
    ]


def test_bytecode_in_the_python_artefacts_is_refused(repo: Path):
    dist = repo / "dist"
    _release(dist)
    _sdist(
        dist / "workspace_agent-1.2.3.tar.gz",
        "1.2.3",
        extra=("server/x/__pycache__/a.cpython-311.pyc",),
    )
    assert check_dist.check(dist, repo) == [
        "workspace_agent-1.2.3.tar.gz: ships workspace_agent-1.2.3/server/x/__pycache__/a.cpython-311.pyc"
    ]


def test_the_build_fails_on_backend_warnings_not_on_pip_notes():
    output = """\
* Building wheel...
WARNING: Location 'file:///opt/pypi/simple/setuptools/' is ignored: it is neither a file nor a directory.
warning: build_py: byte-compiling is disabled, skipping.
/tmp/x/_apply_pyprojecttoml.py:82: SetuptoolsDeprecationWarning: `project.license` as a TOML table is deprecated
  BuildBackendWarning: something else
Successfully built workspace_agent-0.1.0.tar.gz
"""
    assert build_python_dist.build_warnings(output) == [
        "/tmp/x/_apply_pyprojecttoml.py:82: SetuptoolsDeprecationWarning: `project.license` as a TOML table is deprecated",
        "BuildBackendWarning: something else",
    ]
