"""`python -m bench`: every benchmark row, the table, and (with --write) docs/benchmarks.md.

    python -m bench                         full run (the targets are for this one)
    python -m bench --write docs/benchmarks.md
    python -m bench --quick                 CI smoke: small sizes, few repeats
    python -m bench --only 1,5              some rows only (with --write, the other rows
                                            are kept as the file had them)
    python -m bench --only peer             rows 19-21: ours and Claude Code side by side
                                            (installs Claude Code with npm on first use)
    python -m bench --explain               and where the time goes (rows 2, 4, 6, 7)

Exit status: 0 when every row ran, whether or not its target was met (timings on a
shared machine are noisy; the table says what was missed); 1 when a benchmark crashed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from . import (
    acp,
    background,
    cancel,
    checkpoints,
    code_actions,
    cost,
    files,
    first_task,
    history,
    hooks,
    latency,
    long_session,
    mcp_cost,
    overhead,
    peer,
    plan_mode,
    sandbox,
    sdk_start,
    search,
    sessions,
    skills_cost,
    startup,
    watch_task,
)
from .explain import explain
from .harness import warm_bytecode
from .report import (
    QUICK,
    REGENERATE,
    KeptRow,
    Row,
    failed_row,
    markdown,
    previous_report,
    table,
    write_report,
)

ROWS: list[tuple[tuple[int, ...], str, str, Callable[[bool], Row | list[Row]]]] = [
    ((1,), startup.WHAT, startup.TARGET, startup.run),
    ((2,), "agent overhead per tool round trip", overhead.TARGET, overhead.run),
    ((3,), "read_file of the tail of a huge file", ">= 100x faster", files.run_read),
    ((4,), "edit_file of one line in a large file", "no slower than the baseline", files.run_edit),
    ((5,), cost.WHAT, cost.TARGET, cost.run),
    ((6, 7), "latency rows", "p50 < 5 ms / < 10 ms", latency.run),
    ((8,), sessions.WHAT, sessions.TARGET, sessions.run),
    ((9,), cancel.WHAT, cancel.TARGET, cancel.run),
    ((10,), "agent overhead per tool round trip over ACP", "<= 1.25x", acp.run_overhead),
    ((11,), acp.PLAN_WHAT, acp.PLAN_TARGET, acp.run_plan_latency),
    ((12,), "checkpoint cost per tool call", "<= 2x git status", checkpoints.run_per_call),
    ((13,), "per-turn time with checkpoints", "<= 1.1x", checkpoints.run_per_turn),
    ((14,), "checkpoint store growth", "<= 3x the changed content", checkpoints.run_growth),
    ((code_actions.NUMBER,), code_actions.WHAT, code_actions.TARGET, code_actions.run),
    ((history.NUMBER,), history.WHAT, history.TARGET, history.run),
    ((17,), mcp_cost.FIRST_WHAT, mcp_cost.FIRST_TARGET, mcp_cost.run_first),
    ((18,), mcp_cost.CALL_WHAT, mcp_cost.CALL_TARGET, mcp_cost.run_call),
    (peer.NUMBERS, peer.WHAT, peer.TARGET, peer.run),
    (
        (22,),
        "bash sandbox overhead",
        "<= 15 ms per command, <= 1.15x per turn",
        sandbox.run_overhead,
    ),
    ((23,), "approval questions saved by the sandbox", ">= 80% fewer", sandbox.run_questions),
    ((first_task.NUMBER,), first_task.WHAT, first_task.TARGET, first_task.run),
    (long_session.NUMBERS, long_session.WHAT, long_session.TARGET, long_session.run),
    ((plan_mode.NUMBER,), plan_mode.WHAT, plan_mode.TARGET, plan_mode.run),
    ((sdk_start.NUMBER,), sdk_start.WHAT, sdk_start.TARGET, sdk_start.run),
    ((hooks.NUMBER,), hooks.WHAT, hooks.TARGET, hooks.run),
    ((background.NUMBER,), background.WHAT, background.TARGET, background.run),
    ((skills_cost.NUMBER,), skills_cost.WHAT, skills_cost.TARGET, skills_cost.run),
    ((search.NUMBER,), search.WHAT, search.TARGET, search.run),
    ((watch_task.NUMBER,), watch_task.WHAT, watch_task.TARGET, watch_task.run),
]
NAMES = {"peer": peer.NUMBERS}
"""Rows `--only` also takes by name."""

METHOD_NOTES = [
    "Each row runs its baseline in the same invocation as ours, on the same machine, "
    "interleaved where there are repeats; the table gives medians.",
    "The model is the project's scripted Messages API "
    "(`workspace_agent.testing.scripted_model`), run as its own process so it never shares "
    "a GIL with what is measured, on 127.0.0.1 with TCP_NODELAY (opt-in hook: without it "
    "every streamed answer waits ~40 ms for a delayed ACK) and zero delays.",
    "The server is the real one (`python -m workspace_agent`) driven over LSP on stdio by "
    "pygls's `LanguageClient`, with approvals set to allow and maxTurns 250; rows 10 and 11 "
    "run `python -m workspace_agent acp --yes` driven over ACP on stdio by the "
    "agent-client-protocol package's client.",
    "Memory is the kernel's accounting: VmHWM/VmRSS from /proc of a fresh process per "
    "measured operation, with the peak reset through /proc/self/clear_refs just before it.",
    "Before any row, the agent's and the bench's modules are compiled to .pyc "
    "(compileall), as installing the wheel does: the SDK and the other dependencies were "
    "compiled at their install, and without it a machine with PYTHONDONTWRITEBYTECODE "
    "would charge every start of ours the compiling of its modules (about 100 ms).",
    "Wall-clock times use time.perf_counter; cross-process latencies use CLOCK_MONOTONIC "
    "(time.monotonic_ns) in both processes.",
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="CI smoke: small sizes, few runs")
    parser.add_argument(
        "--only", help="comma-separated row numbers or names, e.g. 1,5 or peer (rows 19-21)"
    )
    parser.add_argument("--write", type=Path, help="write the markdown report to this file")
    parser.add_argument(
        "--explain",
        action="store_true",
        help="also break down where the time goes for rows 2, 4, 6 and 7 (profiles, what-ifs)",
    )
    args = parser.parse_args(argv)
    only = _numbers(args.only) if args.only else None
    os.chdir(Path(__file__).resolve().parent.parent)

    warm_bytecode()
    started = time.perf_counter()
    load_before = os.getloadavg()
    rows: list[Row] = []
    crashed = False
    for numbers, what, target, run in ROWS:
        if only and not only.intersection(numbers):
            continue
        print(f"[bench] row {'/'.join(map(str, numbers))}: {what} ...", flush=True)
        row_started = time.perf_counter()
        try:
            result = run(args.quick)
            produced = result if isinstance(result, list) else [result]
        except Exception as exc:
            crashed = True
            traceback.print_exc()
            produced = [
                failed_row(n, what, target, f"{type(exc).__name__}: {exc}") for n in numbers
            ]
        for row in produced:
            if only and row.number not in only:
                continue
            rows.append(row)
            print(
                f"[bench]   {row.number}: ours {row.ours} | baseline {row.baseline} | "
                f"{row.ratio} | met: {row.verdict}",
                flush=True,
            )
        print(f"[bench]   ({time.perf_counter() - row_started:.1f} s)", flush=True)
    extra = explain(args.quick, only) if args.explain else []
    seconds = time.perf_counter() - started
    load_after = os.getloadavg()
    notes = [
        *METHOD_NOTES,
        f"Load average (1 min) {load_before[0]:.2f} before the run and {load_after[0]:.2f} "
        "after it (other work on the machine shows up in the timings).",
    ]
    print()
    if extra:
        print("\n".join(extra))
    print(table(rows))
    print(
        f"\n{'QUICK (smoke) ' if args.quick else ''}run took {seconds:.0f} s. "
        f"Full report: `{REGENERATE}`; smoke: `{QUICK}`."
    )
    if args.write:
        kept: list[KeptRow] = []
        if only:  # a partial run updates its rows and keeps the others as they were
            kept, commit, old_extra = previous_report(args.write, {row.number for row in rows})
            if kept:
                notes.append(
                    f"Rows {', '.join(str(row.number) for row in kept)} were not run this time "
                    "(`--only`): their table lines and sections are those of the previous "
                    f"report (commit {commit})"
                    + ("" if extra or not old_extra else ", as is *Where the time goes*")
                    + "."
                )
            extra = extra or old_extra
        write_report(
            args.write,
            markdown(
                rows,
                quick=args.quick,
                seconds=seconds,
                method_notes=notes,
                extra=extra,
                kept=kept,
            ),
        )
        print(f"wrote {args.write}")
    return 1 if crashed else 0


def _numbers(only: str) -> set[int]:
    numbers: set[int] = set()
    for part in only.split(","):
        part = part.strip()
        numbers.update(NAMES[part] if part in NAMES else (int(part),))
    return numbers


if __name__ == "__main__":
    sys.exit(main())
