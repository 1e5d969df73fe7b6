"""The run observer that tells the agent which problems its changes introduced.

Around every workspace-changing tool call (shared/observers.py) it asks the editor for the
problems of the files concerned (workspaceAgent/diagnostics, lsp/editor_diagnostics.py):
before the call, what the editor knows right then; after it, once the editor's language
servers had their say. The problems that are new (agent/new_problems.py) go to the model
after the tool's own result, and their count to the transcript as a notice.

Which files: a tool that changes only the file it names (`ToolCall.reach` "named_file":
write_file, edit_file) that file. A command (bash) the files the
checkpoints saw it change (CallReport.changes, filled in by the observer before this
one); before it runs, the documents open in the editor and the files that had problems
earlier in the run, where a command's effects usually show. With checkpoints off, a
command's changes are not known: those same files are asked about after it.
"""

from __future__ import annotations

from pathlib import Path

from pygls.uris import to_fs_path

from .. import protocol as p
from ..agent.new_problems import Problem, new_problems, note, problems_of, summary
from ..protocol import StopReason
from ..shared.errors import ToolError
from ..shared.observers import CallReport, RunScope, ToolCall
from ..tools.paths import safe_path
from .editor_diagnostics import EditorDiagnostics
from .open_documents import OpenDocuments

MAX_FILES = 20
"""Files asked about per call at most (a command may change thousands)."""


class ProblemsObserver:
    def __init__(
        self, scope: RunScope, editor: EditorDiagnostics, open_documents: OpenDocuments
    ) -> None:
        self._scope = scope
        self._root = scope.root.resolve()
        """Resolved, as safe_path and the open documents' lookup resolve paths."""
        self._editor = editor
        self._open = open_documents
        self._before: dict[Path, list[Problem]] = {}
        self._troubled: set[Path] = set()
        """Files seen with problems during this run."""

    async def start_run(self) -> None:
        return None

    async def before_tool(self, call: ToolCall) -> None:
        named = self._named_file(call)
        self._before = await self._problems(named if named is not None else self._watched(), False)

    async def after_tool(self, report: CallReport) -> None:
        outcome = report.outcome
        if not outcome.ran or outcome.cancelled:
            return
        after = await self._problems(self._changed(report), True)
        fresh: dict[str, list[Problem]] = {}
        for path, problems in after.items():
            if problems:
                self._troubled.add(path)
            fresh[self._shown(path)] = new_problems(self._before.get(path, []), problems)
        text, headline = note(fresh), summary(fresh)
        if text and headline:
            report.notes.append(text)
            self._scope.events.emit(p.EVENT_NOTICE, message=headline)

    async def end_run(self, stop: StopReason) -> None:
        return None

    async def _problems(self, paths: list[Path], wait: bool) -> dict[Path, list[Problem]]:
        """The errors and warnings of `paths` as the editor reports them (none when it
        could not answer)."""
        uris = {self._uri(path): path for path in list(dict.fromkeys(paths))[:MAX_FILES]}
        found = await self._editor.fetch(list(uris), wait) or {}
        return {
            path: problems_of(self._shown(path), found.get(uri, []))
            for uri, path in uris.items()
            if uri in found
        }

    # -- which files ---------------------------------------------------------------------

    def _named_file(self, call: ToolCall) -> list[Path] | None:
        """The file a one-file tool names ([] when its path is unusable); None for others."""
        if call.reach != "named_file":
            return None
        try:
            return [safe_path(self._root, str(call.input.get("path", "")))]
        except ToolError:
            return []

    def _changed(self, report: CallReport) -> list[Path]:
        if report.changes is not None:  # what the checkpoints saw the call change
            return [self._root / c.path for c in report.changes if c.change != "deleted"]
        named = self._named_file(report.call)
        return named if named is not None else self._watched()

    def _watched(self) -> list[Path]:
        """Before a command: the documents open in the editor and the files with problems."""
        open_paths = []
        for document in self._open:
            fs_path = to_fs_path(document.uri) if document.uri.startswith("file:") else None
            if fs_path and (path := Path(fs_path).resolve()).is_relative_to(self._root):
                open_paths.append(path)
        return [*open_paths, *sorted(self._troubled)]

    def _uri(self, path: Path) -> str:
        """As the editor spells it when it has the file open, else the file URI."""
        document = self._open.find(path)
        return document.uri if document is not None else path.as_uri()

    def _shown(self, path: Path) -> str:
        try:
            return path.relative_to(self._root).as_posix()
        except ValueError:
            return str(path)
