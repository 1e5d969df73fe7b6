"""Where the time goes, for the rows that miss their targets: `python -m bench --explain`.

- Row 2: the server run under bench/attribute.py (timers around its parts), the same run
  with the session store's fsync switched off, and the bare loop, interleaved.
- Row 4: edit_file's steps timed one by one in a fresh process, the naive edit's too, and
  edit_file again with a one-pass format check (what-if).
- Rows 6 and 7: the latency path cut into segments with timestamps taken in the scripted
  model, in the server (bench/attribute.py) and in the client; and the same SDK segments
  for a bare SDK consumer, to tell the SDK's share from the agent's.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import defaultdict
from typing import Any

from .harness import PY, ScriptedModelProcess, lsp_agent, run_prompt, run_worker, temp_dir
from .overhead import PROMPT as RUN_PROMPT
from .overhead import _bare
from .report import median, ms, percentile
from .scripts import TOOL_MIX, WARMUP, make_workspace, tool_run_script

# -- row 2 -----------------------------------------------------------------------------------


async def _attributed(
    turns: int, what_if: list[str], mix: tuple[str, ...] = TOOL_MIX
) -> dict[str, Any]:
    with (
        temp_dir("bench-explain-") as workspace,
        ScriptedModelProcess(tool_run_script(RUN_PROMPT, turns, mix)) as model,
    ):
        make_workspace(workspace)
        out = workspace / "attribute.json"
        command = [PY, "-m", "bench.attribute", str(out)]
        if what_if:
            command += ["--what-if", *what_if]
        async with lsp_agent(workspace, model.url, command=command) as (client, _):
            await run_prompt(client, WARMUP)
            baseline = json.loads(out.read_text())
            started = time.perf_counter()
            result = await run_prompt(client, RUN_PROMPT)
            seconds = time.perf_counter() - started
        if result["stopReason"] != "end_turn":
            raise RuntimeError(f"attributed run went wrong: {result}")
        data = json.loads(out.read_text())
    base_totals, base_counts = baseline["totals"], baseline["counts"]
    totals = {k: v - base_totals.get(k, 0.0) for k, v in data["totals"].items()}
    counts = {k: v - base_counts.get(k, 0) for k, v in data["counts"].items()}
    return {"seconds": seconds, "totals": totals, "counts": counts}


WHAT_IFS = {
    "ours": [],
    "ours, session store without fsync": ["no-session-fsync"],
    "ours, without fsync, GC frozen after warm-up": ["no-session-fsync", "gc-freeze"],
}


def explain_overhead(quick: bool) -> list[str]:
    turns, repeats = (20, 1) if quick else (200, 3)
    runs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for _ in range(repeats):
        runs["bare"].append(_bare(turns, TOOL_MIX))
        for name, what_if in WHAT_IFS.items():
            runs[name].append(asyncio.run(_attributed(turns, what_if)))
    per_turn = {k: median([r["seconds"] for r in v]) / turns for k, v in runs.items()}
    fastest = {k: min(r["seconds"] for r in v) / turns for k, v in runs.items()}
    bare = per_turn["bare"]
    lines = [
        f"Row 2, {turns} turns (mix of all five tools), {repeats} run(s) of each variant, "
        "interleaved, the server under bench/attribute.py; median ms per turn:",
        "",
        "| variant | ms/turn (median) | vs bare loop | ms/turn (fastest run) | vs bare loop |",
        "|---|---|---|---|---|",
        *(
            f"| {name} | {value * 1000:.2f} | {value / bare:.2f}x | "
            f"{fastest[name] * 1000:.2f} | {fastest[name] / fastest['bare']:.2f}x |"
            for name, value in per_turn.items()
        ),
        "",
        "The bare loop parses the stream with the SDK's MessageStream; the server reads "
        "the SSE events itself (agent/sse.py), which is part of why it can be faster.",
        "",
        "Timers inside the server (the first run of the unchanged server; ms per turn; "
        "indented rows are part of the row above; tool handlers and model.respond are work "
        "the bare loop does too):",
        "",
        "| part of the server's turn | ms/turn | calls |",
        "|---|---|---|",
    ]
    ours = runs["ours"][0]
    for name, total in sorted(ours["totals"].items(), key=lambda kv: -kv[1]):
        if total > 0:
            calls = ours["counts"].get(name, "")
            lines.append(f"| {name} | {total / turns * 1000:.2f} | {calls} |")
    return lines


# -- row 4 -----------------------------------------------------------------------------------


def explain_edit(quick: bool) -> list[str]:
    lines_in_file = 100_000 if quick else 1_000_000
    with temp_dir("bench-explain-edit-") as folder:
        from .files import line_text, make_file

        path = folder / "big.txt"
        make_file(path, lines_in_file)
        old = line_text(lines_in_file // 2).decode()
        result = run_worker("bench.edit_steps", str(path), old, old[:-10] + "EDITED_ONE")
    size_mb = lines_in_file * 100 / 1e6
    out = [
        f"Row 4, {size_mb:g} MB file, steps timed in one fresh process (median of 3 edits "
        "each, warm page cache):",
        "",
        "| step | ms |",
        "|---|---|",
    ]
    for name, seconds in result["steps"].items():
        out.append(f"| {name} | {seconds * 1000:.0f} |")
    out += [
        "",
        f"- edit_file as it is: {ms(result['ours'])}; with a one-pass format check "
        f"(what-if below): {ms(result['ours_fast_sniff'])}; naive: {ms(result['naive'])}.",
        "- What-if (bench/edit_steps.py `fast_sniff`): the file is read once and its format "
        "is checked on those bytes with C-speed scans (`data.isascii()` before any UTF-8 "
        "decode, `b'\\r' in data` before any CRLF counting) instead of `sniff_format`'s "
        "second pass with an incremental decoder; same answer for every file.",
    ]
    return out


# -- rows 6 and 7 ----------------------------------------------------------------------------


def explain_latency(quick: bool) -> list[str]:
    from . import latency

    turns, repeats = (30, 1) if quick else (200, 2)
    command = [PY, "-m", "bench.attribute", "{workspace}/attribute.json", "--what-if"]
    variants = {
        "unchanged server": ["none"],
        "GC frozen after warm-up": ["gc-freeze"],
    }
    pooled: dict[str, dict[str, list[float]]] = {v: defaultdict(list) for v in variants}
    pauses: dict[str, list[float]] = defaultdict(list)
    first: dict[str, Any] = {}
    for _ in range(repeats):
        for name, what_if in variants.items():
            keep: dict[str, Any] = {}
            got = asyncio.run(latency.measure(turns, [*command, *what_if], keep=keep))
            for key, values in got.items():
                pooled[name][key] += values
            pauses[name] += _gc_pauses(keep, turns)
            first.setdefault(name, keep)
    segments = _segments(first["unchanged server"], turns)
    sdk = asyncio.run(_bare_sdk_segments(turns))
    lines = [
        f"Rows 6 and 7, {turns} replies, the unchanged server under bench/attribute.py (its "
        "timers add a little); p50 / p90 of each segment in ms:",
        "",
        "| segment | p50 | p90 |",
        "|---|---|---|",
    ]
    for name, values in [*segments.items(), *sdk.items()]:
        lines.append(f"| {name} | {percentile(values, 50):.2f} | {percentile(values, 90):.2f} |")
    lines += [
        "",
        f"What-ifs (bench/attribute.py), {repeats} run(s) of {turns} replies each, samples "
        "pooled; GC pauses are the server's collections longer than 2 ms during the "
        "measured runs:",
        "",
        "| server | todo p50 | todo p99 | text p50 | text p99 | GC pauses > 2 ms (count, "
        "sum, longest) |",
        "|---|---|---|---|---|---|",
    ]
    for name in variants:
        todo, text = pooled[name]["todo"], pooled[name]["text"]
        gc_pauses = pauses[name]
        lines.append(
            f"| {name} | {percentile(todo, 50):.2f} | {percentile(todo, 99):.2f} | "
            f"{percentile(text, 50):.2f} | {percentile(text, 99):.2f} | {len(gc_pauses)}, "
            f"{sum(gc_pauses):.0f} ms, {max(gc_pauses, default=0):.0f} ms |"
        )
    return lines


def _gc_pauses(keep: dict[str, Any], turns: int) -> list[float]:
    """The server's GC pauses (ms) between the first measured reply and the last event."""
    stamps = keep["stamps"]
    messages = sorted({s["message"] for s in stamps})[-(turns + 1) :]
    start = min(s["t"] for s in stamps if s["message"] == messages[0])
    end = max(s["t"] for s in stamps)
    return [
        float(detail)
        for name, at, detail in keep["server"]["marks"]
        if name.startswith("gc pause") and start <= at <= end
    ]


