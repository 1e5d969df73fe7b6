"""Build the Python release artefacts: the sdist and the wheel, with `python -m build`.

    python scripts/build_python_dist.py OUT

Fails when the build fails, when the build backend warns (a deprecated setting today is a
failed build tomorrow: setuptools announces those as *Warning classes), or when
`twine check --strict` finds the metadata or the README unfit for PyPI.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BACKEND_WARNING = re.compile(r"\b\w+Warning\b|[Dd]eprecat")
"""SetuptoolsDeprecationWarning, BuildBackendWarning, ... (not pip's own "WARNING:" notes
about the package index, which say nothing about this project)."""


def build_warnings(output: str) -> list[str]:
    return [line.strip() for line in output.splitlines() if BACKEND_WARNING.search(line)]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[0]).resolve()
    build = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    print(build.stdout, end="")
    if build.returncode != 0:
        print(f"build_python_dist: python -m build failed ({build.returncode})", file=sys.stderr)
        return 1
    warnings = build_warnings(build.stdout)
    if warnings:
        print("build_python_dist: the build warns:", *warnings, sep="\n  ", file=sys.stderr)
        return 1
    built = sorted(str(path) for path in out.iterdir() if path.suffix in (".whl", ".gz"))
    return subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *built]).returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
