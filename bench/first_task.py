"""Row 24: the first task in a big git repository against the same task in a small one.

A headless `workspace-agent run` (the scripted model, 4 turns: a command, an edit, a new
file, an answer) with a fresh checkpoint store, on a generated git checkout of 200,000
small files (`--quick`: 2,000) and on one of 20 files, interleaved; then a second task
on the big one. The checkpoint store's first scan starts from the user's index there
(checkpoints/seed.py). Baselines in the same run: the small repository, the user's own
`git status` on the big one, and the store's first scan without seeding (what every first
task paid before: every file hashed).

The trees are generated once into a cache folder outside the repository
(`$XDG_CACHE_HOME/workspace-agent-bench/`, they are large) and reset after each task
(`git reset --hard`, `git clean`), which leaves their index settled, as a checkout is.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from workspace_agent.testing.scripted_model import reply, text, tool

from .harness import PY, ScriptedModelProcess, child_env, run_worker, temp_dir
from .report import Row, median, mib, ms

NUMBER = 24
WHAT = "first task in a big git repository (fresh checkpoint store)"
TARGET = "<= 1.5x the 20-file repository; peak RSS <= 200 MiB"
TIME_LIMIT, RSS_LIMIT_KIB = 1.5, 200 * 1024
BIG, QUICK_BIG, SMALL = 200_000, 2_000, 20
PER_FOLDER = 100
TASKS = ("first task: change two modules and add a note", "second task: the same again")


def cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "workspace-agent-bench"


def _git(root: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b")
    env.update(GIT_COMMITTER_EMAIL="b@b", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    done = subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return done.stdout.decode()


def tree(files: int) -> Path:
    """A committed git checkout of `files` small source files (made once, cached)."""
    root = cache_folder() / f"git-tree-{files}"
    if (root / ".complete").is_file():
        return root
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    for n in range(files):
        folder = root / "src" / f"pkg{n // PER_FOLDER:04d}"
        if n % PER_FOLDER == 0:
            folder.mkdir(parents=True)
        (folder / f"mod{n % PER_FOLDER:02d}.py").write_text(
            f'"""Module {n}."""\n\n' + "".join(f"value_{k} = {n * k}\n" for k in range(40))
        )
    (root / ".gitignore").write_text("build/\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "tree")
    _settle(root)
    (root / ".git" / "info" / "exclude").write_text(".complete\n")
    (root / ".complete").write_text("")
    return root


def _settle(root: Path) -> None:
    """The index as git leaves it after a while: no entry racily clean (younger than
    the index file), as after any `git status` in a checkout."""
    time.sleep(1.1)
    _git(root, "update-index", "-q", "--really-refresh")


def reset(root: Path) -> None:
    _git(root, "reset", "-q", "--hard")
    _git(root, "clean", "-fdxq", "-e", ".complete")
    _settle(root)


def _script() -> dict[str, Any]:
    conversations = []
    for n, task in enumerate(TASKS):
        a, b = f"src/pkg0000/mod{2 * n:02d}.py", f"src/pkg0000/mod{2 * n + 1:02d}.py"
        conversations.append(
            {
                "match": task,
                "replies": [
                    reply(tool("bash", {"command": f"echo 'extra = 1' >> {a}"})),
                    reply(
                        tool("edit_file", {"path": b, "old_text": "value_1 =", "new_text": "v1 ="})
                    ),
                    reply(tool("write_file", {"path": f"notes{n}.md", "content": "# notes\n"})),
                    reply(text("Done.")),
                ],
            }
        )
    return {"conversations": conversations, "on_exhausted": "error"}


def _task(root: Path, task: str, home: Path) -> tuple[float, int]:
    """Seconds from spawn to exit, and the peak RSS (KiB) of the agent's process."""
    command = [PY, "-m", "workspace_agent", "run", task, "--workspace", str(root), "--yes"]
    with ScriptedModelProcess(_script()) as model:
        env = {**child_env(HOME=str(home)), "ANTHROPIC_BASE_URL": model.url}
        started = time.perf_counter()
        proc = subprocess.Popen(
            command, cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
        )
        _pid, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"workspace-agent run exited {proc.returncode} in {root}")
    if "extra = 1" not in (root / "src" / "pkg0000" / "mod00.py").read_text():
        raise RuntimeError("the task's command did not run")
    return seconds, usage.ru_maxrss


def _user_status(root: Path) -> float:
    started = time.perf_counter()
    _git(root, "--no-optional-locks", "status", "--porcelain")
    return time.perf_counter() - started


def run(quick: bool) -> Row:
    files = QUICK_BIG if quick else BIG
    rounds = 1 if quick else 3
    big, small = tree(files), tree(SMALL)
    first_big: list[float] = []
    first_small: list[float] = []
    second_big: list[float] = []
    rss_big: list[int] = []
    rss_small: list[int] = []
    status = []
    with temp_dir("bench-first-home-") as home:
        for _ in range(rounds):
            for root, times, rss in ((small, first_small, rss_small), (big, first_big, rss_big)):
                reset(root)
                seconds, peak = _task(root, TASKS[0], home)
                times.append(seconds)
                rss.append(peak)
                if root == big:
                    second_big.append(_task(root, TASKS[1], home)[0])
                reset(root)
            status += [_user_status(big) for _ in range(3)]
    unseeded = _unseeded_first_scan(big)
    reset(big)
    ratio = median(first_big) / median(first_small)
    peak = max(rss_big)
    return Row(
        NUMBER,
        f"first task (4 turns, headless CLI, fresh checkpoint store) in a {files:,}-file git repo",
        f"same task, 20-file repo: {ms(median(first_small))}, {mib(max(rss_small))} RSS",
        f"{ms(median(first_big))}, peak RSS {mib(peak)}; second task {ms(median(second_big))}",
        f"{ratio:.2f}x",
        TARGET,
        ratio <= TIME_LIMIT and peak <= RSS_LIMIT_KIB,
        [
            f"- tree: a committed git checkout of {files:,} small source files (~500 bytes) "
            f"in {files // PER_FOLDER:,} folders, generated once in {cache_folder()} and reset "
            "after each task; its index settled (no racily clean entry), as a checkout is.",
            "- ours: `python -m workspace_agent run TASK --workspace TREE --yes`, spawn to "
            "exit, the scripted model (bash appending to a module, edit_file of another, "
            "write_file of a note, an answer); a fresh checkpoint store each time, so the "
            "store's first scan of the tree is inside it. Peak RSS: the agent process's own "
            "(wait4's ru_maxrss, which also covers the git processes it waited for).",
            f"- first task on the big tree: {_all(first_big)}; on the 20-file one: "
            f"{_all(first_small)}; second task on the big tree: {_all(second_big)}.",
            f"- the user's own `git status --porcelain` there: median {ms(median(status))}.",
            f"- naive baseline, the same store's first scan without seeding (every file "
            f"hashed, what every first task paid before): {ms(unseeded['seconds'])} "
            f"({unseeded['seconds'] / median(first_big):.0f}x the whole seeded task).",
        ],
    )


def _all(values: list[float]) -> str:
    return ", ".join(ms(v) for v in values)


def _unseeded_first_scan(root: Path) -> dict[str, Any]:
    reset(root)
    return run_worker("bench.first_scan_worker", str(root), timeout=1500)
