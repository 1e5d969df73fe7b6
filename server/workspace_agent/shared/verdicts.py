"""Words the guard and the sandbox share (siblings: neither may import the other)."""

from __future__ import annotations

from typing import Literal

HostVerdict = Literal["allowed", "denied", "unasked", "unattended", "metadata"]
"""What became of a host a sandboxed command reached for: the user (or the list) allowed
it, the user denied it, no one could be asked (refused), a run no person watches (`--yes`)
refused it without a question, or it is an instance-metadata address (refused by rule)."""
