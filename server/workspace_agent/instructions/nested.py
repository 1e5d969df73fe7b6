"""Nested instructions: a subfolder's own AGENTS.md, given to the model when it first works
there.

A run observer that sees every tool call (not only the workspace-changing ones). After a
call that touched a path, the nearest folder between that path and the workspace root
that holds an instruction file is looked up; its file is appended to that call's result,
marked as that folder's instructions, unless the conversation already has it (the mark is
looked for in the history, so it is added once per session, and again only when
compaction dropped it).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..protocol import StopReason
from ..shared.observers import CallReport, RunScope, ToolCall
from ..shared.session import content_text
from .files import find_in, read_file

FOLDER_MARK = re.compile(r'<instructions source="[^"]*" scope="folder" folder="([^"]*)">')


class NestedInstructions:
    sees_every_tool = True
    """Tell the loop to show this observer read-only calls too (shared/observers.py)."""

    def __init__(self, scope: RunScope) -> None:
        self._scope = scope
        self._root = scope.root.resolve()
        self._names = scope.settings.instruction_files
        self._added: set[str] = set()

    async def start_run(self) -> None:
        self._added = set(_folders_in(self._scope.session.messages))

    async def before_tool(self, call: ToolCall) -> None:
        return None

    async def after_tool(self, report: CallReport) -> None:
        if not report.outcome.ran:
            return
        for path in report.call.paths:
            found = self._nearest(path)
            if found is None:
                continue
            folder, file = found
            if folder in self._added:
                continue
            shown = (Path(folder) / file.name).as_posix()
            instructions = read_file(file, shown, "folder", self._root)
            if instructions is None:
                continue
            self._added.add(folder)
            report.notes.append(instructions.render(folder=folder))

    async def end_run(self, stop: StopReason) -> None:
        return None

    def _nearest(self, path: Path) -> tuple[str, Path] | None:
        """(folder relative to the root, its instruction file) nearest to `path`, below
        the root (the root's own file is in the system prompt)."""
        try:
            resolved = path.resolve()
            resolved.relative_to(self._root)
        except (OSError, ValueError):
            return None
        folder = resolved if resolved.is_dir() else resolved.parent
        while folder != self._root and self._root in folder.parents:
            file = find_in(folder, self._root, self._names)
            if file is not None:
                return folder.relative_to(self._root).as_posix(), file
            folder = folder.parent
        return None


def nested_instructions(scope: RunScope) -> NestedInstructions | None:
    """The observer factory (agent/sessions.py takes a list of them)."""
    return NestedInstructions(scope) if scope.settings.instruction_files else None


def _folders_in(messages: list[dict[str, Any]]) -> list[str]:
    found: list[str] = []
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                found += FOLDER_MARK.findall(content_text(block.get("content")))
    return found