def _segments(keep: dict[str, Any], turns: int) -> dict[str, list[float]]:
    stamps = keep["stamps"]
    marks = keep["server"]["marks"]
    received = keep["received"]
    by_message: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for stamp in stamps:
        by_message[stamp["message"]].append(stamp)
    messages = sorted(by_message)[-(turns + 1) :][:turns]
    point: dict[str, dict[str, int]] = defaultdict(dict)
    for name, at, detail in marks:
        point[name].setdefault(detail, at)
    respond_ends = sorted(at for name, at, _ in marks if name == "respond end")
    text_got: dict[str, int] = {}
    for at, event in received.events:
        if event.get("kind") == "text":
            text_got.setdefault(str(event["text"])[:8], at)
    todo_got: dict[str, int] = {}
    for at, payload in received.todos:
        if payload.get("items"):
            todo_got.setdefault(payload["items"][0]["text"], at)
    out: dict[str, list[float]] = defaultdict(list)
    for turn, message in enumerate(messages):
        events = by_message[message]
        first_text = next(e["t"] for e in events if e["delta"] == "text_delta")
        tool_stop = next(
            e["t"] for e in events if e["name"] == "content_block_stop" and e["index"] == 1
        )
        last = events[-1]["t"]
        text_key, todo_key = f"Step {turn:03d}", f"step {turn:03d}"
        respond_end = next(t for t in respond_ends if t > last)
        on_text = point["on_event text"][text_key]
        on_todos = point["on_todos"][todo_key]

        def add(name: str, start: int, end: int) -> None:
            out[name].append((end - start) / 1e6)

        add(
            "7: first text_delta sent → server's on_text (SDK: read, SSE, accumulate)",
            first_text,
            on_text,
        )
        add(
            "7: server's on_text → client has the text event (notify, pipe, client)",
            on_text,
            text_got[text_key],
        )
        add("6: todo block's content_block_stop → message_stop sent (model)", tool_stop, last)
        add(
            "6: message_stop sent → respond() returns (SDK: end of stream, final message)",
            last,
            respond_end,
        )
        add(
            "6: respond() returns → on_todos (toolCall event, validate, handler, toolResult event)",
            respond_end,
            on_todos,
        )
        add(
            "6: on_todos → client has the todos (notify, pipe, client)",
            on_todos,
            todo_got[todo_key],
        )
    return out


