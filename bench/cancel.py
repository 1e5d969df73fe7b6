"""Row 9: how fast a cancel stops a run, measured where the tests only keep a generous bound.

The real server over LSP, the scripted model in its own process. Each trial starts a run
in a fresh session and cancels it with `$/cancelRequest` (what VS Code sends when the
user presses Cancel) while the run is

- waiting for a model answer that would take 30 s (the scripted reply is delayed), or
- running `sleep 300` through the bash tool (the command writes its pid first).

Measured from sending the cancel to the `RunResult` with stopReason "cancelled" (and, for
the command, to the sleep's pid being gone). Baselines, in the same run: the least a
cancel can cost without an agent in between — cancelling the task of a bare SDK streaming
call to the same delayed reply, and killing the process group of the same command
started from this process.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

from lsprotocol import types

from workspace_agent import protocol as p
from workspace_agent.lsp.wire import to_plain
from workspace_agent.testing.scripted_model import reply, text, tool

from .harness import API_KEY, ScriptedModelProcess, lsp_agent, run_prompt, temp_dir
from .report import Row, median, percentile
from .scripts import WARMUP, make_workspace, warmup_conversation

WHAT = "cancel: `$/cancelRequest` → the run's result (a pending model call; a running command)"
TARGET = "p99 < 1 s for both, the command's process gone"
LIMIT = 1.0
MODEL_PROMPT = "cancel bench: wait for the model"
COMMAND_PROMPT = "cancel bench: run a long command"
PID_FILE = "sleep.pid"
SLEEP = f"echo $$ > {PID_FILE}; exec sleep 300"


def script(trials: int) -> dict[str, Any]:
    slow_model = reply(text("far too late"), delay=30)
    long_command = reply(tool("bash", {"command": SLEEP}))
    return {
        "conversations": [
            warmup_conversation(),
            # A conversation is picked by its first prompt; each trial takes its next reply.
            {"match": MODEL_PROMPT, "replies": [slow_model] * trials},
            {"match": COMMAND_PROMPT, "replies": [long_command] * trials},
            {"match": "bare sdk", "replies": [slow_model] * (trials + 1)},
        ]
    }


async def _until(condition: Any, what: str, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)
    return value


def _host_pid(pid: int, workspace: Path) -> int | None:
    """The host pid of the process that wrote down `pid` ($$) in `workspace`: a sandboxed
    command sees its own pid namespace (the last NSpid entry of /proc/PID/status is the
    pid it saw); unsandboxed, the two are the same."""
    real = os.path.realpath(workspace)
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{entry.name}/cwd") != real:
                continue
            status = Path(f"/proc/{entry.name}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("NSpid:") and int(line.split()[-1]) == pid:
                return int(entry.name)
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A killed child of the server is a zombie until the server reaps it: count it gone.
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return state != "Z"


async def _cancel_trial(
    client: Any, model: ScriptedModelProcess, workspace: Path, prompt: str, msg_id: int
) -> tuple[float, float | None]:
    """Seconds from the cancel to the result, and to the command's death (None: no command)."""
    pid_file = workspace / PID_FILE
    pid_file.unlink(missing_ok=True)
    asked = len(model.requests())
    pending = asyncio.ensure_future(
        client.protocol.send_request_async(p.RUN_REQUEST, {"prompt": prompt}, msg_id=msg_id)
    )
    command = prompt == COMMAND_PROMPT
    if command:
        text_pid = await _until(
            lambda: pid_file.exists() and pid_file.read_text().strip(), "the command to start"
        )
        pid: int | None = await _until(
            lambda: _host_pid(int(text_pid), workspace), "the command's host pid"
        )
    else:
        pid = None
        await _until(lambda: len(model.requests()) > asked, "the model call")
    started = time.perf_counter()
    client.cancel_request(types.CancelParams(id=msg_id))
    result = to_plain(await pending)
    answered = time.perf_counter() - started
    if result["stopReason"] != "cancelled":
        raise RuntimeError(f"the run was not cancelled: {result}")
    if pid is None:
        return answered, None
    await _until(lambda: not _alive(pid), "the command to die", timeout=10)
    return answered, time.perf_counter() - started


