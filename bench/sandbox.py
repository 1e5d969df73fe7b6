"""Rows 22 and 23: what the bash sandbox costs, and the questions it saves.

Row 22: per-command overhead, the real bash tool in-process running `true` with
`sandbox.mode` off and required (interleaved), and the per-turn time of row 2's 200-turn
mix through the real server with the sandbox off and on (the default). Row 23: the
approval questions the user sees in a scripted 20-command task with default settings,
before the sandbox (`approvals.bash: "ask"`, the old default) and after (`"sandboxed"`,
the new one); the guard's "asked even when allowed" commands are in the task, so the
"after" count is not zero by construction.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from .checkpoints import _overhead_run
from .harness import ScriptedModelProcess, lsp_agent, run_prompt, temp_dir
from .report import Row, median, ms
from .scripts import make_workspace, warmup_conversation

COMMAND_LIMIT_MS = 15.0
TURN_LIMIT = 1.15
FEWER_TARGET = 0.8
OFF = {"sandbox": {"mode": "off"}}

TASK = [
    "ls",
    "cat README.md",
    "grep -n value_001 src/app.py",
    "wc -l src/app.py",
    "python3 -c 'import ast; ast.parse(open(\"src/app.py\").read())'",
    "head -5 src/app.py",
    "sed -n 3,4p src/app.py",
    "echo note > notes.txt",
    "cat notes.txt",
    "mkdir -p build && cp src/app.py build/",
    "ls build",
    "python3 -m py_compile src/app.py",
    "find . -name '*.py' -not -path './build/*'",
    "sort README.md | uniq | head -3",
    "x=ls; $x src",  # the guard cannot read it: asked even when commands are allowed
    "git --version",
    "du -sh src",
    "tail -n 2 src/app.py",
    "echo 'print(1)' | python3",  # another program's output run as code: asked too
    "rm -rf build",
]
PROMPT = "bench: the twenty commands"


async def _command_ms(mode: str, root: Path, repeats: int) -> list[float]:
    from workspace_agent.config import AgentSettings
    from workspace_agent.guard.approvals import Approvals
    from workspace_agent.shared.todo import TodoList
    from workspace_agent.tools.base import ToolContext
    from workspace_agent.tools.bash import BASH

    settings = replace(AgentSettings(), sandbox_mode=mode)
    ctx = ToolContext(root, settings, TodoList(), Approvals({"bash": "allow"}), session_id="bench")
    times = []
    for _ in range(repeats + 1):
        started = time.perf_counter()
        answer = await BASH.handler(ctx, {"command": "true"})
        times.append((time.perf_counter() - started) * 1000)
        assert getattr(answer, "sandboxed", None) is (mode != "off"), answer
    return times[1:]  # the first call probes and builds the filter


def run_overhead(quick: bool) -> Row:
    repeats = 10 if quick else 60
    per_command: dict[str, list[float]] = {"off": [], "required": []}
    with temp_dir("bench-sandbox-") as root:
        for n in range(4):
            for mode in ("off", "required") if n % 2 == 0 else ("required", "off"):
                per_command[mode] += asyncio.run(_command_ms(mode, root, repeats // 4 or 1))
    off_ms, on_ms = median(per_command["off"]), median(per_command["required"])
    extra_ms = on_ms - off_ms
    turns = 20 if quick else 200
    runs = 1 if quick else 5
    per_turn: dict[str, list[float]] = {"on": [], "off": []}
    for n in range(runs):
        for name in ("on", "off") if n % 2 == 0 else ("off", "on"):
            wall, _, _ = asyncio.run(_overhead_run(turns, {} if name == "on" else OFF))
            per_turn[name].append(wall)
    on_turn, off_turn = median(per_turn["on"]), median(per_turn["off"])
    ratio = on_turn / off_turn
    met = extra_ms <= COMMAND_LIMIT_MS and ratio <= TURN_LIMIT
    return Row(
        22,
        f"bash sandbox overhead: `true` per command; per turn of row 2's {turns}-turn mix",
        f"unsandboxed: `true` {off_ms:.1f} ms, {ms(off_turn)}/turn",
        f"sandboxed: `true` {on_ms:.1f} ms (+{extra_ms:.1f} ms), {ms(on_turn)}/turn",
        f"+{extra_ms:.1f} ms; {ratio:.2f}x per turn",
        f"<= {COMMAND_LIMIT_MS:g} ms per command, <= {TURN_LIMIT:g}x per turn",
        met,
        [
            f"- `true` through the real bash tool in-process, `sandbox.mode` off vs required, "
            f"{len(per_command['off'])} calls each in interleaved batches (the first call of "
            "each batch, which probes bwrap and builds the seccomp filter, left out): median "
            f"off {off_ms:.1f} ms, on {on_ms:.1f} ms; fastest off "
            f"{min(per_command['off']):.1f} ms, on {min(per_command['required']):.1f} ms.",
            "- What a sandboxed command adds: bwrap's namespaces (user, pid, net, ipc, uts, "
            "mount) and its bind mounts, a memfd with the seccomp program, and the stat calls "
            "that resolve the protected and masked paths.",
            f"- Per turn: the script of row 2 (cycle todo → read_file → edit_file → write_file "
            f"→ bash, {turns} tool turns: one command per 5 turns) through the real server "
            f"over LSP, sandbox on (the default) and off, {runs} run(s) each, alternating: on "
            + ", ".join(ms(v) for v in per_turn["on"])
            + "; off "
            + ", ".join(ms(v) for v in per_turn["off"])
            + ".",
        ],
    )


async def _questions(approvals: dict[str, str]) -> tuple[int, int]:
    """(questions asked, commands that ran) for the 20-command task."""
    from workspace_agent.testing.scripted_model import reply, text, tool

    replies = [reply(tool("bash", {"command": command})) for command in TASK]
    script = {
        "conversations": [
            warmup_conversation(),
            {"match": PROMPT, "replies": [*replies, reply(text("Done."))]},
        ],
        "on_exhausted": "error",
    }
    with temp_dir("bench-questions-") as workspace, ScriptedModelProcess(script) as model:
        make_workspace(workspace)
        asked = 0
        async with lsp_agent(workspace, model.url, {"approvals": approvals}) as (client, received):

            @client.feature("window/showMessageRequest")
            def answer(params: Any) -> Any:
                nonlocal asked
                from lsprotocol import types

                asked += 1
                return types.MessageActionItem(title="Allow")

            result = await run_prompt(client, PROMPT)
            await asyncio.sleep(0.5)  # the last notifications may still be on their way
        if result["stopReason"] != "end_turn":
            raise RuntimeError(f"the task went wrong: {result}")
        ran = sum(
            1
            for _, e in received.events
            if e.get("kind") == "toolResult" and e.get("name") == "bash" and e.get("ok")
        )
        return asked, ran


def run_questions(quick: bool) -> Row:
    before, ran_before = asyncio.run(_questions({"bash": "ask", "write": "allow"}))
    after, ran_after = asyncio.run(_questions({"bash": "sandboxed", "write": "allow"}))
    fewer = 1 - after / before if before else 0.0
    return Row(
        23,
        f"approval questions in a scripted {len(TASK)}-command task, default settings",
        f"before the sandbox (`approvals.bash: ask`): {before} questions",
        f"{after} questions",
        f"{fewer:.0%} fewer",
        f">= {FEWER_TARGET:.0%} fewer",
        fewer >= FEWER_TARGET and ran_before == ran_after == len(TASK),
        [
            f"- The same {len(TASK)} commands (listing, reading, grepping, compiling, writing "
            "and removing files in the workspace, two the command guard asks about even when "
            "commands are allowed: a variable as the command word, `echo … | python3`), every "
            "question answered Allow, through the real server over LSP.",
            f"- Commands that ran: before {ran_before}, after {ran_after} (all of them, "
            "sandboxed or not: the sandbox confines them, it does not refuse plain work).",
            "- After: only the guard's questions remain; the sandbox limits damage, not "
            "intent, so they are still asked.",
        ],
    )
