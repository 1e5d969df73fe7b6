"""Writing files so that a crash leaves the old file or the new one, never a torn one."""

from __future__ import annotations

import contextlib
import functools
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, then rename it over `path`.

    An existing file keeps its permission bits; a new file gets the usual umask default.
    """
    atomic_write_parts(path, (data,))


def atomic_write_parts(path: Path, parts: Iterable[bytes | memoryview]) -> None:
    """atomic_write of the concatenated parts, without joining them in memory first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as tmp:
            for part in parts:
                tmp.write(part)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.chmod(tmp_name, mode if mode is not None else _default_mode())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


@functools.cache
def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
