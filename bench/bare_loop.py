"""Row 2's baseline: the barest agent loop that does the same job as the server.

Plain `anthropic.AsyncAnthropic` streaming calls against the same scripted Messages API,
the same system prompt, tool schemas and prompt-cache breakpoints (so the requests are
the same size), and the project's own tool handlers called directly. No LSP, no session
store, no events, no input validation, no retries, no redaction.

Run: `python -m bench.bare_loop --base-url URL --workspace DIR --prompt P [--prompt P2]`;
prints one JSON line per prompt: {"turns": n, "seconds": s, "cpu": s, "stop": ...} (cpu: this
process's user + system time, without the commands it ran). Each prompt is
a fresh conversation; the first one can serve as a warm-up (imports, connection).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

import anthropic

from workspace_agent.agent.prompt import system_prompt
from workspace_agent.config import resolve_settings
from workspace_agent.guard.approvals import Approvals
from workspace_agent.shared.todo import TodoList
from workspace_agent.tools import TOOLS, ToolContext, ToolError
from workspace_agent.tools.base import output_text

EPHEMERAL = {"type": "ephemeral"}


def _mark_last(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [*blocks[:-1], {**blocks[-1], "cache_control": EPHEMERAL}] if blocks else blocks


async def run_prompt(
    client: anthropic.AsyncAnthropic, ctx: ToolContext, prompt: str, max_turns: int
) -> dict[str, Any]:
    schemas = [tool.schema() for tool in TOOLS.values()]
    system = _mark_last([{"type": "text", "text": system_prompt(ctx.root)}])
    tools = _mark_last(schemas)
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": prompt}]}
    ]
    started, cpu_started = time.perf_counter(), time.process_time()
    turns = 0
    stop = "max_turns"
    for _ in range(max_turns):
        tail = {**messages[-1], "content": _mark_last(messages[-1]["content"])}
        async with (
            client.messages.stream(
                model=ctx.settings.model,
                max_tokens=ctx.settings.max_tokens,
                system=system,  # type: ignore[arg-type]
                tools=tools,  # type: ignore[arg-type]
                messages=[*messages[:-1], tail],  # type: ignore[arg-type,list-item]
            ) as stream
        ):
            async for _event in stream:
                pass
            final = await stream.get_final_message()
        turns += 1
        content: list[dict[str, Any]] = []
        for block in final.content:
            if block.type == "text":
                content.append({"type": "text", "text": block.text})
            elif block.type == "tool_use":
                content.append(
                    {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
                )
        messages.append({"role": "assistant", "content": content})
        uses = [b for b in content if b["type"] == "tool_use"]
        if not uses:
            stop = "end_turn"
            break
        results = []
        for use in uses:
            try:
                output = output_text(await TOOLS[use["name"]].handler(ctx, use["input"]))
                results.append({"type": "tool_result", "tool_use_id": use["id"], "content": output})
            except ToolError as exc:
                results.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": use["id"],
                        "content": str(exc),
                        "is_error": True,
                    }
                )
        messages.append({"role": "user", "content": results})
    return {
        "turns": turns,
        "seconds": time.perf_counter() - started,
        "cpu": time.process_time() - cpu_started,
        "stop": stop,
    }


async def main_async(args: argparse.Namespace) -> None:
    root = args.workspace.resolve()
    settings = resolve_settings(root, {"approvals": {"bash": "allow", "write": "allow"}})
    client = anthropic.AsyncAnthropic(api_key="bench", base_url=args.base_url, max_retries=0)
    for prompt in args.prompt:
        ctx = ToolContext(
            root=root,
            settings=settings,
            todos=TodoList(),
            approvals=Approvals({"bash": "allow", "write": "allow"}),
        )
        result = await run_prompt(client, ctx, prompt, args.max_turns)
        print(json.dumps({"prompt": prompt, **result}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bare_loop")
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--prompt", action="append", required=True)
    parser.add_argument("--max-turns", type=int, default=250)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
