"""What follows a slash command's name, put into its text: shared by saved prompts
(agent/saved_prompts.py) and skills started by the user or the model (skills/), which
take the same placeholders as Claude Code's."""

from __future__ import annotations

import re
import shlex

POSITIONAL = re.compile(r"\$([1-9][0-9]*)")


def expand(body: str, arguments: str) -> str:
    """The text with its arguments in: `$ARGUMENTS` all of them, `$1`... one word each
    (missing ones empty; quotes group words, as in a shell). A body with no placeholder
    gets the arguments after it."""
    try:
        words = shlex.split(arguments)
    except ValueError:  # an unclosed quote: plain words then
        words = arguments.split()
    has_placeholder = "$ARGUMENTS" in body or POSITIONAL.search(body) is not None
    text = body.replace("$ARGUMENTS", arguments)
    text = POSITIONAL.sub(
        lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", text
    )
    if arguments and not has_placeholder:
        text = f"{text.rstrip()}\n\n{arguments}"
    return text.strip()
