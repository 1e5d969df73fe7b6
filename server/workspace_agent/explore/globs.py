"""Path globs as the model writes them (`**/*.py`, `src/*.ts`, `*.{js,ts}`), for git's
pathspecs and for the walker.

A glob without `/` matches a name at any depth (`*.py` is `**/*.py`), as in .gitignore:
that is what a model means by it. Braces are expanded here (git's globs have none).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..shared.errors import ToolError

MAX_EXPANSIONS = 64


def expand(pattern: str) -> list[str]:
    """`pattern` with its braces expanded and rooted: the globs to match, each relative to
    the workspace; ToolError for one that cannot be read."""
    text = pattern.strip()
    if not text:
        raise ToolError("the glob pattern is empty; give one such as `**/*.py` or `src/*.ts`")
    if "\x00" in text:
        raise ToolError("the glob pattern must not contain NUL characters")
    found = _braces(text)
    if len(found) > MAX_EXPANSIONS:
        raise ToolError(f"the glob {pattern!r} expands to more than {MAX_EXPANSIONS} patterns")
    rooted = []
    for glob in found:
        glob = glob.removeprefix("./").lstrip("/")
        if glob.startswith("../") or "/../" in glob or glob == "..":
            raise ToolError(f"the glob {pattern!r} reaches outside the workspace (`..`)")
        rooted.append(glob if "/" in glob.rstrip("/") else f"**/{glob}")
    return rooted


def _braces(text: str) -> list[str]:
    match = re.search(r"\{([^{}]*)\}", text)
    if match is None:
        return [text]
    head, tail = text[: match.start()], text[match.end() :]
    out: list[str] = []
    for choice in match.group(1).split(","):
        out.extend(_braces(head + choice + tail))
        if len(out) > MAX_EXPANSIONS:
            break
    return out


def pathspecs(globs: list[str]) -> list[str]:
    """The globs as git pathspecs."""
    return [f":(glob){glob}" for glob in globs]


@lru_cache(maxsize=64)
def compiled(glob: str) -> re.Pattern[str]:
    """A rooted glob as a regular expression over a relative path, with git's `:(glob)`
    meaning: `*` and `?` stay within a name, `**/` is any number of folders, a trailing
    `/**` everything below."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("/**", i) and i + 3 == len(glob):
            out.append("/.*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[":
            end = glob.find("]", i + 2)
            if end == -1:
                out.append(re.escape("["))
                i += 1
                continue
            body = glob[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body.replace(chr(92), chr(92) * 2)}]")
            i = end + 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def matches(path: str, globs: list[str]) -> bool:
    return any(compiled(glob).match(path) for glob in globs)
