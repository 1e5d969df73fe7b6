"""Project instructions: the AGENTS.md (or CLAUDE.md) files users already write for agents.

The root file and the user's own file go into the system prompt (files.py); a nested
folder's file goes into the result of the first tool call that touches that folder
(nested.py). Both are read afresh at the start of every run, so an edit applies to the
next run.
"""

from __future__ import annotations

from .files import CAP_BYTES, InstructionFile, Instructions, load_instructions
from .nested import nested_instructions

__all__ = [
    "CAP_BYTES",
    "InstructionFile",
    "Instructions",
    "load_instructions",
    "nested_instructions",
]
