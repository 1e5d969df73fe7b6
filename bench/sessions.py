"""Row 8: listing saved sessions, and what a listing does to a run that is going on.

A workspace with 1,000 saved sessions of 1 MB each, written by the server's own
SessionStore (so each has its summary, as the server leaves them). Two servers, each in
the same run: ours, and the naive baseline (`bench.naive_sessions_server`: the same
server, answering `workspaceAgent/sessions` by replaying every session file in full on
the event loop, as it did before summaries). For each:

1. Listing: `workspaceAgent/sessions` on an idle server, from sending the request to
   having read the whole answer.
2. A run whose model answers every 20 ms with a `todo` call that changes the plan, once
   undisturbed and once while the client lists sessions ten times a second (far more
   often than an editor does: the extension lists when its session picker opens) for a
   few seconds.
   The scripted model (its own process) notes CLOCK_MONOTONIC when each todo call has
   been flushed to the socket, the client when the `workspaceAgent/todos` notification
   with that plan arrives; a notification's delay is how much longer that took than the
   undisturbed run's median.

The client is raw JSON-RPC framing (bench/rpc_client.py) that keeps the large listing
answers as bytes, so its own decoding never delays a notification it stamps.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workspace_agent import protocol as p
from workspace_agent.agent.store import SessionStore
from workspace_agent.shared.session import Session
from workspace_agent.testing.scripted_model import reply, text, tool

from .harness import BENCH_SETTINGS, PY, ScriptedModelProcess, child_env, temp_dir
from .report import Row, median, ms, percentile, spread
from .rpc_client import RawClient, raw_server
from .scripts import WARMUP, warmup_conversation

WHAT = "`workspaceAgent/sessions` with 1,000 saved sessions of 1 MB, and a run's plan meanwhile"
TARGET = "listing <= 100 ms; no todo notification delayed > 10 ms while listings run"
LISTING_LIMIT = 0.100
DELAY_LIMIT = 0.010

COMMANDS = {
    "ours": [PY, "-m", "workspace_agent"],
    "naive": [PY, "-m", "bench.naive_sessions_server"],
}
LISTING_EVERY = 0.1
"""Seconds between listings while the second run goes on."""
QUIET = "paced run without listings"
LISTED = "paced run while sessions are listed"


@dataclass(frozen=True)
class Size:
    sessions: int
    session_bytes: int
    turns: int
    """Todo calls in each paced run."""
    pace: float
    """Seconds the scripted model waits before each answer."""
    listing_window: float
    """Seconds the client lists sessions during the second run."""
    idle_listings: dict[str, int]


FULL = Size(1000, 1_000_000, 200, 0.02, 3.0, {"ours": 20, "naive": 2})
QUICK = Size(40, 100_000, 60, 0.02, 1.0, {"ours": 5, "naive": 2})

TURNS_PER_SESSION = 20


def make_sessions(root: Path, size: Size) -> int:
    """Saved sessions as the server writes them: TURNS_PER_SESSION appends each (a tool
    call and its result of about session_bytes / TURNS_PER_SESSION), a plan, a title."""
    store = SessionStore(root)
    result = "value = compute(value)  # a line of a file the agent read\n"
    result = result * (size.session_bytes // TURNS_PER_SESSION // len(result))
    plan = [
        {"id": "1", "text": "Read the module", "status": "completed"},
        {"id": "2", "text": "Change it", "status": "in_progress"},
        {"id": "3", "text": "Run the tests", "status": "pending"},
    ]
    for n in range(size.sessions):
        session = Session(id=f"saved{n:07d}")
        session.add_prompt(f"Saved task number {n}: change the module and run the tests")
        session.todos.replace(plan)
        for turn in range(TURNS_PER_SESSION):
            tool_id = f"toolu_{n:04d}_{turn:02d}"
            session.messages.append(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": tool_id, "name": "read_file", "input": {}}
                    ],
                }
            )
            session.messages.append(
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": result}],
                }
            )
            store.sync(session)
    return sum(f.stat().st_size for f in store.folder.glob("*.jsonl"))


def _plan(prompt: str, turn: int) -> dict[str, Any]:
    return {"items": [{"id": "1", "text": f"{prompt} {turn:03d}", "status": "in_progress"}]}


def script(size: Size) -> dict[str, Any]:
    def paced(prompt: str) -> dict[str, Any]:
        replies = [
            reply(tool("todo", _plan(prompt, turn)), delay=size.pace) for turn in range(size.turns)
        ]
        return {"match": prompt, "replies": [*replies, reply(text("Done."))]}

    return {
        "conversations": [warmup_conversation(), paced(QUIET), paced(LISTED)],
        "on_exhausted": "error",
    }


@dataclass
class Measured:
    first_listing: float
    """Seconds of the first listing after the server started (every summary read)."""
    idle_listings: list[float]
    """Seconds per listing on an idle server."""
    busy_listings: list[float]
    """Seconds per listing during the second run."""
    quiet: list[float]
    """Seconds from the model's todo call to the client's notification, undisturbed."""
    listed: list[float]
    """The same, for the todo calls the model sent while listings ran."""
    listed_sessions: int


async def _paced_run(
    client: RawClient, prompt: str, window: float
) -> tuple[dict[str, int], list[float], tuple[int, int]]:
    """Run `prompt`; with `window`, list sessions every LISTING_EVERY for that many seconds
    from the fifth plan update on. The plans' arrival times by plan text, the listings'
    durations, and the span of the listings (monotonic ns)."""
    first = len(client.notifications)
    running = asyncio.ensure_future(client.request(p.RUN_REQUEST, {"prompt": prompt}))
    listings: list[float] = []
    span = (0, 0)
    if window:
        deadline = time.monotonic() + 10
        while sum(1 for _, m, _ in client.notifications[first:] if m == p.TODOS_NOTIFICATION) < 5:
            if running.done() or time.monotonic() > deadline:
                raise RuntimeError("the paced run did not get going")
            await asyncio.sleep(0.005)
        begin = time.monotonic_ns()
        stop = time.monotonic() + window
        next_at = time.monotonic()
        while time.monotonic() < stop and not running.done():
            await asyncio.sleep(max(next_at - time.monotonic(), 0))
            answer = await client.request(p.SESSIONS_REQUEST, {})
            listings.append(answer.seconds)
            next_at = max(next_at + LISTING_EVERY, time.monotonic())
        span = (begin, time.monotonic_ns())
    result = (await running).result()
    if result["stopReason"] != "end_turn":
        raise RuntimeError(f"{prompt}: the run stopped with {result['stopReason']}")
    arrivals: dict[str, int] = {}
    for at, method, params in client.notifications[first:]:
        if method == p.TODOS_NOTIFICATION and params["items"]:
            arrivals.setdefault(params["items"][0]["text"], at)
    return arrivals, listings, span


def _sent(stamps: list[dict[str, Any]], skip: int, prompt: str, turns: int) -> dict[str, int]:
    """When the model flushed each todo call of a run, by plan text: the todo block's
    content_block_stop in the run's replies (message order = request order)."""
    by_message: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for stamp in stamps:
        by_message[stamp["message"]].append(stamp)
    ordered = sorted(by_message.values(), key=lambda events: events[0]["t"])[skip:]
    sent: dict[str, int] = {}
    for turn, events in enumerate(ordered[:turns]):
        done = next(e for e in events if e["name"] == "content_block_stop" and e["index"] == 0)
        sent[_plan(prompt, turn)["items"][0]["text"]] = done["t"]
    return sent


