"""The dependency ranges tested at both ends (`make version-ends`, run by .ci/run).

The unit tests and one LSP end-to-end test run against the LOWEST versions pyproject.toml
allows of the libraries the agent is built on (END_PACKAGES), and against the NEWEST the
registry has within those ranges. The other dependencies resolve as pip resolves them.
`make test` runs with whatever the development venv happened to install, which is neither
end: a lower bound nobody tests rots, and a new release within the range can break a
fresh install while every test here stays green.

Each end has a venv of its own in the CI cache (WA_CACHE_DIR, else
~/.cache/workspace-agent-ci), named after what decides its contents (the end, the
Python, pyproject.toml's dependency lists), so it is built once and reused: the lowest
end as it is, the newest one after a `pip install --upgrade` of the five (a look at the
registry when nothing changed). The project itself is not installed there: the tests run
with server/ on PYTHONPATH, so a venv kept from another checkout cannot run stale code.

Usage: python scripts/version_ends.py [lowest|newest ...] [--cache DIR] [--after-suite VENV]

On a fresh machine the suite's own venv usually is the newest end (pip picks the newest
in range): with --after-suite (.ci/run, right after `make test`), an end whose five
versions are that venv's is said and not run again.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the TOML reader pip carries
    from pip._vendor import tomli as tomllib

END_PACKAGES = ("anthropic", "pygls", "lsprotocol", "mcp", "agent-client-protocol")
"""The libraries whose both ends are tested: the model's SDK, the LSP server and its
types, the MCP client, the ACP agent."""
TESTS = ["tests/unit", "tests/lsp/test_lsp_run.py::test_three_step_plan_end_to_end"]
"""The in-process unit tests, and one run through the real server over LSP (pygls and
lsprotocol on both sides, the anthropic SDK over real HTTP to the scripted model)."""
ROOT = Path(__file__).resolve().parent.parent
SELF = "workspace-agent"


def requirements(pyproject: dict) -> list[str]:
    """The project's dependencies and its `test` extra's, its own extras expanded."""
    project = pyproject["project"]
    extras: dict[str, list[str]] = project["optional-dependencies"]
    found: list[str] = list(project["dependencies"])
    pending = list(extras["test"])
    while pending:
        requirement = pending.pop(0)
        own = re.fullmatch(rf"{SELF}\[([^\]]+)\]", requirement.strip())
        if own:
            for extra in own.group(1).split(","):
                pending.extend(extras[extra.strip()])
        else:
            found.append(requirement)
    return found


def name_of(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9_.-]+", requirement)
    assert match, requirement
    return match.group(0).lower().replace("_", "-")


def lower_bounds(found: list[str]) -> dict[str, str]:
    """Each END_PACKAGES' lowest allowed version (its `>=`), from the project's own line."""
    bounds: dict[str, str] = {}
    for requirement in found:
        name = name_of(requirement)
        if name in END_PACKAGES and name not in bounds:
            match = re.search(r">=\s*([0-9][^,;\s]*)", requirement)
            if match is None:
                raise SystemExit(f"pyproject.toml: {requirement!r} has no lower bound (>=)")
            bounds[name] = match.group(1)
    missing = set(END_PACKAGES) - set(bounds)
    if missing:
        raise SystemExit(f"pyproject.toml does not depend on {', '.join(sorted(missing))}")
    return bounds


def ranges(found: list[str]) -> list[str]:
    """The END_PACKAGES' requirement lines as the project writes them (no markers)."""
    seen: dict[str, str] = {}
    for requirement in found:
        name = name_of(requirement)
        if name in END_PACKAGES and name not in seen:
            seen[name] = requirement.split(";")[0].strip()
    return [seen[name] for name in END_PACKAGES]


def venv_for(end: str, found: list[str], cache: Path) -> Path:
    digest = hashlib.sha256("\n".join([end, sys.version, *found]).encode()).hexdigest()[:12]
    return cache / "version-ends" / f"{end}-py{sys.version_info[0]}.{sys.version_info[1]}-{digest}"


