"""Check the release artefacts in dist/ (what `make dist` built) before anyone ships them.

    python scripts/check_dist.py [DIST]

- one version everywhere: the sdist, the wheel and the VSIX carry `workspace_agent.__version__`
  (file names, PKG-INFO / METADATA, the VSIX's package.json and manifest);
- the wheel's metadata has the SPDX license and its license file; no bytecode anywhere;
- the VSIX ships the same wheel as dist/ (byte for byte), the project's CHANGELOG.md, and
  nothing of the sources, tests or source maps;
- the sizes, printed.

Exits 1 with one line per problem. Standard library only.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tarfile
import zipfile
from email.parser import HeaderParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BYTECODE = re.compile(r"(^|/)__pycache__/|\.py[co]$")
VSIX_FORBIDDEN = re.compile(r"\.(ts|map|tsx)$|(^|/)(src|test|tests|node_modules|out|scripts)/")


def project_version(root: Path = ROOT) -> str:
    init = (root / "server" / "workspace_agent" / "__init__.py").read_text("utf-8")
    match = re.search(r'^__version__ = "([^"]+)"$', init, flags=re.M)
    if not match:
        raise SystemExit("check_dist: no __version__ in server/workspace_agent/__init__.py")
    return match.group(1)


def _metadata(text: str) -> dict[str, list[str]]:
    headers = HeaderParser().parsestr(text)
    fields: dict[str, list[str]] = {}
    for key, value in headers.items():
        fields.setdefault(key, []).append(value)
    return fields


def check_wheel(wheel: Path, version: str) -> list[str]:
    problems: list[str] = []
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = f"workspace_agent-{version}.dist-info"
        if f"{info}/METADATA" not in names:
            return [f"{wheel.name}: no {info}/METADATA (a wheel of another version?)"]
        meta = _metadata(archive.read(f"{info}/METADATA").decode("utf-8"))
    if meta.get("Version") != [version]:
        problems.append(f"{wheel.name}: METADATA Version is {meta.get('Version')}, not {version}")
    if meta.get("License-Expression") != ["MIT"]:
        problems.append(f"{wheel.name}: License-Expression is {meta.get('License-Expression')}")
    if meta.get("License-File") != ["LICENSE"] or f"{info}/licenses/LICENSE" not in names:
        problems.append(f"{wheel.name}: the LICENSE file is not in the wheel's metadata")
    if not any(name.startswith("workspace_agent/") for name in names):
        problems.append(f"{wheel.name}: no workspace_agent package inside")
    problems += [f"{wheel.name}: ships {name}" for name in names if BYTECODE.search(name)]
    return problems


def check_sdist(sdist: Path, version: str) -> list[str]:
    problems: list[str] = []
    top = f"workspace_agent-{version}"
    with tarfile.open(sdist) as archive:
        names = set(archive.getnames())
        pkg_info = archive.extractfile(f"{top}/PKG-INFO") if f"{top}/PKG-INFO" in names else None
        meta = _metadata(pkg_info.read().decode("utf-8")) if pkg_info else {}
    if meta.get("Version") != [version]:
        problems.append(f"{sdist.name}: PKG-INFO Version is {meta.get('Version')}, not {version}")
    for needed in ("LICENSE", "CHANGELOG.md", "README.md", "pyproject.toml"):
        if f"{top}/{needed}" not in names:
            problems.append(f"{sdist.name}: {needed} is missing")
    if any(name.startswith(f"{top}/tests/") for name in names):
        problems.append(f"{sdist.name}: holds tests/ (they need the whole repository)")
    problems += [f"{sdist.name}: ships {name}" for name in sorted(names) if BYTECODE.search(name)]
    return problems


def check_vsix(vsix: Path, version: str, wheel: Path, changelog: bytes) -> list[str]:
    problems: list[str] = []
    with zipfile.ZipFile(vsix) as archive:
        names = archive.namelist()
        manifest = json.loads(archive.read("extension/package.json"))
        vsixmanifest = archive.read("extension.vsixmanifest").decode("utf-8")
        bundled = [n for n in names if n.startswith("extension/bundled/") and n.endswith(".whl")]
        shipped_changelog = (
            archive.read("extension/changelog.md") if "extension/changelog.md" in names else None
        )
        bundled_bytes = archive.read(bundled[0]) if len(bundled) == 1 else b""
    if manifest.get("version") != version:
        problems.append(f"{vsix.name}: package.json version is {manifest.get('version')}")
    identity = re.search(r'<Identity [^>]*Version="([^"]+)"', vsixmanifest)
    if not identity or identity.group(1) != version:
        problems.append(f"{vsix.name}: extension.vsixmanifest has another version")
    if bundled != [f"extension/bundled/{wheel.name}"]:
        problems.append(f"{vsix.name}: bundles {bundled}, expected {wheel.name}")
    elif _sha256(bundled_bytes) != _sha256(wheel.read_bytes()):
        problems.append(f"{vsix.name}: the bundled wheel differs from dist/{wheel.name}")
    if shipped_changelog is None:
        problems.append(f"{vsix.name}: no changelog")
    elif shipped_changelog.replace(b"\r\n", b"\n") != changelog.replace(b"\r\n", b"\n"):
        problems.append(f"{vsix.name}: its changelog is not the project's CHANGELOG.md")
    problems += [f"{vsix.name}: ships {n}" for n in names if VSIX_FORBIDDEN.search(n)]
    return problems


def check(dist: Path, root: Path = ROOT) -> list[str]:
    version = project_version(root)
    sdist = dist / f"workspace_agent-{version}.tar.gz"
    wheel = dist / f"workspace_agent-{version}-py3-none-any.whl"
    vsix = dist / f"workspace-agent-{version}.vsix"
    expected = {sdist.name, wheel.name, vsix.name}
    found = {path.name for path in dist.iterdir()} if dist.is_dir() else set()
    problems = [f"missing: dist/{name}" for name in sorted(expected - found)]
    problems += [f"not a release artefact of {version}: dist/{n}" for n in sorted(found - expected)]
    if problems:
        return problems
    changelog = (root / "CHANGELOG.md").read_bytes()
    return (
        check_sdist(sdist, version)
        + check_wheel(wheel, version)
        + check_vsix(vsix, version, wheel, changelog)
    )


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def main(argv: list[str]) -> int:
    dist = Path(argv[0]) if argv else ROOT / "dist"
    problems = check(dist)
    if problems:
        print(f"check_dist: {len(problems)} problem(s):", *problems, sep="\n  ", file=sys.stderr)
        return 1
    for path in sorted(dist.iterdir()):
        print(f"  {path.stat().st_size / 1024:9.1f} KiB  dist/{path.name}")
    print(f"check_dist: dist/ holds version {project_version()} of the sdist, wheel and VSIX")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
