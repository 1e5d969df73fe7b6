"""A file the user cannot write, as a revert meets it: root writes any file its mode
forbids, so for root the file is made immutable (`chattr +i`, which root's writes and
renames do not pass either); anyone else gets its folder made read-only."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

LATIN1 = b"caf\xe9.txt"
"""The name of the issue's file: `café.txt` in Latin-1, as old archives leave it."""
LATIN1_SHOWN = "caf\\xe9.txt"
"""Its readable form (names.py)."""


@contextlib.contextmanager
def unwritable(path: Path) -> Iterator[None]:
    """`path` cannot be replaced or deleted while this lasts (skips where that cannot be
    made)."""
    if os.geteuid() != 0:
        os.chmod(path.parent, 0o555)
        try:
            yield
        finally:
            os.chmod(path.parent, 0o755)
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(path)], capture_output=True).returncode:
        pytest.skip("root cannot be kept from writing a file here (no chattr +i)")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(path)], check=True)
