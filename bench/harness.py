"""What the benchmark rows share: the scripted Messages API in its own process, the real
language server driven over LSP, and the OS's own memory accounting.

The scripted model runs as a separate process (`python -m
workspace_agent.testing.scripted_model`) in every timed benchmark, so it never competes
for the GIL with the process being measured (the agent or the bare loop) or with the
measuring client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PY = sys.executable
REPO = Path(__file__).resolve().parent.parent
API_KEY = "bench-scripted-key"  # the scripted server accepts any key

BENCH_SETTINGS: dict[str, Any] = {
    "approvals": {"bash": "allow", "write": "allow"},
    "maxTurns": 250,
    "maxRetries": 0,
}


def warm_bytecode() -> None:
    """Compile the agent's and the bench's own modules to .pyc before anything is timed, as
    installing the wheel does (pip compiles at install). The SDK and every other dependency
    in site-packages were compiled when they were installed; the agent runs from the
    checkout, and where PYTHONDONTWRITEBYTECODE is set (these machines set it) every start
    of ours would otherwise compile its ~90 modules from source, about 100 ms that no user's
    install pays."""
    import compileall

    for folder in (REPO / "server" / "workspace_agent", REPO / "bench"):
        # The demo's sample project is data the demo copies, not a module of ours.
        compileall.compile_dir(folder, quiet=1, rx=re.compile(r"sample_project"))


def child_env(**extra: str) -> dict[str, str]:
    """The environment for a child: no inherited settings that would change the run."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("WORKSPACE_AGENT_", "ANTHROPIC_", "MODEL_ID"))
    }
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env["ANTHROPIC_API_KEY"] = API_KEY
    env.update(extra)
    return env


# -- the scripted Messages API, in its own process ---------------------------------------


class ScriptedModelProcess:
    """`python -m workspace_agent.testing.scripted_model --script F` on a free port, with
    TCP_NODELAY (without it every streamed answer waits ~40 ms for a delayed ACK, which
    would swamp what we measure) and, with `timestamps`, the per-SSE-event send times."""

    def __init__(self, script: dict[str, Any], timestamps: bool = False) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="bench-script-")
        path = Path(self._dir.name) / "script.json"
        path.write_text(json.dumps(script), encoding="utf-8")
        self._proc = subprocess.Popen(
            [PY, "-m", "workspace_agent.testing.scripted_model", "--script", str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=child_env(
                WORKSPACE_AGENT_SCRIPTED_NODELAY="1",
                WORKSPACE_AGENT_SCRIPTED_TIMESTAMPS="1" if timestamps else "0",
            ),
        )
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+)", line)
        if not match:
            self.stop()
            raise RuntimeError(f"the scripted model did not start: {line!r}")
        self.url = match.group(1)

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=30) as answer:
            return json.loads(answer.read())

    def requests(self) -> list[dict[str, Any]]:
        return list(self.get("/_scripted/requests"))

    def timestamps(self) -> list[dict[str, Any]]:
        return list(self.get("/_scripted/timestamps"))

    def stop(self) -> None:
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._dir.cleanup()

    def __enter__(self) -> ScriptedModelProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


# -- the real language server over LSP ---------------------------------------------------


@dataclass
class Received:
    """Notifications as the client got them: (time.monotonic_ns() on arrival, payload)."""

    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    todos: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    changes: int = 0
    """workspaceAgent/changes notifications (counted, not kept)."""


@contextlib.asynccontextmanager
async def lsp_agent(
    workspace: Path,
    model_url: str,
    settings: dict[str, Any] | None = None,
    command: list[str] | None = None,
    **env: str,
) -> AsyncIterator[tuple[Any, Received]]:
    """The real server (`python -m workspace_agent`, or `command`) on stdio, initialized
    for `workspace`, talking to the scripted model. Yields (client, notifications)."""
    from pygls.lsp.client import LanguageClient

    from workspace_agent import protocol as p
    from workspace_agent.demo.client_io import connected
    from workspace_agent.lsp.wire import to_plain

    client = LanguageClient("workspace-agent-bench", "0")
    received = Received()

    @client.feature(p.EVENT_NOTIFICATION)
    def on_event(params: Any) -> None:
        received.events.append((time.monotonic_ns(), to_plain(params)))

    @client.feature(p.TODOS_NOTIFICATION)
    def on_todos(params: Any) -> None:
        received.todos.append((time.monotonic_ns(), to_plain(params)))

    @client.feature(p.CHANGES_NOTIFICATION)
    def on_changes(params: Any) -> None:
        received.changes += 1

    # Not measured, but taken: pygls prints a line for each notification no handler takes.
    for method in (p.SANDBOX_NOTIFICATION, p.CONTEXT_METER_NOTIFICATION):
        client.feature(method)(lambda params: None)

    options = {"workspaceAgent": {**BENCH_SETTINGS, "baseUrl": model_url, **(settings or {})}}
    command = command or [PY, "-m", "workspace_agent"]
    async with connected(client, workspace, command, child_env(**env), options):
        yield client, received


SETTLE_SECONDS = 1.0
"""A user's next prompt does not come within a second of an answer."""


async def settled() -> None:
    """Leave the server the second a user would before the next prompt: the work it does
    after a run's answer (packing the checkpoint store, in the background) is not timed
    as part of the next run."""
    await asyncio.sleep(SETTLE_SECONDS)


async def run_prompt(
    client: Any, prompt: str, mode: str | None = None, session_id: str | None = None
) -> dict[str, Any]:
    """`workspaceAgent/run` with the prompt (and `mode`, `session_id`, when given); its
    result."""
    from workspace_agent import protocol as p
    from workspace_agent.lsp.wire import to_plain

    params = {
        "prompt": prompt,
        **({"mode": mode} if mode else {}),
        **({"sessionId": session_id} if session_id else {}),
    }
    result = await client.protocol.send_request_async(p.RUN_REQUEST, params)
    plain: dict[str, Any] = to_plain(result)
    return plain


# -- memory: the kernel's own accounting -------------------------------------------------


def proc_status_kib(field_name: str, pid: str = "self") -> int:
    """A VmXXX field of /proc/<pid>/status, in KiB."""
    text = Path(f"/proc/{pid}/status").read_text()
    match = re.search(rf"^{field_name}:\s+(\d+) kB", text, re.MULTILINE)
    return int(match.group(1)) if match else 0


def reset_peak_rss() -> bool:
    """Reset VmHWM to the current RSS (Linux: write 5 to clear_refs); False if refused."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


# -- workers: one fresh process per measured variant -------------------------------------


def run_worker(module: str, *args: str, timeout: float = 900) -> dict[str, Any]:
    """Run `python -m MODULE ARGS` and return the JSON object it prints last."""
    done = subprocess.run(
        [PY, "-m", module, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=child_env(),
        cwd=REPO,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{module} {' '.join(args)} exited {done.returncode}: {done.stderr.strip()[-2000:]}"
        )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@contextlib.contextmanager
def temp_dir(prefix: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix=prefix) as name:
        yield Path(name).resolve()
