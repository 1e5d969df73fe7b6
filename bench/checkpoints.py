"""Rows 12-14: what checkpoints cost.

12. Per workspace-changing tool call on a 20,000-file tree (a git repository, with
   git-ignored build output), next to `git status --porcelain` on the same tree.
13. Per turn of the overhead run (row 2's script, all five tools), checkpoints on against
   checkpoints off, both the real server over LSP.
14. Store growth for 100 `edit_file` calls on a 1 MB file, through the real server,
   against the size of the text the edits put in.
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import time
from pathlib import Path
from typing import Any

from .harness import ScriptedModelProcess, lsp_agent, run_prompt, run_worker, settled, temp_dir
from .overhead import PROMPT as OVERHEAD_PROMPT
from .report import Row, median, ms
from .scripts import TOOL_MIX, WARMUP, make_workspace, tool_run_script, warmup_conversation

STATUS_LIMIT = 2.0
TURN_LIMIT = 1.1
GROWTH_LIMIT = 3.0
OFF = {"checkpoints": {"enabled": False}}


# -- row 12 --------------------------------------------------------------------------------


def make_tree(root: Path, files: int) -> dict[str, int]:
    """A git repository with `files` files: 80 % source (committed), 20 % build output
    that .gitignore leaves out."""
    sources, outputs = files * 4 // 5, files - files * 4 // 5
    per_folder = 80
    for n in range(sources):
        folder = root / "src" / f"pkg{n // per_folder:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{n % per_folder:02d}.py").write_text(
            f'"""Module {n}."""\n\n' + "".join(f"value_{k} = {n * k}\n" for k in range(30))
        )
    for n in range(outputs):
        folder = root / "build" / f"out{n // per_folder:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"obj{n % per_folder:02d}.o").write_bytes(os.urandom(256))
    (root / ".gitignore").write_text("build/\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b")
    env.update(GIT_COMMITTER_EMAIL="b@b")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "tree"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return {"sources": sources, "outputs": outputs}


def run_per_call(quick: bool) -> Row:
    files = 2_000 if quick else 20_000
    calls = 5 if quick else 30
    with temp_dir("bench-ckpt-tree-") as root:
        counts = make_tree(root, files)
        result = run_worker("bench.checkpoint_worker", str(root), str(calls))
    status, bash, edit = (median(result[k]) for k in ("status", "bash", "edit"))
    ratio = bash / status
    mix = (bash + 2 * edit) / 3
    return Row(
        12,
        f"checkpoint cost per workspace-changing tool call, {files:,}-file tree",
        f"`git status --porcelain`: {ms(status)}",
        f"bash (whole-tree scan) {ms(bash)}; edit_file {ms(edit)}",
        f"{ratio:.2f}x (bash)",
        f"<= {STATUS_LIMIT:g}x git status",
        ratio <= STATUS_LIMIT,
        [
            f"- tree: a git repository with {counts['sources']:,} committed source files in "
            f"{counts['sources'] // 80} folders and {counts['outputs']:,} files of build "
            "output under `build/`, which its .gitignore leaves out.",
            f"- ours: the real CheckpointObserver in a fresh process, {calls} calls of each "
            "kind after one warm-up call, each changing one source file; timed: before_tool + "
            "after_tool (the file change itself is not). A `bash` call is followed by a scan "
            "of the whole tree (`git status` of the private index, hashing what changed, the "
            "index update, the journal, the changes payload); an `edit_file` call reads the "
            "one file it names before and after (no git process).",
            f"- bash: {_spread(result['bash'])}; edit_file: {_spread(result['edit'])}; "
            f"`git status --porcelain` in the user's repository: {_spread(result['status'])}; "
            "interleaved, alternating order.",
            f"- ratio of medians bash / git status {ratio:.2f} (target <= {STATUS_LIMIT:g}); a "
            f"mix of one bash, one edit_file and one write_file costs {ms(mix)} per call "
            f"({mix / status:.2f}x git status).",
            f"- Once per workspace, the first run imports the tree into the store: "
            f"{ms(result['first_run'])} here (files hashed by git in one process).",
        ],
    )


def _spread(values: list[float]) -> str:
    return f"median {ms(median(values))} (min {ms(min(values))}, max {ms(max(values))})"


# -- row 13 ---------------------------------------------------------------------------------


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of a process and of its children it has waited for (the
    git and bash processes it ran), from /proc: what load on the machine disturbs less
    than wall time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


async def _overhead_run(turns: int, settings: dict[str, Any]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the server and its commands) per turn, and the
    workspaceAgent/changes notifications of the measured run."""
    with (
        temp_dir("bench-ckpt-turns-") as workspace,
        ScriptedModelProcess(tool_run_script(OVERHEAD_PROMPT, turns, TOOL_MIX)) as model,
    ):
        make_workspace(workspace)
        async with lsp_agent(workspace, model.url, settings) as (client, received):
            warm = await run_prompt(client, WARMUP)
            assert warm["stopReason"] == "end_turn", warm
            await settled()
            pid = client._server.pid
            cpu = _cpu_seconds(pid)
            notified = received.changes
            started = time.perf_counter()
            result = await run_prompt(client, OVERHEAD_PROMPT)
            seconds = time.perf_counter() - started
            cpu = _cpu_seconds(pid) - cpu
            notified = received.changes - notified
        failed = [e for _, e in received.events if e.get("kind") in ("error", "notice")]
        failed += [
            e for _, e in received.events if e.get("kind") == "toolResult" and not e.get("ok")
        ]
        if result["stopReason"] != "end_turn" or failed:
            raise RuntimeError(f"the run went wrong: {result} {failed[:3]}")
        return seconds / turns, cpu / turns, notified


