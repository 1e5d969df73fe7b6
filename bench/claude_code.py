"""Claude Code (npm `@anthropic-ai/claude-code`), the peer of rows 19-21, installed by npm
into a cache on first use and run headless (`claude -p`) against the scripted model.

The package is a thin wrapper around a native binary in a per-platform package; its
postinstall step only links that binary to `bin/claude`, and npm 11 does not run install
scripts it was not told to allow, so the binary is looked up in both places.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

VERSION = "2.1.328"
PACKAGE = f"@anthropic-ai/claude-code@{VERSION}"
CACHE = Path(
    os.environ.get("WORKSPACE_AGENT_BENCH_CACHE")
    or Path.home() / ".cache" / "workspace-agent-bench"
)


def install() -> Path | str:
    """The `claude` binary, installed if needed; or why it cannot be (a sentence)."""
    prefix = CACHE / f"claude-code-{VERSION}"
    found = _binary(prefix)
    if found is not None:
        return found
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not installed"
    prefix.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", PACKAGE],
            capture_output=True,
            text=True,
            timeout=900,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"npm install {PACKAGE} failed: {exc}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"npm install {PACKAGE} failed: {last}"
    return _binary(prefix) or f"{PACKAGE} installed but no runnable `claude` binary in {prefix}"


def _binary(prefix: Path) -> Path | None:
    modules = prefix / "node_modules" / "@anthropic-ai"
    candidates = [modules / "claude-code" / "bin" / "claude.exe"]
    candidates += sorted(modules.glob("claude-code-*/claude"))
    for candidate in candidates:
        if not candidate.is_file():
            continue
        try:
            done = subprocess.run(
                [str(candidate), "--version"], capture_output=True, text=True, timeout=60
            )
        except OSError:
            continue
        if done.returncode == 0 and VERSION in done.stdout:
            return candidate
    return None


def command(binary: Path, task: str) -> list[str]:
    """Headless, every tool allowed (as our run's `--yes`)."""
    return [str(binary), "-p", task, "--dangerously-skip-permissions"]


def environment(base_url: str, api_key: str, home: Path) -> dict[str, str]:
    """Claude Code pointed at the scripted model, with a home of its own (its settings and
    sessions), no traffic but the model's, and its plan tools (TaskCreate/TaskUpdate) on:
    headless, it offers no plan tool otherwise."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": api_key,
        "IS_SANDBOX": "1",  # --dangerously-skip-permissions is refused as root without it
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_ENABLE_TODO_TOOLS": "1",
    }
