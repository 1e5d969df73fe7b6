"""Row 5: billed-token cost of a 20-turn scripted task whose history grows, with prompt
caching (the default) against the same run without it (`promptCaching: false`).

Both runs go through the real server over LSP against a fresh scripted-model process
(a fresh prompt cache). The scripted API accounts for the cache like the Messages API
(workspace_agent/testing/prompt_cache.py: a hit for the longest earlier prefix ending at
a breakpoint, writes 1.25x, reads 0.1x, uncached input 1x) and reports per-request
usage; the numbers here are the server's own usage totals from the RunResult, checked
against an independent replay of the recorded requests through the same accounting.
"""

from __future__ import annotations

import asyncio
from typing import Any

from workspace_agent.testing.prompt_cache import READ_PRICE, WRITE_PRICE, PromptCache
from workspace_agent.testing.scripted_model import estimate_tokens, reply, text, tool

from .harness import ScriptedModelProcess, lsp_agent, run_prompt, temp_dir
from .report import Row

WHAT = "billed-token cost of a 20-turn scripted task with growing history"
TARGET = "<= 0.3x, with cache_control breakpoints on tools, system and the conversation tail"
LIMIT = 0.3
OUTPUT_PRICE = 5.0
"""Output tokens cost 5x input tokens (Sonnet list prices: $3 / $15 per million)."""
DOLLARS_PER_INPUT_TOKEN = 3 / 1e6
PROMPT = "cost task: review the modules and fix the typo"
FILES = 16


def _module(n: int) -> str:
    body = [f'"""Module {n}: helpers the cost benchmark reads."""', ""]
    for k in range(24):
        body += [
            f"def helper_{n}_{k}(value: int) -> int:",
            f'    """Return value scaled by {k} (module {n})."""',
            f"    return value * {k} + {n}",
            "",
        ]
    return "\n".join(body) + "\n"


def _plan(done: int) -> dict[str, Any]:
    steps = ["Read the modules", "Fix the typo", "Summarise"]
    return {
        "items": [
            {
                "id": str(i + 1),
                "text": step,
                "status": "completed" if i < done else "in_progress" if i == done else "pending",
            }
            for i, step in enumerate(steps)
        ]
    }


def script() -> dict[str, Any]:
    """20 model calls: plan, 16 reads, an edit, the plan closed, a closing text."""
    replies = [reply(text("I'll plan first."), tool("todo", _plan(0)))]
    replies += [reply(tool("read_file", {"path": f"src/mod_{n:02d}.py"})) for n in range(FILES)]
    replies.append(
        reply(
            text("Found it."),
            tool(
                "edit_file",
                {"path": "src/mod_03.py", "old_text": "Module 3:", "new_text": "Module three:"},
            ),
        )
    )
    replies.append(reply(tool("todo", _plan(3))))
    replies.append(reply(text("Done: read the modules and fixed the typo in mod_03.py.")))
    assert len(replies) == 20
    return {"conversations": [{"replies": replies}], "on_exhausted": "error"}


async def _one(caching: bool) -> dict[str, Any]:
    with temp_dir("bench-cost-") as workspace, ScriptedModelProcess(script()) as model:
        (workspace / "src").mkdir()
        for n in range(FILES):
            (workspace / "src" / f"mod_{n:02d}.py").write_text(_module(n))
        async with lsp_agent(workspace, model.url, {"promptCaching": caching}) as (client, _):
            result = await run_prompt(client, PROMPT)
        requests = model.requests()
    if result["stopReason"] != "end_turn" or len(requests) != 20:
        raise RuntimeError(f"cost run went wrong: {result} ({len(requests)} requests)")
    usage = result["usage"]
    replay = PromptCache()
    totals = {"input": 0, "write": 0, "read": 0}
    prompt_sizes = []
    for request in requests:
        counted = replay.account(request["body"], estimate_tokens)
        prompt_sizes.append(
            counted.input_tokens
            + counted.cache_creation_input_tokens
            + counted.cache_read_input_tokens
        )
        totals["input"] += counted.input_tokens
        totals["write"] += counted.cache_creation_input_tokens
        totals["read"] += counted.cache_read_input_tokens
    agrees = (totals["input"], totals["write"], totals["read"]) == (
        usage["inputTokens"],
        usage["cacheWriteTokens"],
        usage["cacheReadTokens"],
    )
    marks = _breakpoints(requests[-1]["body"])
    return {"usage": usage, "agrees": agrees, "marks": marks, "sizes": prompt_sizes}