def run_per_turn(quick: bool) -> Row:
    from workspace_agent.checkpoints.publisher import CHANGES_INTERVAL

    turns = 20 if quick else 200
    repeats = 1 if quick else 7
    per_turn: dict[str, list[float]] = {"on": [], "off": []}
    cpu: dict[str, list[float]] = {"on": [], "off": []}
    notified: list[int] = []
    for n in range(repeats):
        for name in ("on", "off") if n % 2 == 0 else ("off", "on"):
            settings = {} if name == "on" else OFF
            wall, used, sent = asyncio.run(_overhead_run(turns, settings))
            per_turn[name].append(wall)
            cpu[name].append(used)
            if name == "on":
                notified.append(sent)
    on, off = median(per_turn["on"]), median(per_turn["off"])
    cpu_on, cpu_off = median(cpu["on"]), median(cpu["off"])
    ratio = on / off
    return Row(
        13,
        f"per-turn time with checkpoints ({turns}-turn overhead run of row 2)",
        f"checkpoints off: {ms(off)}/turn",
        f"{ms(on)}/turn",
        f"{ratio:.2f}x",
        f"<= {TURN_LIMIT:g}x",
        ratio <= TURN_LIMIT,
        [
            "- The script of row 2 (cycle todo → read_file → edit_file → write_file → bash, "
            f"{turns} tool turns), the real server over LSP, with `checkpoints.enabled` true "
            "(the default) and false; a fresh workspace, server and scripted model per run, "
            "after the same warm-up run and a second's pause (the store is packed in the "
            "background after a run's answer; a user's next prompt comes later than that).",
            f"- {repeats} run(s) each, alternating: on "
            + ", ".join(ms(v) for v in per_turn["on"])
            + "; off "
            + ", ".join(ms(v) for v in per_turn["off"])
            + f". Difference of medians {ms(on - off)}/turn.",
            f"- CPU time of the server and the commands and git processes it ran, per turn "
            f"(less disturbed by other work on the machine): on {ms(cpu_on)}, off "
            f"{ms(cpu_off)}, ratio {cpu_on / cpu_off:.2f}x, difference {ms(cpu_on - cpu_off)}"
            f"/turn; with checkpoints off the server's CPU time is {cpu_off / off:.0%} of the "
            "wall time (the rest is the scripted model, the client and the pipes).",
            "- With checkpoints on, each run also starts with a scan of the workspace, "
            "workspace-changing calls send `workspaceAgent/changes` notifications (at most "
            f"one per {CHANGES_INTERVAL * 1000:.0f} ms, the final state before the answer: "
            f"{median(notified):.0f} in the measured run), and the run ends by packing the "
            "store.",
        ],
    )


# -- row 14 --------------------------------------------------------------------------------

WORDS = [
    "".join(random.Random(n).choice("abcdefghijklmnopqrstuvwxyz") for _ in range(2 + n % 7))
    for n in range(800)
]


def _line(rng: random.Random, n: int) -> str:
    words = []
    width = 12
    while width < 95:
        word = rng.choice(WORDS)
        words.append(word)
        width += len(word) + 1
    return f"{n:08d} = {' '.join(words)}"[:99]


def _block(rng: random.Random, first: int, lines: int) -> str:
    return "".join(_line(rng, n) + "\n" for n in range(first, first + lines))


def _store_bytes(workspace: Path) -> int:
    total = 0
    for folder, _dirs, names in os.walk(workspace / ".workspace-agent" / "checkpoints"):
        total += sum(os.lstat(os.path.join(folder, name)).st_size for name in names)
    return total