async def measure(name: str, workspace: Path, size: Size) -> Measured:
    options = {"workspaceAgent": {**BENCH_SETTINGS}}
    with ScriptedModelProcess(script(size), timestamps=True) as model:
        options["workspaceAgent"]["baseUrl"] = model.url
        async with raw_server(COMMANDS[name], workspace, child_env(), options) as client:
            (await client.request(p.RUN_REQUEST, {"prompt": WARMUP})).result()
            first = await client.request(p.SESSIONS_REQUEST, {})
            warm = first.result()
            idle = [
                (await client.request(p.SESSIONS_REQUEST, {})).seconds
                for _ in range(size.idle_listings[name])
            ]
            quiet_got, _, _ = await _paced_run(client, QUIET, 0)
            listed_got, busy, (begin, end) = await _paced_run(client, LISTED, size.listing_window)
        stamps = model.timestamps()
    saved = sum(1 for s in warm["sessions"] if s["sessionId"].startswith("saved"))
    if warm["problems"] or saved != size.sessions:  # besides them: the runs' own sessions
        raise RuntimeError(f"{name}: listed {saved} saved sessions, {warm['problems'][:3]}")
    warmup_requests = 2
    quiet_sent = _sent(stamps, warmup_requests, QUIET, size.turns)
    listed_sent = _sent(stamps, warmup_requests + size.turns + 1, LISTED, size.turns)
    quiet = [(quiet_got[k] - t) / 1e9 for k, t in quiet_sent.items()]
    during = [(listed_got[k] - t) / 1e9 for k, t in listed_sent.items() if begin <= t <= end]
    if len(quiet) != size.turns or not during:
        raise RuntimeError(f"{name}: matched {len(quiet)} quiet plans, {len(during)} during")
    return Measured(first.seconds, idle, busy, quiet, during, len(warm["sessions"]))


