"""Row 32: ten searches in a 200,000-file git repository (`--quick`: 2,000): the `search`
tool against the same ten `grep -rn` run through `bash`, both in a headless
`workspace-agent run` with the scripted model asking for one call per turn.

The time of a call is the gap between the model's request that asked for it and the next
one (which carries its result): the tool's work and, for bash, what comes with a command
(the sandbox, the checkpoints' scan of the tree). The answers' streaming and the loop's
own work are in both. The same files must be found: the paths in the search results
against those grep printed.
"""

from __future__ import annotations

import re
import subprocess
from itertools import pairwise
from pathlib import Path
from typing import Any

from workspace_agent.testing.scripted_model import reply, text, tool

from .first_task import BIG, QUICK_BIG, cache_folder, reset, tree
from .harness import PY, ScriptedModelProcess, child_env, temp_dir
from .report import Row, median, ms

NUMBER = 32
WHAT = "ten searches in a big git repository: search against grep -rn through bash"
TARGET = "<= 0.3x, the same files found"
LIMIT = 0.3


def _words(files: int) -> list[str]:
    """Ten patterns, each found in one module spread over the tree."""
    return [rf"Module {n * files // 10 + 7}\." for n in range(10)]


def _script(calls: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "conversations": [{"replies": [reply(call) for call in calls] + [reply(text("Done."))]}],
        "on_exhausted": "error",
    }


def _run(root: Path, home: Path, calls: list[dict[str, Any]]) -> tuple[list[float], list[str]]:
    """Seconds per call, and each call's result text."""
    with ScriptedModelProcess(_script(calls)) as model:
        env = {**child_env(HOME=str(home)), "ANTHROPIC_BASE_URL": model.url}
        command = [PY, "-m", "workspace_agent", "run", "find them", "--workspace", str(root)]
        subprocess.run([*command, "--yes"], env=env, check=True, capture_output=True)
        requests = [r for r in model.requests() if r["path"] == "/v1/messages"]
    gaps = [(b["received_ns"] - a["received_ns"]) / 1e9 for a, b in pairwise(requests)]
    last = requests[-1]["body"]["messages"]
    results = [
        block["content"] if isinstance(block["content"], str) else block["content"][0]["text"]
        for message in last
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    return gaps, results


def _files(result: str, grep: bool) -> set[str]:
    found = set()
    for line in result.splitlines():
        match = re.match(r"^(\./)?([^:\s]+\.py):\d+:", line)
        if match:
            found.add(match.group(2))
    return found


def run(quick: bool) -> Row:
    files = QUICK_BIG if quick else BIG
    root = tree(files)
    words = _words(files)
    searches = [tool("search", {"pattern": word}) for word in words]
    greps = [tool("bash", {"command": f"grep -rn --exclude-dir=.git '{word}' ."}) for word in words]
    rounds = 1 if quick else 2
    ours: list[float] = []
    theirs: list[float] = []
    same = True
    with temp_dir("bench-search-home-") as home:
        reset(root)
        _run(root, home, greps[:1])  # the checkpoint store's first scan, paid once, not here
        for _ in range(rounds):
            times, found = _run(root, home, searches)
            ours.append(sum(times[: len(words)]))
            times, printed = _run(root, home, greps)
            theirs.append(sum(times[: len(words)]))
            for a, b in zip(found, printed, strict=True):
                same = same and bool(_files(a, False)) and _files(a, False) == _files(b, True)
    reset(root)
    ratio = median(ours) / median(theirs)
    return Row(
        NUMBER,
        f"ten `search` calls in a {files:,}-file git repository (headless CLI)",
        f"the same ten `grep -rn` through bash: {ms(median(theirs))}",
        f"{ms(median(ours))} ({ms(median(ours) / len(words))} per search)",
        f"{ratio:.2f}x",
        TARGET,
        ratio <= LIMIT and same,
        [
            f"- tree: the committed checkout of row 24 ({files:,} files, {cache_folder()}); "
            "one discarded grep run first (the checkpoint store's first scan of the tree), "
            "then the variants alternate; neither changes a file.",
            "- each variant: `python -m workspace_agent run TASK --workspace TREE --yes`, the "
            "scripted model asking for one call per turn; a call's time is the gap between "
            "the request that asked for it and the next one (the answer's streaming and the "
            "loop's work are in both; bash also pays its sandbox and the checkpoints' scan "
            "of the tree, which a search does not).",
            f"- patterns: {', '.join(f'`{w}`' for w in words)}; grep: `grep -rn "
            "--exclude-dir=.git 'PATTERN' .`.",
            f"- per round, ours: {', '.join(ms(t) for t in ours)}; grep through bash: "
            f"{', '.join(ms(t) for t in theirs)}.",
            f"- the same files found in every pair: {'yes' if same else '**no**'}.",
        ],
    )
