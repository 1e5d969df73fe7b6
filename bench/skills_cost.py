"""Row 31: no skills configured costs nothing (issue 45): not a byte in the request, not a
module or a millisecond at start.

Bytes: `workspace-agent run TASK --yes` in a workspace without skills, and in the same
workspace with SKILLS skills in `.claude/skills`; the first request of the run with skills,
the skills' list and the `skill` tool taken out of it, must be byte for byte the request of
the run without (so the feature adds exactly those, and without skills nothing).
Start-up: spawn → first request of both runs (alternating, after one discarded warm-up of
each); and, in a fresh interpreter, what looking for skills and agents at a run's start
costs in a workspace (and a home) without any, and whether it loaded the YAML parser or the
skills' list and tool modules (it must not).
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

from workspace_agent.testing.scripted_model import reply, text

from .harness import PY, ScriptedModelProcess, child_env, temp_dir
from .report import Row, median, ms

NUMBER = 31
WHAT = "no skills configured costs nothing: first request bytes and start-up"
TARGET = "0 bytes more; no YAML or skill module loaded; skill lookup <= 1 ms per run start"
TASK = "say ok"
SKILLS = 200
LOOKUP_LIMIT = 0.001

PROBE = """
import json, sys, time
from pathlib import Path
from workspace_agent.skills.discovery import find_skills
from workspace_agent.subagents.definitions import find_agents
root, home = Path(sys.argv[1]), Path(sys.argv[2])
times = []
for _ in range(200):
    started = time.perf_counter()
    find_skills(root, home, home / "config")
    find_agents(root, home, home / "config")
    times.append(time.perf_counter() - started)
loaded = [m for m in ("yaml", "workspace_agent.skills.catalog", "workspace_agent.skills.tool")
          if m in sys.modules]
print(json.dumps({"times": sorted(times), "loaded": loaded}))
"""


def _skills(workspace: Path) -> None:
    for n in range(SKILLS):
        folder = workspace / ".claude" / "skills" / f"skill-{n:03d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{n:03d}\ndescription: Does task {n} of the project's "
            "release process; use it when the user asks for that step.\n---\nSteps...\n"
        )


def _first_request(workspace: Path, home: Path) -> tuple[float, dict[str, Any], int]:
    """Seconds from spawn to the first request, its body and its size in bytes."""
    script = {"conversations": [{"replies": [reply(text("ok"))]}], "on_exhausted": "text"}
    with ScriptedModelProcess(script) as model:
        env = child_env(
            HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"), ANTHROPIC_BASE_URL=model.url
        )
        command = [PY, "-m", "workspace_agent", "run", TASK, "--workspace", str(workspace)]
        spawned = time.monotonic_ns()
        subprocess.run([*command, "--yes"], env=env, check=True, capture_output=True)
        first = next(r for r in model.requests() if r["path"] == "/v1/messages")
    return (first["received_ns"] - spawned) / 1e9, first["body"], first["size"]


def _without_skills(body: dict[str, Any]) -> dict[str, Any]:
    """The request with the skills' list and the skill tool taken out."""
    system = [dict(block) for block in body["system"]]
    for block in system:
        start = block["text"].find("\n\n<skills>\n")
        if start >= 0:
            end = block["text"].index("</skills>", start) + len("</skills>")
            block["text"] = block["text"][:start] + block["text"][end:]
    tools = [tool for tool in body["tools"] if tool["name"] != "skill"]
    if tools and "cache_control" in body["tools"][-1]:
        tools[-1] = {**tools[-1], "cache_control": body["tools"][-1]["cache_control"]}
    return {**body, "system": system, "tools": tools}


def _size(body: dict[str, Any]) -> int:
    return len(json.dumps(body, separators=(",", ":")).encode())


def run(quick: bool) -> Row:
    rounds = 1 if quick else 7
    with temp_dir("bench-skills-a-") as bare, temp_dir("bench-skills-b-") as rich:
        _skills(rich)
        with temp_dir("bench-skills-home-") as home:
            for workspace in (bare, rich):  # warm-up, discarded
                _first_request(workspace, home)
            starts: dict[str, list[float]] = {"none": [], "skills": []}
            for n in range(rounds):
                order = [("none", bare), ("skills", rich)]
                for name, workspace in order if n % 2 == 0 else order[::-1]:
                    seconds, body, size = _first_request(workspace, home)
                    starts[name].append(seconds)
                    if name == "none":
                        none_body, none_size = body, size
                    else:
                        rich_body, rich_size = body, size
            probe = subprocess.run(
                [PY, "-c", PROBE, str(bare), str(home)],
                env=child_env(HOME=str(home)),
                check=True,
                capture_output=True,
                text=True,
            )
    looked = json.loads(probe.stdout)
    lookup = median(looked["times"])
    # The two workspaces' paths (in the system prompt) are the one difference meant to be.
    stripped = json.loads(json.dumps(_without_skills(rich_body)).replace(str(rich), str(bare)))
    same = stripped == none_body
    extra = _size(none_body) - _size(stripped)
    skills_part = rich_size - none_size
    none_start, rich_start = median(starts["none"]), median(starts["skills"])
    listed = rich_body["system"][-1]["text"].count("\n- skill-")
    met = same and extra == 0 and not looked["loaded"] and lookup <= LOOKUP_LIMIT
    loaded = f"loaded {', '.join(looked['loaded'])}" if looked["loaded"] else "YAML not loaded"
    details = [
        f"- first request without skills: {none_size:,} bytes; with {SKILLS} skills: "
        f"{rich_size:,} bytes (+{skills_part:,}: the list, {listed} of {SKILLS} skills within "
        "2% of the context window, and the skill tool)",
        f"- the request with skills, the list and the tool taken out: "
        f"{'byte for byte' if same else 'NOT'} the request without skills ({extra:+,} bytes)",
        f"- spawn → first request (median of {rounds}, alternating): without skills "
        f"{ms(none_start)}, with {SKILLS} skills {ms(rich_start)}",
        f"- looking for skills and agents at a run's start, none there (fresh interpreter, "
        f"{len(looked['times'])} times): median {lookup * 1e6:.0f} µs; modules loaded by it: "
        f"{', '.join(looked['loaded']) or 'none of yaml, skills.catalog, skills.tool'}",
    ]
    return Row(
        NUMBER,
        WHAT,
        f"{SKILLS} skills: +{skills_part:,} bytes, first request after {ms(rich_start)}",
        f"no skills: {extra:+} bytes, first request after {ms(none_start)}, lookup "
        f"{lookup * 1e6:.0f} µs, {loaded}",
        "identical bytes" if same else "bytes differ",
        TARGET,
        met,
        details,
    )
