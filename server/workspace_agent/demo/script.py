"""The demo's script: what the scripted model "says", reply by reply.

The replies are fixed in advance; the tools really run against a copy of the sample
project, so the tool results the agent sends back are real.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

from ..testing.scripted_model import reply, text, tool

DEMO_TASK = (
    "The word counter in wordstats.py miscounts text with extra spaces or newlines. "
    "Fix it so the tests pass, then add a small command-line entry point."
)

CLI_SOURCE = '''"""Count the words of standard input: `echo "a b" | python3 wordstats_cli.py`."""

import sys

from wordstats import top_words, word_count

if __name__ == "__main__":
    text = sys.stdin.read()
    print(f"{word_count(text)} words")
    for word, count in top_words(text):
        print(f"  {word}: {count}")
'''


def _plan(*statuses: str) -> dict[str, Any]:
    texts = (
        "Run the tests to see what fails",
        "Fix word_count for any whitespace",
        "Add a command-line entry point",
    )
    return {
        "items": [
            {"id": str(n), "text": t, "status": s}
            for n, (t, s) in enumerate(zip(texts, statuses, strict=True), start=1)
        ]
    }


def demo_script(python: str | None = None, pace: float = 0.25) -> dict[str, Any]:
    """The script; `pace` slows replies down so a person can follow the plan."""
    py = shlex.quote(python or sys.executable)
    slow = {"delay": pace, "event_delay": pace / 20}
    replies = [
        reply(
            text("I'll plan this first, then start with the tests."),
            tool("todo", _plan("in_progress", "pending", "pending")),
            **slow,
        ),
        reply(tool("bash", {"command": f"{py} -m unittest -q 2>&1 | tail -n 15"}), **slow),
        reply(
            text("Two tests fail on whitespace. Let me look at word_count."),
            tool("todo", _plan("completed", "in_progress", "pending")),
            tool("read_file", {"path": "wordstats.py"}),
            **slow,
        ),
        reply(
            text(
                '`split(" ")` keeps empty strings between repeated spaces; '
                "`split()` splits on any run of whitespace."
            ),
            tool(
                "edit_file",
                {
                    "path": "wordstats.py",
                    "old_text": 'return len(text.split(" "))',
                    "new_text": "return len(text.split())",
                },
            ),
            **slow,
        ),
        reply(tool("bash", {"command": f"{py} -m unittest -q"}), **slow),
        reply(
            text("All tests pass. Now the command-line entry point."),
            tool("todo", _plan("completed", "completed", "in_progress")),
            tool("write_file", {"path": "wordstats_cli.py", "content": CLI_SOURCE}),
            **slow,
        ),
        reply(
            tool("bash", {"command": f"printf 'the cat  and the hat\\n' | {py} wordstats_cli.py"}),
            **slow,
        ),
        reply(tool("todo", _plan("completed", "completed", "completed")), **slow),
        reply(
            text(
                "Done. `word_count` now uses `split()`, so any run of spaces, tabs or "
                "newlines separates words and empty text has 0 words; the tests pass. "
                "`wordstats_cli.py` counts the words of standard input."
            ),
            **slow,
        ),
    ]
    return {"conversations": [{"replies": replies}], "on_exhausted": "text"}
