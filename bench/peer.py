"""Rows 19-21 (`peer`): our agent and Claude Code on the same scripted 8-turn task
(bench/peer_task.py), each against its own scripted Messages API process, measured from
the outside the same way.

- Row 19: the headless CLIs, `workspace-agent run TASK --yes` and `claude -p TASK
  --dangerously-skip-permissions`: spawn → first `POST /v1/messages`, the whole task
  (spawn → exit), first → last request, last answer → exit, request bytes, peak RSS of
  the process tree.
- Row 20: the language server's first run right after `initialize` (spawn, initialize,
  initialized, `workspaceAgent/run` at once): spawn → first request, and the whole run.
- Row 21: `workspace-agent acp --yes`: spawn, initialize, session/new, session/prompt at
  once: spawn → first request, and the whole prompt.

The baseline of all three is Claude Code's headless run in the same invocation: the
variants alternate (a different order each round), after one discarded warm-up run each.
Times come from CLOCK_MONOTONIC in both processes: the spawn here, the request's arrival
and the last SSE event's flush in the scripted model, the exit from a thread blocked in
wait(). The smoke run (`--quick`) runs ours once each and skips Claude Code.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import claude_code
from .harness import API_KEY, PY, ScriptedModelProcess, child_env, temp_dir
from .peer_task import (
    TASK,
    TURNS,
    check_workspace,
    claude_code_script,
    ours_script,
    prepare_workspace,
)
from .proctree import run_sampled
from .report import Row, median, mib, ms
from .rpc_client import raw_server

NUMBERS = (19, 20, 21)
WHAT = "peer: the same 8-turn scripted task, ours and Claude Code headless"
TARGET = "start and whole task <= 0.8x, exit <= 50 ms, bytes <= 0.1x, RSS <= 0.35x"
LSP_WHAT = "peer: the language server's first run right after `initialize`"
ACP_WHAT = "peer: `workspace-agent acp` spawn → first model request"
ENTRY_TARGET = "spawn → first request <= 0.8x Claude Code's"
TIME_LIMIT, BYTES_LIMIT, RSS_LIMIT, EXIT_LIMIT = 0.8, 0.1, 0.35, 0.050


@dataclass
class Measured:
    first_request: float
    """Seconds from spawn to the first model request's arrival."""
    whole: float
    """Seconds from spawn to exit (CLI) or to the run's answer (LSP, ACP)."""
    between: float
    """Seconds from the first model request to the last."""
    after_answer: float | None
    """Seconds from the last answer's last SSE event to the process's exit (CLI only)."""
    first_bytes: int
    total_bytes: int
    requests: int
    """POST /v1/messages requests (count_tokens calls not included)."""
    other_requests: int
    peak_rss_kib: int | None
    ready: float | None = None
    """Seconds from spawn to the `initialize` answer (LSP) or the session/new answer (ACP)."""


def _from_model(model: ScriptedModelProcess, spawned: int, end_ns: int) -> dict[str, Any]:
    recorded = model.requests()
    messages = [r for r in recorded if r["path"] == "/v1/messages"]
    if len(messages) != TURNS:
        raise RuntimeError(f"expected {TURNS} model requests, got {len(messages)}")
    stops = [s["t"] for s in model.timestamps() if s["name"] == "message_stop"]
    first, last = messages[0]["received_ns"], messages[-1]["received_ns"]
    return {
        "first_request": (first - spawned) / 1e9,
        "whole": (end_ns - spawned) / 1e9,
        "between": (last - first) / 1e9,
        "last_answer_ns": max(stops),
        "first_bytes": messages[0]["size"],
        "total_bytes": sum(r["size"] for r in recorded),
        "requests": len(messages),
        "other_requests": len(recorded) - len(messages),
    }


def _headless(command: list[str], env: dict[str, str], script: Any, workspace: Path) -> Measured:
    with ScriptedModelProcess(script, timestamps=True) as model:
        spawned = time.monotonic_ns()
        proc = subprocess.Popen(
            [*command],
            cwd=workspace,
            env={**env, "ANTHROPIC_BASE_URL": model.url},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        done = run_sampled(proc)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} exited {done.returncode}")
        facts = _from_model(model, spawned, done.exited_ns)
    check_workspace(workspace)
    after = (done.exited_ns - facts.pop("last_answer_ns")) / 1e9
    return Measured(**facts, after_answer=after, peak_rss_kib=done.peak_rss_kib)