def _packed_store_bytes(workspace: Path) -> int:
    """What the store would take packed: a copy of it, packed and pruned by git. The
    server leaves a store that little was written to as loose objects (its upkeep packs
    once 1 MiB of content piled up), so the size before the measured run is taken packed,
    as the run's end leaves it."""
    import shutil

    with temp_dir("bench-ckpt-packed-") as copy:
        shutil.copytree(workspace / ".workspace-agent", copy / ".workspace-agent")
        repo = copy / ".workspace-agent" / "checkpoints" / "repo"
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
            "GIT_DIR": str(repo),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
        }
        for command in (["repack", "-a", "-d", "-q"], ["prune", "--expire=now"]):
            subprocess.run(["git", *command], env=env, check=True, capture_output=True)
        return _store_bytes(copy)


async def _growth(edits: int, block_lines: int, file_lines: int) -> dict[str, Any]:
    from workspace_agent.testing.scripted_model import reply, text, tool

    rng = random.Random(7)
    blocks = [_block(rng, n * 10, 10) for n in range(file_lines // 10)]
    stride = len(blocks) // edits
    item = {"id": "1", "text": "Edit", "status": "in_progress"}
    replies = [reply(tool("todo", {"items": [item]}))]
    changed = 0
    current = list(blocks)
    for k in range(edits):
        index = k * stride
        old = current[index] if block_lines == 10 else current[index].splitlines(True)[0]
        new_lines = _block(rng, index * 10, block_lines)
        new = new_lines.replace(f"{index * 10:08d} = ", f"{index * 10:08d} = edited ", 1)
        changed += len(new.encode())
        edit = {"path": "big.txt", "old_text": old, "new_text": new}
        replies.append(reply(tool("edit_file", edit)))
        current[index] = current[index].replace(old, new, 1)
    replies.append(reply(text("Edited.")))
    script = {
        "conversations": [warmup_conversation(), {"match": "edit big", "replies": replies}],
        "on_exhausted": "error",
    }
    settings = {"maxTurns": edits + 5}
    with temp_dir("bench-ckpt-growth-") as workspace, ScriptedModelProcess(script) as model:
        (workspace / "README.md").write_text("# growth\n")
        (workspace / "big.txt").write_text("".join(blocks))
        size = (workspace / "big.txt").stat().st_size
        # Each size is read after the server shut down: the store is packed after a run's
        # answer, and `shutdown` waits for that.
        async with lsp_agent(workspace, model.url, settings) as (client, received):
            warm = await run_prompt(client, WARMUP)
            assert warm["stopReason"] == "end_turn", warm
        before = _packed_store_bytes(workspace)
        async with lsp_agent(workspace, model.url, settings) as (client, received):
            result = await run_prompt(client, "edit big")
        after = _store_bytes(workspace)
        failed = [
            e for _, e in received.events if e.get("kind") == "toolResult" and not e.get("ok")
        ]
        if result["stopReason"] != "end_turn" or failed:
            raise RuntimeError(f"the edit run went wrong: {result} {failed[:2]}")
        if (workspace / "big.txt").read_text() != "".join(current):
            raise RuntimeError("big.txt does not hold the edits")
    return {"size": size, "before": before, "growth": after - before, "changed": changed}


def run_growth(quick: bool) -> Row:
    edits = 20 if quick else 100
    file_lines = 2_000 if quick else 10_000
    block = asyncio.run(_growth(edits, 10, file_lines))
    ratio = block["growth"] / block["changed"]
    details = [
        f"- A {block['size']:,}-byte text file ({file_lines:,} lines of words), {edits} "
        "`edit_file` calls through the real server, each replacing a different 10-line block "
        "(about 1 KB) with new text; the store was made by a warm-up run before (the file "
        f"imported: {block['before']:,} bytes packed).",
        f"- store growth over the run (the whole `.workspace-agent/checkpoints` folder, read "
        "after the server shut down, so after the run's end packed it: objects, index, refs, "
        "journal; the size before it is that of the warm-up's store packed by git, on a copy, "
        "since the server leaves a store with less than 1 MiB of new content unpacked): "
        f"{block['growth']:,} bytes "
        f"for {block['changed']:,} bytes of new text = {ratio:.2f}x (target <= "
        f"{GROWTH_LIMIT:g}x). A copy per edit would be {edits * block['size']:,} bytes.",
    ]
    if not quick:
        line = asyncio.run(_growth(edits, 1, file_lines))
        details.append(
            f"- With one-line edits (about 100 bytes each) the growth is {line['growth']:,} bytes "
            f"for {line['changed']:,} bytes of new text ({line['growth'] / line['changed']:.1f}x): "
            f"about {line['growth'] // edits} bytes per edit, mostly the fixed cost of a "
            "record (journal line, delta header, tree entry), not the file."
        )
    return Row(
        14,
        f"checkpoint store growth, {edits} edits of a {block['size'] / 1e6:.1f} MB file",
        f"new text written: {block['changed']:,} bytes",
        f"{block['growth']:,} bytes",
        f"{ratio:.2f}x",
        f"<= {GROWTH_LIMIT:g}x the changed content",
        ratio <= GROWTH_LIMIT,
        details,
    )