async def _bare_model_cancel(url: str, trials: int) -> list[float]:
    import anthropic

    client = anthropic.AsyncAnthropic(api_key=API_KEY, base_url=url, max_retries=0)
    times = []
    for _ in range(trials + 1):  # the first one warms the connection up

        async def call() -> None:
            async with client.messages.stream(
                model="scripted",
                max_tokens=100,
                messages=[{"role": "user", "content": "bare sdk"}],
            ) as stream:
                async for _event in stream:
                    pass

        task = asyncio.ensure_future(call())
        await asyncio.sleep(0.3)  # the request is out and waiting for the delayed reply
        started = time.perf_counter()
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        times.append(time.perf_counter() - started)
    await client.close()
    return times[1:]


async def _bare_command_kill(workspace: Path, trials: int) -> list[float]:
    times = []
    for _ in range(trials):
        proc = await asyncio.create_subprocess_exec(
            "/bin/bash", "-c", "exec sleep 300", cwd=workspace, start_new_session=True
        )
        await asyncio.sleep(0.05)
        started = time.perf_counter()
        os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        times.append(time.perf_counter() - started)
    return times


async def measure(trials: int) -> dict[str, list[float]]:
    with temp_dir("bench-cancel-") as workspace, ScriptedModelProcess(script(trials)) as model:
        make_workspace(workspace)
        model_times: list[float] = []
        answered: list[float] = []
        killed: list[float] = []
        async with lsp_agent(workspace, model.url) as (client, _received):
            await run_prompt(client, WARMUP)
            for trial in range(trials):
                seconds, _ = await _cancel_trial(
                    client, model, workspace, MODEL_PROMPT, 10_000 + trial
                )
                model_times.append(seconds)
                seconds, gone = await _cancel_trial(
                    client, model, workspace, COMMAND_PROMPT, 20_000 + trial
                )
                answered.append(seconds)
                killed.append(gone or 0.0)
        bare_model = await _bare_model_cancel(model.url, trials)
        bare_kill = await _bare_command_kill(workspace, trials)
    return {
        "model": model_times,
        "command": answered,
        "killed": killed,
        "bare_model": bare_model,
        "bare_kill": bare_kill,
    }


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _dist(values: list[float]) -> str:
    return (
        f"p50 {_ms(percentile(values, 50))}, p99 {_ms(percentile(values, 99))}, "
        f"max {_ms(max(values))} (n={len(values)})"
    )


def run(quick: bool) -> Row:
    trials = 3 if quick else 20
    got = asyncio.run(measure(trials))
    worst = max(percentile(got["model"], 99), percentile(got["killed"], 99))
    ours = (
        f"model call {_ms(median(got['model']))}, command {_ms(median(got['command']))} "
        f"(gone after {_ms(median(got['killed']))})"
    )
    baseline = (
        f"bare SDK task cancel {_ms(median(got['bare_model']))}, "
        f"killpg of the command {_ms(median(got['bare_kill']))}"
    )
    model, bare_model = median(got["model"]), median(got["bare_model"])
    killed, bare_kill = median(got["killed"]), median(got["bare_kill"])
    ratio = (
        f"{model / bare_model:.0f}x / {killed / bare_kill:.0f}x "
        f"(+{_ms(model - bare_model)} / +{_ms(killed - bare_kill)})"
    )
    return Row(
        9,
        WHAT,
        baseline,
        ours,
        ratio,
        TARGET,
        worst < LIMIT,
        [
            f"- Pending model call, cancel → result: {_dist(got['model'])}",
            f"- Running command, cancel → result: {_dist(got['command'])}; "
            f"→ its pid gone: {_dist(got['killed'])}",
            f"- Baselines: bare SDK streaming task cancelled: {_dist(got['bare_model'])}; "
            f"the same command's process group killed from here: {_dist(got['bare_kill'])}",
            f"- {trials} trials of each after a warm-up run, one server, a fresh session per "
            "trial; medians in the table. The tests keep only a generous bound (10 s) on "
            "this, for a loaded CI machine; the figure that matters is this row's.",
        ],
    )
