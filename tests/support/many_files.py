"""A workspace of many small files, not a git repository: the checkpoint store's first
scan must store every one of them (a noticeable time: about 2 s for 12,000 here)."""

from __future__ import annotations

from pathlib import Path

FILES = 12_000


def many_files(root: Path, count: int = FILES) -> None:
    for n in range(count):
        folder = root / "src" / f"pkg{n // 100:03d}"
        if n % 100 == 0:
            folder.mkdir(parents=True)
        (folder / f"mod{n % 100:02d}.py").write_text(f"value = {n}\n" + "# padding\n" * 20)