def run_ours_cli(workspace: Path, home: Path) -> Measured:
    command = [PY, "-m", "workspace_agent", "run", TASK, "--workspace", str(workspace), "--yes"]
    return _headless(command, child_env(HOME=str(home)), ours_script(), workspace)


def run_claude_code(binary: Path, workspace: Path, home: Path) -> Measured:
    env = claude_code.environment("", API_KEY, home)
    script = claude_code_script(workspace)
    return _headless(claude_code.command(binary, TASK), env, script, workspace)


async def _lsp(workspace: Path, home: Path) -> Measured:
    with ScriptedModelProcess(ours_script(), timestamps=True) as model:
        options = {
            "workspaceAgent": {
                "approvals": {"bash": "allow", "write": "allow"},
                "baseUrl": model.url,
                "maxRetries": 0,
            }
        }
        command = [PY, "-m", "workspace_agent"]
        env = child_env(HOME=str(home))
        async with raw_server(
            command, workspace, env, options, process_id=None, exit_seconds=30
        ) as client:
            assert client.initialized is not None
            spawned = client.spawned_ns
            ready = (client.initialized.received_ns - spawned) / 1e9
            answer = await client.request("workspaceAgent/run", {"prompt": TASK})
            ended = answer.received_ns
            result = answer.result()
            if result["stopReason"] != "end_turn":
                raise RuntimeError(f"the server's run went wrong: {result}")
        facts = _from_model(model, spawned, ended)
    check_workspace(workspace)
    del facts["last_answer_ns"]
    return Measured(**facts, after_answer=None, peak_rss_kib=None, ready=ready)


async def _acp(workspace: Path, home: Path) -> Measured:
    with ScriptedModelProcess(ours_script(), timestamps=True) as model:
        env = child_env(
            HOME=str(home), ANTHROPIC_BASE_URL=model.url, WORKSPACE_AGENT_MAX_RETRIES="0"
        )
        spawned = time.monotonic_ns()
        process = await asyncio.create_subprocess_exec(
            *(PY, "-m", "workspace_agent", "acp", "--yes"),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=workspace,
            env=env,
            limit=1 << 24,
        )
        try:
            rpc = _JsonLines(process)
            await rpc.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
            session = await rpc.request("session/new", {"cwd": str(workspace), "mcpServers": []})
            ready = (time.monotonic_ns() - spawned) / 1e9
            prompt = [{"type": "text", "text": TASK}]
            result = await rpc.request(
                "session/prompt", {"sessionId": session["sessionId"], "prompt": prompt}
            )
            ended = time.monotonic_ns()
            if result.get("stopReason") != "end_turn":
                raise RuntimeError(f"the ACP prompt went wrong: {result}")
        finally:
            assert process.stdin is not None
            process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), 30)
            except asyncio.TimeoutError:
                process.kill()
                await process.wait()
        facts = _from_model(model, spawned, ended)
    check_workspace(workspace)
    del facts["last_answer_ns"]
    return Measured(**facts, after_answer=None, peak_rss_kib=None, ready=ready)


