"""Words the guard and the sandbox share (siblings: neither may import the other)."""

from __future__ import annotations

from typing import Literal

HostVerdict = Literal["allowed", "denied", "unasked"]
"""What became of a host a sandboxed command reached for: the user (or the list) allowed
it, the user denied it, or no one could be asked (refused)."""
