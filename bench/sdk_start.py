"""Row 28: the headless start measured against the SDK it is built on (issue 31, item 6).

The `anthropic` SDK is part of the product's stack on purpose, and importing it alone takes
most of a headless start (0.7 s on a quiet machine). So the start is judged by what we add
to it: spawn → first `POST /v1/messages` of `workspace-agent run TASK --yes` (row 19's
task, against its own scripted Messages API process), minus spawn → exit of a bare
`python -c "import anthropic"` with the same interpreter, in the same invocation,
alternating (a different order each round) after one discarded warm-up of each.
A bare `python -c pass` is measured too: what the interpreter alone costs.
"""

from __future__ import annotations

import subprocess
import time

from .harness import PY, child_env, temp_dir
from .peer import run_ours_cli
from .peer_task import prepare_workspace
from .report import Row, median, ms

NUMBER = 28
WHAT = "headless start: spawn → first model request, minus a bare `import anthropic`"
TARGET = "<= 100 ms over the bare import"
LIMIT = 0.100
VARIANTS = ("python", "import anthropic", "ours")


def _bare(code: str) -> float:
    """Seconds from spawn to exit of `python -c CODE`."""
    started = time.monotonic_ns()
    subprocess.run([PY, "-c", code], env=child_env(), check=True, stdin=subprocess.DEVNULL)
    return (time.monotonic_ns() - started) / 1e9


def _ours(home_name: str) -> float:
    with temp_dir("bench-sdk-start-") as workspace, temp_dir(home_name) as home:
        prepare_workspace(workspace)
        return run_ours_cli(workspace, home).first_request


def _one(name: str) -> float:
    if name == "python":
        return _bare("pass")
    if name == "import anthropic":
        return _bare("import anthropic")
    return _ours("bench-sdk-start-home-")


def measure(rounds: int) -> dict[str, list[float]]:
    for name in VARIANTS:  # warm-up, discarded: the page cache holds the SDK's files after it
        _one(name)
    runs: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for n in range(rounds):
        for name in VARIANTS[n % 3 :] + VARIANTS[: n % 3]:
            runs[name].append(_one(name))
    return runs


def _signed(seconds: float) -> str:
    return f"{'+' if seconds >= 0 else '−'}{ms(abs(seconds))}"


def run(quick: bool) -> Row:
    runs = measure(1 if quick else 9)
    bare, ours, python = (median(runs[n]) for n in ("import anthropic", "ours", "python"))
    added = ours - bare
    spread = {name: ", ".join(ms(v) for v in sorted(values)) for name, values in runs.items()}
    details = [
        f"- spawn → first request of `workspace-agent run` (runs, sorted): {spread['ours']}",
        f'- spawn → exit of `python -c "import anthropic"`: {spread["import anthropic"]}',
        f"- spawn → exit of `python -c pass` (the interpreter alone): {spread['python']}",
        f"- what the agent adds to the SDK's import: median {_signed(added)} "
        f"(ours {ms(ours)} − bare import {ms(bare)}); the import itself is "
        f"{ms(bare - python)} over the bare interpreter.",
        "- Both sides pay the interpreter and the SDK's import; the difference is the agent's "
        "own start: its modules, settings, session and first request.",
    ]
    return Row(
        NUMBER,
        WHAT,
        f"bare `import anthropic`: {ms(bare)}",
        f"{ms(ours)} to the first request",
        _signed(added),
        TARGET,
        added <= LIMIT,
        details,
    )
