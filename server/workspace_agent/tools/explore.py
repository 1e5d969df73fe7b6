"""The `search` and `find_files` tools: schemas, handlers, and how their results read.

Both are read-only with reach "nothing": no checkpoint scan, no sandbox, and calls of one
answer run side by side with other reads (agent/concurrency.py). The work runs in a
worker thread so the server keeps answering meanwhile.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .. import names
from ..explore import globs as glob_rules
from ..explore.candidates import Listing, list_files, look_at
from ..explore.grep import MAX_CONTEXT, SHOWN_MATCHES, Found, Query
from ..explore.grep import run as grep
from .base import Tool, ToolContext

SHOWN_FILES = 200


def _masks(ctx: ToolContext) -> tuple[str, ...]:
    return tuple(ctx.settings.sandbox_masked_paths)


async def search(ctx: ToolContext, args: dict[str, Any]) -> str:
    query = Query(
        str(args["pattern"]),
        bool(args.get("literal", False)),
        bool(args.get("ignore_case", False)),
        int(args.get("context", 0)),
    )
    query.compiled()  # a bad pattern is refused before any file is listed
    glob = args.get("glob")
    globs = glob_rules.expand(glob) if glob is not None else None
    root, max_bytes = ctx.root.resolve(), ctx.settings.max_file_bytes
    listing, found = await asyncio.to_thread(grep, root, query, globs, max_bytes, _masks(ctx))
    return _search_text(query, glob, listing, found)


def _search_text(query: Query, glob: str | None, listing: Listing, found: Found) -> str:
    kind = "text" if query.literal else "pattern"
    where = f" in files matching `{glob}`" if glob else ""
    if not found.matches:
        head = f"No matches for the {kind} `{query.pattern}`{where}."
        return "\n".join([head, *_notes(listing, found)])
    total = f"more than {found.matches:,}" if found.capped else f"{found.matches:,}"
    head = (
        f"{total} {_plural(found.matches, 'match', 'matches')} for the {kind} "
        f"`{query.pattern}`{where} in {len(found.files):,}{'+' if found.capped else ''} "
        f"{_plural(len(found.files), 'file', 'files')}:"
    )
    lines = [head, "", *found.lines()]
    if found.matches > SHOWN_MATCHES:
        lines += [
            "",
            f"Showing the first {SHOWN_MATCHES} of {total} matches. Narrow the search: a "
            "`glob` such as `src/**/*.py`, or a more specific pattern.",
        ]
    notes = _notes(listing, found)
    return "\n".join(lines + (["", *notes] if notes else []))


def _plural(count: int, one: str, more: str) -> str:
    return one if count == 1 else more


def _listed(paths: list[str]) -> str:
    shown = ", ".join(names.readable(p) for p in paths[:10])
    return shown + (f" and {len(paths) - 10} more" if len(paths) > 10 else "")


def _notes(listing: Listing, found: Found) -> list[str]:
    """What was left out, so the model knows where else to look."""
    notes = []
    if listing.too_large:
        notes.append(
            f"Skipped {len(listing.too_large)} file(s) larger than maxFileBytes: "
            f"{_listed(listing.too_large)} (read_file reads any part of them)."
        )
    if listing.links:
        notes.append(f"Not followed (symlinks): {_listed(listing.links)}.")
    if found.binary:
        notes.append(f"Skipped {found.binary} binary file(s).")
    return notes


async def find_files(ctx: ToolContext, args: dict[str, Any]) -> str:
    pattern = str(args["pattern"])
    newest = bool(args.get("newest_first", False))
    globs = glob_rules.expand(pattern)
    root, max_bytes = ctx.root.resolve(), ctx.settings.max_file_bytes

    def work() -> tuple[Listing, int]:
        # Only newest_first needs every file's time; otherwise the shown ones are looked at.
        listing = list_files(root, globs, max_bytes, _masks(ctx), look=newest)
        if not newest:
            look_at(root, listing, sorted(listing.names), max_bytes, limit=SHOWN_FILES)
        return listing, len(listing.files) if newest else len(listing.names)

    listing, total = await asyncio.to_thread(work)
    if newest:
        files = sorted(listing.files, key=lambda c: (-c.mtime, c.path))
    else:
        files = listing.files
    if not files:
        return f"No files match `{pattern}`."
    order = ", newest first" if newest else ""
    lines = [f"{total:,} {_plural(total, 'file matches', 'files match')} `{pattern}`{order}:"]
    for c in files[:SHOWN_FILES]:
        note = " (symlink, not followed)" if c.link else ""
        note = " (larger than maxFileBytes)" if c.large else note
        lines.append(names.readable(c.path) + note)
    if total > SHOWN_FILES:
        lines.append(
            f"Showing {SHOWN_FILES} of {total:,}. Narrow the pattern (a folder: `src/**/*.py`)."
        )
    return "\n".join(lines)


SEARCH = Tool(
    name="search",
    description=(
        "Search the contents of the workspace's files for a regular expression (Python/PCRE "
        "syntax) or, with literal: true, a plain text. Respects .gitignore (tracked and "
        "untracked files in a git repository); binary files, symlinks and files over "
        "maxFileBytes are skipped. Results are `path:line: text` grouped by file, at most "
        f"{SHOWN_MATCHES} matches with the total. Faster than grep through bash, and runs "
        "side by side with other reads: prefer it for finding code."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1, "description": "What to look for."},
            "glob": {
                "type": "string",
                "minLength": 1,
                "description": "Only files whose path matches, e.g. `**/*.py` or `src/**`.",
            },
            "literal": {"type": "boolean", "description": "The pattern is plain text."},
            "ignore_case": {"type": "boolean"},
            "context": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_CONTEXT,
                "description": "Lines of context around each match (`path-line- text`).",
            },
        },
        "required": ["pattern"],
        "additionalProperties": False,
    },
    handler=search,
    summarize=lambda args: " ".join(
        part for part in (str(args.get("pattern", "")), str(args.get("glob") or "")) if part
    ),
    kind="search",
    plan_safe=True,
    read_only=True,
    reach="nothing",
    aliases=("Grep",),
)

FIND_FILES = Tool(
    name="find_files",
    description=(
        "List the workspace's files whose path matches a glob (`**/*.py`, `src/**/test_*.ts`, "
        "`*.{js,ts}`; a pattern without `/` matches at any depth). Respects .gitignore. "
        f"At most {SHOWN_FILES} paths with the total; newest_first sorts by modification time."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1, "description": "The glob."},
            "newest_first": {"type": "boolean", "description": "Most recently changed first."},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    },
    handler=find_files,
    summarize=lambda args: str(args.get("pattern", "")),
    kind="search",
    plan_safe=True,
    read_only=True,
    reach="nothing",
    aliases=("Glob",),
)
