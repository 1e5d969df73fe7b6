"""Row 29: what hooks cost. A PostToolUse hook that does nothing (`true`), run after every
edit_file and write_file call, against the same run without hooks; and with no hook
configured, nothing at all: the model's requests are the same bytes, the server's start
imports nothing of hooks/, and a run's lookup of the hook files is a few stat calls.

Per call: a scripted run of N turns cycling edit_file → write_file (zero-delay model in its
own process) through the real server over LSP, with the user's `~/.claude/settings.json`
(CLAUDE_CONFIG_DIR) holding the hook, or holding none, on a fresh workspace and server each
time after the same warm-up run, alternating. Time per call = wall time of the run (from
sending `workspaceAgent/run` to reading its result) / turns; the hook's cost is the
difference of the medians. It includes all a hook adds to a call: its process (a shell
started on the host, its JSON on stdin), its `hook` event, and the checkpoint's scan of the
workspace after the call (what a hook changed is the call's).

Nothing configured: the same run with a settings file whose only hook never fires
(`Notification`: no question is asked) sends the model byte-for-byte the requests of the
run without hooks; a fresh interpreter importing the server's entry point loads no module
of workspace_agent.hooks; the lookup the session manager does at each run's start
(`hooks.sources.find_hooks` with no hook files) is timed in this process.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import time
from typing import Any

from .harness import PY, ScriptedModelProcess, child_env, lsp_agent, run_prompt, settled, temp_dir
from .report import Row, median, ms
from .scripts import WARMUP, make_workspace, tool_run_script

NUMBER = 29
WHAT = "hooks: a PostToolUse hook that does nothing, per edit; no hook configured"
TARGET = "<= 15 ms per call; nothing configured: same request bytes, no start-up import"
LIMIT = 0.015
PROMPT = "bench run: do the scripted steps"
MIX = ("edit_file", "write_file")
TRUE = [{"type": "command", "command": "true"}]
NOTHING = {"hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": TRUE}]}}
NEVER = {"hooks": {"Notification": [{"hooks": TRUE}]}}
VARIANTS = {"no hooks": None, "hook": NOTHING, "never fires": NEVER}
PROBE = (
    "import json, sys; import workspace_agent.cli.main, workspace_agent.lsp.server; "
    "print(json.dumps(sorted(m for m in sys.modules if m.startswith('workspace_agent.hooks'))))"
)


async def _timed(turns: int, settings: dict[str, Any] | None) -> dict[str, Any]:
    with (
        temp_dir("bench-hooks-") as workspace,
        temp_dir("bench-hooks-home-") as claude,
        ScriptedModelProcess(tool_run_script(PROMPT, turns, MIX)) as model,
    ):
        make_workspace(workspace)
        if settings is not None:
            (claude / "settings.json").write_text(json.dumps(settings))
        async with lsp_agent(workspace, model.url, CLAUDE_CONFIG_DIR=str(claude)) as (
            client,
            received,
        ):
            warm = await run_prompt(client, WARMUP)
            assert warm["stopReason"] == "end_turn", warm
            await settled()
            started = time.perf_counter()
            result = await run_prompt(client, PROMPT)
            seconds = time.perf_counter() - started
        events = [e for _, e in received.events]
        failed = [e for e in events if e.get("kind") == "toolResult" and not e.get("ok")]
        ran = [e for e in events if e.get("kind") == "hook"]
        expected = turns if settings is NOTHING else 0  # the warm-up's read_file runs none
        if result["stopReason"] != "end_turn" or failed or len(ran) != expected:
            raise RuntimeError(f"the run went wrong: {result} {failed[:3]} {len(ran)} hook runs")
        if any(e["outcome"] != "ok" for e in ran):
            raise RuntimeError(f"a hook did not run: {ran[:3]}")
        return {"seconds": seconds, "turns": turns, "bodies": _sent(model, workspace)}


def _sent(model: ScriptedModelProcess, workspace: Any) -> str:
    """The request bodies the model got, with what differs between any two runs (the
    workspace's temporary path, the tool_use ids the scripted model makes up) made equal."""
    text = json.dumps([r.get("body") for r in model.requests()])
    text = text.replace(str(workspace), "WORKSPACE")
    return re.sub(r"toolu_[A-Za-z0-9_]+", "toolu_ID", text)


def measure(turns: int, repeats: int) -> tuple[dict[str, list[float]], bool]:
    """Seconds per call of each variant, `repeats` runs each, rotating which goes first;
    and whether "never fires" sent the same request bytes as "no hooks" every time."""
    per_call: dict[str, list[float]] = {name: [] for name in VARIANTS}
    same = True
    names = list(VARIANTS)
    for n in range(repeats):
        order = names[n % len(names) :] + names[: n % len(names)]
        bodies: dict[str, Any] = {}
        for name in order:
            result = asyncio.run(_timed(turns, VARIANTS[name]))
            per_call[name].append(result["seconds"] / turns)
            bodies[name] = result["bodies"]
        same = same and bodies["no hooks"] == bodies["never fires"]
    return per_call, same


def lookup_cost(repeats: int = 2000) -> float:
    """Seconds for one `find_hooks` of a workspace with no hook files (median of batches)."""
    from workspace_agent.hooks.sources import find_hooks

    with temp_dir("bench-hooks-none-") as root, temp_dir("bench-hooks-user-") as user:
        os.environ["CLAUDE_CONFIG_DIR"] = str(user / "claude")
        batches = []
        for _ in range(5):
            started = time.perf_counter()
            for _ in range(repeats // 5):
                found = find_hooks(root, user)
            batches.append((time.perf_counter() - started) / (repeats // 5))
        assert found.empty
    return median(batches)


def start_imports() -> list[str]:
    done = subprocess.run(
        [PY, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True, env=child_env()
    )
    loaded: list[str] = json.loads(done.stdout)
    return loaded


def run(quick: bool) -> Row:
    turns = 10 if quick else 100
    repeats = 1 if quick else 5
    per_call, same = measure(turns, repeats)
    none, hook, never = (median(per_call[name]) for name in VARIANTS)
    added = hook - none
    lookup = lookup_cost(200 if quick else 2000)
    imported = start_imports()
    runs = "; ".join(
        f"{name} {', '.join(ms(v) for v in values)}" for name, values in per_call.items()
    )
    details = [
        f"- per call (cycle {' → '.join(MIX)}): no hooks {ms(none)}, with the PostToolUse hook "
        f"`true` {ms(hook)} (+{ms(added)} per call), with a hook that never fires {ms(never)}; "
        f"runs per call: {runs}",
        f"- {turns} tool turns + 1 closing text turn per run, {repeats} run(s) per variant, "
        "rotating which goes first; fresh workspace, server, scripted-model process and "
        "CLAUDE_CONFIG_DIR per run; a 2-turn warm-up run first in the same server.",
        "- The hook's cost is all it adds to a call: its shell started on the host with the "
        "call's JSON on stdin, its `hook` event, and the checkpoint's scan of the workspace "
        "after the call (a file the hook changed is the call's change).",
        f"- nothing configured: the requests of the run with a hook that never fires were "
        f"{'byte for byte' if same else 'NOT'} those of the run without hooks; importing the "
        f"server's entry point loads {len(imported)} module(s) of workspace_agent.hooks"
        f"{': ' + ', '.join(imported) if imported else ''}; a run's lookup of the hook files "
        f"with none there takes {lookup * 1e6:.0f} µs (`find_hooks`, in process).",
    ]
    met = added <= LIMIT and same and not imported
    return Row(
        NUMBER,
        f"{WHAT} ({turns}-turn scripted run)",
        f"no hooks: {ms(none)}/call",
        f"hook: {ms(hook)}/call (+{ms(added)}); nothing configured: "
        f"{'same' if same else 'OTHER'} request bytes, {len(imported)} start-up imports, "
        f"lookup {lookup * 1e6:.0f} µs/run",
        f"+{ms(added)} per call",
        TARGET,
        met,
        details,
    )