def pip(venv: Path, *args: str) -> None:
    subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "--quiet",
            "--disable-pip-version-check",
            *args,
        ],
        check=True,
    )


def prepare(end: str, found: list[str], cache: Path) -> Path:
    """The end's venv, built on first use; the newest end brought up to the registry's.
    One process at a time builds a venv (.ci/run prepares them in the background while
    the main suite runs, then runs the tests)."""
    venv = venv_for(end, found, cache)
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f"{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _prepare(end, found, venv)


def _prepare(end: str, found: list[str], venv: Path) -> Path:
    ready = venv / ".ready"
    if not ready.exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        if end == "lowest":
            pins = [f"{name}=={version}" for name, version in lower_bounds(found).items()]
            constraints = venv / "constraints.txt"
            constraints.write_text("\n".join(pins) + "\n")
            pip(venv, "install", "-c", str(constraints), *found)
        else:
            pip(venv, "install", *found)
        ready.touch()
    if end == "newest":
        pip(venv, "install", "--upgrade", "--upgrade-strategy", "only-if-needed", *ranges(found))
    return venv


def versions(venv: Path) -> dict[str, str]:
    listed = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "list", "--format=json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    installed = {name_of(p["name"]): p["version"] for p in json.loads(listed)}
    return {name: installed.get(name, "missing") for name in END_PACKAGES}


def same_version(one: str, other: str) -> bool:
    """2.1 and 2.1.0 are one version (release numbers only: the bounds have no more)."""

    def release(text: str) -> list[str]:
        parts = text.split(".")
        while len(parts) > 1 and parts[-1] == "0":
            parts.pop()
        return parts

    return release(one) == release(other)


def check_lowest(found: list[str], got: dict[str, str]) -> None:
    wrong = {n: v for n, v in lower_bounds(found).items() if not same_version(got[n], v)}
    if wrong:
        shown = ", ".join(f"{n} {got[n]} (wanted {v})" for n, v in wrong.items())
        raise SystemExit(f"the lowest end did not install its lower bounds: {shown}")


def run_tests(venv: Path) -> int:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "server"), str(ROOT), env.get("PYTHONPATH")) if p
    )
    command = [str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["-n", "auto"]  # a worker per core, as make test-python
    return subprocess.run([*command, *TESTS], cwd=ROOT, env=env).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ends", nargs="*", metavar="lowest|newest", help="default: both")
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(
            os.environ.get("WA_CACHE_DIR") or Path.home() / ".cache" / "workspace-agent-ci"
        ),
    )
    parser.add_argument(
        "--after-suite",
        type=Path,
        metavar="VENV",
        help="the venv the whole suite just ran in: an end with its versions is not run again",
    )
    parser.add_argument(
        "--prepare-only",
        action="store_true",
        help="build (or bring up to date) the ends' venvs, run no test",
    )
    args = parser.parse_args(argv)
    wrong = [end for end in args.ends if end not in ("lowest", "newest")]
    if wrong:
        parser.error(f"no end called {', '.join(wrong)}: lowest or newest")
    found = requirements(tomllib.loads((ROOT / "pyproject.toml").read_text()))
    failed: list[str] = []
    suite = versions(args.after_suite) if args.after_suite else None
    for end in args.ends or ["lowest", "newest"]:
        started = time.monotonic()
        venv = prepare(end, found, args.cache)
        if args.prepare_only:
            print(f"version ends: {end} ready in {time.monotonic() - started:.0f} s", flush=True)
            continue
        got = versions(venv)
        if end == "lowest":
            check_lowest(found, got)
        print(f"version ends: {end}: " + ", ".join(f"{n} {v}" for n, v in got.items()), flush=True)
        if suite is not None and all(same_version(got[n], suite[n]) for n in END_PACKAGES):
            print(f"version ends: {end}: the versions the whole suite just ran with", flush=True)
            continue
        if run_tests(venv) != 0:
            failed.append(end)
        print(f"version ends: {end} took {time.monotonic() - started:.0f} s", flush=True)
    if failed:
        print(f"version ends: the tests failed at the {' and '.join(failed)} end", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