async def measure_both(size: Size) -> tuple[dict[str, Measured], int, float]:
    with temp_dir("bench-sessions-") as workspace:
        started = time.perf_counter()
        total = await asyncio.to_thread(make_sessions, workspace, size)
        made = time.perf_counter() - started
        results = {name: await measure(name, workspace, size) for name in ("ours", "naive")}
    return results, total, made


def _delays(m: Measured) -> list[float]:
    typical = median(m.quiet)
    return [latency - typical for latency in m.listed]


def _over(latencies: list[float], quiet: list[float]) -> str:
    """How many of `latencies` exceed the undisturbed median by more than the limit."""
    typical = median(quiet)
    late = sum(1 for latency in latencies if latency - typical > DELAY_LIMIT)
    return f"{late} of {len(latencies)}"


def run(quick: bool) -> Row:
    size = QUICK if quick else FULL
    results, total, made = asyncio.run(measure_both(size))
    ours, naive = results["ours"], results["naive"]
    ours_list, naive_list = median(ours.idle_listings), median(naive.idle_listings)
    ours_delay, naive_delay = max(_delays(ours)), max(_delays(naive))
    met = ours_list <= LISTING_LIMIT and ours_delay <= DELAY_LIMIT
    details = [
        f"- workspace: {size.sessions:,} saved sessions, {total / 1e6:,.0f} MB of JSONL "
        f"({total / size.sessions / 1e6:.2f} MB each: {TURNS_PER_SESSION} appends of a tool "
        f"call and its result, a 3-item plan), written by SessionStore.sync in {made:.0f} s, "
        "so each has the summary the server keeps; warm page cache.",
    ]
    for name, m in results.items():
        delays = _delays(m)
        details += [
            f"- **{name}**: listing on an idle server {spread(m.idle_listings)}; the first "
            f"after start {ms(m.first_listing)}; during the run {spread(m.busy_listings)}",
            f"  - plan notification latency, undisturbed: p50 {ms(median(m.quiet))}, "
            f"p99 {ms(percentile(m.quiet, 99))}, max {ms(max(m.quiet))} (n={len(m.quiet)}): "
            f"the machine's own noise reaches {ms(max(m.quiet) - median(m.quiet))} "
            f"beyond the median without any listing ({_over(m.quiet, m.quiet)} of them more "
            f"than {DELAY_LIMIT * 1000:.0f} ms beyond it)",
            f"  - while listings ran: p50 {ms(median(m.listed))}, "
            f"p99 {ms(percentile(m.listed, 99))}, max {ms(max(m.listed))} (n={len(m.listed)}); "
            f"delay beyond the undisturbed median: p99 {ms(percentile(delays, 99))}, "
            f"max {ms(max(delays))} ({_over(m.listed, m.quiet)} more than "
            f"{DELAY_LIMIT * 1000:.0f} ms)",
        ]
    details += [
        f"- Each paced run: {size.turns} model answers, each a `todo` call changing the plan, "
        f"{size.pace * 1000:.0f} ms after the request; the client sends a listing every "
        f"{LISTING_EVERY * 1000:.0f} ms (at once if the last answer took longer) for "
        f"{size.listing_window:.0f} s from the fifth plan update of the second run. "
        "Latency: from the model flushing the todo call (CLOCK_MONOTONIC in the model "
        "process) to the client reading the notification (CLOCK_MONOTONIC here).",
        "- Baseline: `python -m bench.naive_sessions_server`, the same server answering "
        "`workspaceAgent/sessions` by replaying every session file in full on the event loop "
        "(the implementation before summaries). A listing that blocks the loop holds back "
        "every notification until it is done.",
        f"- Targets: listing (median, idle) <= {LISTING_LIMIT * 1000:.0f} ms; the largest "
        f"delay of a plan notification while listings ran <= {DELAY_LIMIT * 1000:.0f} ms.",
    ]
    return Row(
        8,
        WHAT.replace("1,000", f"{size.sessions:,}").replace(
            "1 MB", f"{size.session_bytes / 1e6:g} MB"
        ),
        f"full replay on the event loop: listing {ms(naive_list)}, "
        f"plan delayed up to {ms(naive_delay)}",
        f"listing {ms(ours_list)}, plan delayed up to {ms(ours_delay)}",
        f"{naive_list / ours_list:,.0f}x faster listing",
        TARGET,
        met,
        details,
    )