async def _bare_sdk_segments(turns: int) -> dict[str, list[float]]:
    """The same stream consumed by nothing but the SDK (this process), for comparison."""
    import anthropic

    from . import latency

    out: dict[str, list[float]] = defaultdict(list)
    with ScriptedModelProcess(latency.script(turns), timestamps=True) as model:
        client = anthropic.AsyncAnthropic(api_key="bench", base_url=model.url, max_retries=0)
        seen: list[tuple[int | None, int]] = []
        for _ in range(turns):
            first = None
            async with client.messages.stream(
                model="bench",
                max_tokens=1000,
                messages=[{"role": "user", "content": latency.PROMPT}],
            ) as stream:
                async for event in stream:
                    if event.type == "text" and first is None:
                        first = time.monotonic_ns()
                await stream.get_final_message()
            seen.append((first, time.monotonic_ns()))
        stamps = model.timestamps()
        await client.close()
    by_message: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for stamp in stamps:
        by_message[stamp["message"]].append(stamp)
    for (first, done), message in zip(seen, sorted(by_message), strict=True):
        events = by_message[message]
        first_text = next(e["t"] for e in events if e["delta"] == "text_delta")
        if first is not None:
            out["bare SDK: first text_delta sent → text event in the consumer"].append(
                (first - first_text) / 1e6
            )
        out["bare SDK: message_stop sent → get_final_message() returns"].append(
            (done - events[-1]["t"]) / 1e6
        )
    return out


def explain(quick: bool, rows: set[int] | None = None) -> list[str]:
    parts: list[str] = ["## Where the time goes", ""]
    for numbers, fn in (({2}, explain_overhead), ({4}, explain_edit), ({6, 7}, explain_latency)):
        if rows and not rows & numbers:
            continue
        print(f"[bench] explain rows {sorted(numbers)} ...", flush=True)
        try:
            parts += [*fn(quick), ""]
        except Exception as exc:  # an explanation must not sink the report
            parts += [f"(explaining rows {sorted(numbers)} failed: {exc})", ""]
    return parts


if __name__ == "__main__":
    import sys

    print("\n".join(explain("--quick" in sys.argv)))