class _JsonLines:
    """The client side of ACP's newline-delimited JSON-RPC, as little as the row needs:
    one request at a time, notifications skipped, requests from the agent refused."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self._process = process
        self._next = 0

    async def request(self, method: str, params: Any) -> Any:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._next += 1
        message = {"jsonrpc": "2.0", "id": self._next, "method": method, "params": params}
        self._process.stdin.write(json.dumps(message).encode() + b"\n")
        while True:
            line = await self._process.stdout.readline()
            if not line:
                raise RuntimeError(f"the agent closed stdout before answering {method}")
            answer = json.loads(line)
            if "method" in answer:
                if "id" in answer:
                    refusal = {"code": -32601, "message": "not supported by the bench client"}
                    reply = {"jsonrpc": "2.0", "id": answer["id"], "error": refusal}
                    self._process.stdin.write(json.dumps(reply).encode() + b"\n")
                continue
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method} failed: {answer['error']}")
                return answer["result"]


VARIANTS = ("ours cli", "ours lsp", "ours acp", "claude code")


def _one(name: str, binary: Path | None, home: Path) -> Measured:
    with temp_dir("bench-peer-") as workspace:
        prepare_workspace(workspace)
        if name == "ours cli":
            return run_ours_cli(workspace, home)
        if name == "ours lsp":
            return asyncio.run(_lsp(workspace, home))
        if name == "ours acp":
            return asyncio.run(_acp(workspace, home))
        assert binary is not None
        return run_claude_code(binary, workspace, home)


def measure(rounds: int, binary: Path | None) -> dict[str, list[Measured]]:
    names = [n for n in VARIANTS if binary is not None or n != "claude code"]
    runs: dict[str, list[Measured]] = defaultdict(list)
    with temp_dir("bench-peer-home-") as homes:
        for name in names:
            (homes / name.replace(" ", "-")).mkdir()
        home = {name: homes / name.replace(" ", "-") for name in names}
        for name in names:  # warm-up, discarded (Claude Code writes its first settings)
            _one(name, binary, home[name])
        for n in range(rounds):
            order = names[n % len(names) :] + names[: n % len(names)]
            for name in order:
                runs[name].append(_one(name, binary, home[name]))
    return runs


def _med(runs: list[Measured], attr: str) -> float:
    return median([float(getattr(r, attr)) for r in runs])


def _kb(value: float) -> str:
    return f"{value / 1000:,.1f} KB" if value >= 10_000 else f"{value:,.0f} B"


FIGURES = (
    ("start → first `POST /v1/messages`", "first_request", ms),
    ("whole task, wall", "whole", ms),
    ("between first and last request", "between", ms),
    ("last answer → process exit", "after_answer", ms),
    ("first request body (system + tools)", "first_bytes", _kb),
    ("request bytes over the task", "total_bytes", _kb),
    ("peak RSS of the process tree", "peak_rss_kib", mib),
)


def _figure_table(ours: list[Measured], peer: list[Measured] | None) -> list[str]:
    lines = ["| figure | ours | Claude Code | ours / peer |", "|---|---|---|---|"]
    for label, attr, fmt in FIGURES:
        mine = _med(ours, attr)
        if peer:
            theirs = _med(peer, attr)
            lines.append(f"| {label} | {fmt(mine)} | {fmt(theirs)} | {mine / theirs:.2f}x |")
        else:
            lines.append(f"| {label} | {fmt(mine)} | — | — |")
    return lines


def _spread(runs: list[Measured], attr: str) -> str:
    values = sorted(float(getattr(r, attr)) for r in runs)
    return ", ".join(ms(v) for v in values)


def run(quick: bool) -> list[Row]:
    binary: Path | None = None
    why = "skipped in the smoke run"
    if not quick:
        found = claude_code.install()
        binary, why = (found, "") if isinstance(found, Path) else (None, found)
    runs = measure(1 if quick else 7, binary)
    peer = runs.get("claude code")
    return [_cli_row(runs["ours cli"], peer, why), *_entry_rows(runs, peer, why)]


def _cli_row(ours: list[Measured], peer: list[Measured] | None, why: str) -> Row:
    details = _figure_table(ours, peer)
    after = _med(ours, "after_answer")
    if peer is None:
        return Row(
            19,
            WHAT,
            f"Claude Code: not measured: {why}",
            f"start {ms(_med(ours, 'first_request'))}, task {ms(_med(ours, 'whole'))}",
            "—",
            TARGET,
            None,
            details,
        )
    ratios = {attr: _med(ours, attr) / _med(peer, attr) for _, attr, _ in FIGURES}
    met = (
        ratios["first_request"] <= TIME_LIMIT
        and ratios["whole"] <= TIME_LIMIT
        and ratios["total_bytes"] <= BYTES_LIMIT
        and ratios["peak_rss_kib"] <= RSS_LIMIT
        and after <= EXIT_LIMIT
    )
    details += [
        "",
        f"- runs (sorted), start → first request: ours {_spread(ours, 'first_request')}; "
        f"Claude Code {_spread(peer, 'first_request')}",
        f"- whole task: ours {_spread(ours, 'whole')}; Claude Code {_spread(peer, 'whole')}",
        f"- last answer → exit: ours {_spread(ours, 'after_answer')}; Claude Code "
        f"{_spread(peer, 'after_answer')}",
        f"- Claude Code {claude_code.VERSION} (npm, native binary), `claude -p TASK "
        "--dangerously-skip-permissions`, its default tools plus its plan tools "
        "(CLAUDE_CODE_ENABLE_TODO_TOOLS=1), IS_SANDBOX=1, "
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, DISABLE_AUTOUPDATER=1; requests other "
        f"than POST /v1/messages per run: {int(_med(peer, 'other_requests'))}. Ours: "
        "`python -m workspace_agent run TASK --yes` (checkpoints on, the default).",
        f"- {len(ours)} runs each after one warm-up run each, the variants of rows 19-21 "
        "rotating; a fresh workspace and scripted-model process per run, one home folder "
        "per agent kept across its runs. Bytes are request bodies as sent (count_tokens "
        "included); RSS is the sum over the process tree, sampled every 10 ms.",
    ]
    start = ratios["first_request"]
    return Row(
        19,
        WHAT,
        f"Claude Code: start {ms(_med(peer, 'first_request'))}, task {ms(_med(peer, 'whole'))}",
        f"start {ms(_med(ours, 'first_request'))}, task {ms(_med(ours, 'whole'))}, "
        f"exit {ms(after)} after the answer",
        f"{start:.2f}x start, {ratios['whole']:.2f}x task, {ratios['total_bytes']:.2f}x bytes, "
        f"{ratios['peak_rss_kib']:.2f}x RSS",
        TARGET,
        met,
        details,
    )


def _entry_rows(
    runs: dict[str, list[Measured]], peer: list[Measured] | None, why: str
) -> list[Row]:
    rows = []
    for number, name, what, clock in (
        (20, "ours lsp", LSP_WHAT, "spawn, initialize, initialized, workspaceAgent/run"),
        (21, "ours acp", ACP_WHAT, "spawn, initialize, session/new, session/prompt"),
    ):
        ours = runs[name]
        first, whole = _med(ours, "first_request"), _med(ours, "whole")
        ready = [r.ready or 0.0 for r in ours]
        after_ready = [r.first_request - (r.ready or 0.0) for r in ours]
        details = [
            f"- ours: spawn → first request {_spread(ours, 'first_request')}; spawn → the "
            f"run's answer {_spread(ours, 'whole')}",
            f"- of which spawn → {'initialize' if number == 20 else 'session/new'} answered "
            f"{', '.join(ms(v) for v in sorted(ready))}; from there to the first request "
            f"{', '.join(ms(v) for v in sorted(after_ready))}",
            f"- client: raw JSON-RPC over the server's stdio, {clock} sent at once (each "
            "after the previous answer); the same 8-turn task as row 19.",
        ]
        if peer is None:
            rows.append(
                Row(
                    number,
                    what,
                    f"Claude Code: not measured: {why}",
                    f"{ms(first)} (whole run {ms(whole)})",
                    "—",
                    ENTRY_TARGET,
                    None,
                    details,
                )
            )
            continue
        theirs = _med(peer, "first_request")
        details.append(
            f"- Claude Code `claude -p` (row 19's runs): spawn → first request "
            f"{_spread(peer, 'first_request')}; whole task {_spread(peer, 'whole')}"
        )
        rows.append(
            Row(
                number,
                what,
                f"Claude Code `claude -p`: {ms(theirs)}",
                f"{ms(first)} (whole run {ms(whole)})",
                f"{first / theirs:.2f}x",
                ENTRY_TARGET,
                first / theirs <= TIME_LIMIT,
                details,
            )
        )
    return rows