def _breakpoints(body: dict[str, Any]) -> dict[str, bool]:
    def marked(blocks: Any) -> bool:
        return isinstance(blocks, list) and bool(blocks) and "cache_control" in blocks[-1]

    last = body["messages"][-1]["content"]
    return {
        "tools": marked(body.get("tools")),
        "system": marked(body.get("system")),
        "conversation tail": marked(last),
    }


def billed_input(u: dict[str, int]) -> float:
    return (
        u["inputTokens"] + WRITE_PRICE * u["cacheWriteTokens"] + READ_PRICE * u["cacheReadTokens"]
    )


def billed(u: dict[str, int]) -> float:
    return billed_input(u) + OUTPUT_PRICE * u["outputTokens"]


def run(quick: bool) -> Row:
    async def both() -> tuple[dict[str, Any], dict[str, Any]]:
        # Tokens do not depend on timing: the two runs go on side by side.
        cached, plain = await asyncio.gather(_one(True), _one(False))
        return cached, plain

    cached, plain = asyncio.run(both())
    cu, pu = cached["usage"], plain["usage"]
    ratio = billed(cu) / billed(pu)
    input_ratio = billed_input(cu) / billed_input(pu)
    marks_ok = all(cached["marks"].values()) and not any(plain["marks"].values())
    met = ratio <= LIMIT and marks_ok

    def line(name: str, u: dict[str, int]) -> str:
        return (
            f"| {name} | {u['inputTokens']:,} | {u['cacheWriteTokens']:,} | "
            f"{u['cacheReadTokens']:,} | {u['outputTokens']:,} | {billed_input(u):,.0f} | "
            f"{billed(u):,.0f} | ${billed(u) * DOLLARS_PER_INPUT_TOKEN:.4f} |"
        )

    return Row(
        5,
        WHAT,
        f"no prompt caching: {billed(pu):,.0f} token-units",
        f"{billed(cu):,.0f} token-units",
        f"{ratio:.2f}x (input only {input_ratio:.2f}x)",
        TARGET,
        met,
        [
            "Tokens of each run (20 model calls each; token counts are the scripted API's "
            "estimate, 4 characters per token):",
            "",
            "| run | uncached input | cache write | cache read | output | billed input | "
            "billed total | $ at Sonnet list |",
            "|---|---|---|---|---|---|---|---|",
            line("prompt caching on (default)", cu),
            line("prompt caching off (baseline)", pu),
            "",
            f"- billed input = uncached + {WRITE_PRICE}x cache write + {READ_PRICE}x cache read "
            f"(in input-token units); billed total adds output at {OUTPUT_PRICE:g}x input "
            "(Sonnet list prices: $3 per million input tokens, $15 per million output). "
            f"Ratio of billed totals {ratio:.3f}; input only {input_ratio:.3f}.",
            "- Breakpoints in the last request with caching on: "
            + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in cached["marks"].items())
            + "; with caching off: "
            + ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in plain["marks"].items())
            + ".",
            "- The server's usage totals (RunResult.usage) equal an independent replay of the "
            "recorded requests through the same cache accounting: "
            f"{'yes' if cached['agrees'] and plain['agrees'] else 'NO'}.",
            f"- The task: a plan, {FILES} `read_file` calls of {len(_module(0)):,}-byte modules, "
            "one `edit_file`, the plan closed, a closing text. The prompt grows from "
            f"{plain['sizes'][0]:,} tokens (first call) to {plain['sizes'][-1]:,} (last call), "
            f"{(plain['sizes'][-1] - plain['sizes'][0]) / (len(plain['sizes']) - 1):,.0f} "
            "tokens a turn on average.",
        ],
    )
