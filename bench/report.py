"""Results of the benchmark rows, the table they make and docs/benchmarks.md.

Every row compares our number with a baseline measured in the same run (or with a fixed
target where there is no baseline) and says whether the target is met. Nothing here
measures anything.
"""

from __future__ import annotations

import os
import platform
import re
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

KEEP_MARKER = "<!-- hand-written analysis: kept when the file is regenerated -->"
REGENERATE = ".venv/bin/python -m bench --explain --write docs/benchmarks.md"
QUICK = ".venv/bin/python -m bench --quick"


@dataclass
class Row:
    number: int
    what: str
    baseline: str
    """The baseline's name and measured value, e.g. 'bare pygls server: 512 ms'."""
    ours: str
    ratio: str
    target: str
    met: bool | None
    """None: not measured (an error) or not decidable."""
    details: list[str] = field(default_factory=list)
    """Markdown lines for the row's own section: per-run numbers, method, caveats."""

    @property
    def verdict(self) -> str:
        return {True: "yes", False: "**NO**", None: "n/a"}[self.met]


@dataclass
class KeptRow:
    """A row not run this time (`--only`), as the report being rewritten had it."""

    number: int
    line: str
    """Its line in the results table."""
    section: list[str]
    """Its own section, heading included."""


def failed_row(number: int, what: str, target: str, error: str) -> Row:
    return Row(number, what, "—", f"crashed: {error}", "—", target, None, [f"Error: `{error}`"])


# -- statistics ------------------------------------------------------------------------


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def percentile(values: Sequence[float], p: float) -> float:
    """Linear interpolation between closest ranks (numpy's default, 'inclusive')."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def ms(seconds: float) -> str:
    value = seconds * 1000
    if value >= 100:
        return f"{value:,.0f} ms"
    if value >= 10:
        return f"{value:.1f} ms"
    return f"{value:.2f} ms"


def mib(kib: float) -> str:
    return f"{kib / 1024:,.1f} MiB"


def spread(values: Sequence[float], fmt: Callable[[float], str] = ms) -> str:
    """'median (min ..., max ..., n=N)'."""
    return (
        f"{fmt(median(values))} (min {fmt(min(values))}, max {fmt(max(values))}, n={len(values)})"
    )


# -- output ----------------------------------------------------------------------------


HEADER = ("#", "what", "baseline (same run)", "ours", "ratio", "target", "met?")


def table(rows: Sequence[Row], kept: Sequence[KeptRow] = ()) -> str:
    numbered = [(row.number, _table_line(row)) for row in rows]
    numbered += [(row.number, row.line) for row in kept]
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    return "\n".join(lines + [line for _, line in sorted(numbered)])


def _table_line(row: Row) -> str:
    cells = (
        str(row.number),
        row.what,
        row.baseline,
        row.ours,
        row.ratio,
        row.target,
        row.verdict,
    )
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def previous_report(path: Path, ran: set[int]) -> tuple[list[KeptRow], str, list[str]]:
    """From the report at `path`: the rows not in `ran` (their table lines and sections),
    the commit they were measured at, and its "Where the time goes" part."""
    if not path.exists():
        return [], "unknown", []
    generated = path.read_text(encoding="utf-8").split(KEEP_MARKER)[0].splitlines()
    lines = {int(m[1]): line for line in generated if (m := re.match(r"^\| (\d+) \|", line))}
    sections: dict[int | str, list[str]] = {}
    current: int | str | None = None
    for line in generated:
        if line.startswith("## "):
            number = re.match(r"^## (\d+)\. ", line)
            current = int(number[1]) if number else ("explain" if "time goes" in line else None)
            if current is not None:
                sections[current] = []
        if current is not None:
            sections[current].append(line)
    commit = next(
        (line[len("- commit ") :] for line in generated if line.startswith("- commit ")), "unknown"
    )
    kept = [
        KeptRow(n, line, _trimmed(sections.get(n, []))) for n, line in lines.items() if n not in ran
    ]
    return kept, commit, _trimmed(sections.get("explain", []))


def _trimmed(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def machine_facts() -> list[str]:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        total = next(
            int(line.split()[1])
            for line in Path("/proc/meminfo").read_text().splitlines()
            if line.startswith("MemTotal:")
        )
        memory = f"{total / 1024 / 1024:.1f} GiB RAM"
    except (OSError, StopIteration):
        memory = "unknown RAM"
    try:
        debian = "Debian " + Path("/etc/debian_version").read_text().strip()
    except OSError:
        debian = platform.system()
    try:
        import anthropic
        import pygls

        versions = f"pygls {_version('pygls', pygls)}, anthropic {anthropic.__version__}"
    except ImportError:
        versions = ""
    return [
        f"{os.cpu_count()} cores ({cpu}), {memory}",
        f"{debian}, Linux {platform.release()}",
        f"Python {platform.python_version()} ({sys.executable}); {versions}",
        f"commit {_git_commit()}",
    ]


def _version(name: str, module: object) -> str:
    from importlib.metadata import version

    try:
        return version(name)
    except Exception:
        return str(getattr(module, "__version__", "?"))


def _git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parent.parent,
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "server"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent.parent,
        ).stdout.strip()
        return out.stdout.strip() + (" (server/ has uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def markdown(
    rows: Sequence[Row],
    *,
    quick: bool,
    seconds: float,
    method_notes: Sequence[str],
    extra: Sequence[str] = (),
    kept: Sequence[KeptRow] = (),
) -> str:
    parts = [
        "# Benchmarks",
        "",
        "Workspace Agent measured against a naive baseline of the same job, both in the same "
        "run, on the same machine. Generated by `bench/` "
        f"({'QUICK smoke run: small sizes, NOT the targets' if quick else 'full run'}"
        f"{_partial(rows, kept)}, {seconds:.0f} s); everything above the hand-written "
        "analysis at the end is generated, do not edit it by hand.",
        "",
        "Regenerate (from the repository root, with the project's venv):",
        "",
        f"    {REGENERATE}",
        "",
        f"CI runs only the smoke version (`{QUICK}`): small sizes, few repeats; it prints the "
        "table and fails only if a benchmark crashes, never on a missed target (timings on a "
        "shared CI machine are noisy).",
        "",
        "## Results",
        "",
        table(rows, kept),
        "",
        "## Machine",
        "",
        *[f"- {fact}" for fact in machine_facts()],
        "",
        "## Method",
        "",
        *[f"- {note}" for note in method_notes],
        "",
    ]
    sections = [(row.number, [f"## {row.number}. {row.what}", "", *row.details]) for row in rows]
    sections += [(row.number, row.section) for row in kept]
    for _, section in sorted(sections, key=lambda numbered: numbered[0]):
        parts += [*section, ""]
    parts += list(extra)
    return "\n".join(parts).rstrip("\n") + "\n"


def _partial(rows: Sequence[Row], kept: Sequence[KeptRow]) -> str:
    if not kept:
        return ""
    ran = ", ".join(str(row.number) for row in rows)
    noun = "row" if len(rows) == 1 else "rows"
    return f" of {noun} {ran}; the other rows are kept from the previous report, see Method"


def write_report(path: Path, text: str) -> None:
    """Write the generated report, keeping a hand-written part after KEEP_MARKER."""
    kept = ""
    if path.exists():
        old = path.read_text(encoding="utf-8")
        if KEEP_MARKER in old:
            kept = "\n" + old[old.index(KEEP_MARKER) :]
    path.write_text(text + kept, encoding="utf-8")
