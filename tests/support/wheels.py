"""Wheels made by hand for tests (no build backend, no network)."""

from __future__ import annotations

from pathlib import Path


def wheel_with_a_script(folder: Path) -> Path:
    """A tiny wheel with a console script, made by hand (no build backend, no network)."""
    import zipfile

    path = folder / "tinytool-1.0-py3-none-any.whl"
    info = "tinytool-1.0.dist-info"
    files = {
        "tinytool.py": "def main():\n    print('tinytool works')\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: tinytool\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
        f"{info}/entry_points.txt": "[console_scripts]\ntinytool = tinytool:main\n",
    }
    record = "".join(f"{name},,\n" for name in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as archive:
        for name, body in {**files, f"{info}/RECORD": record}.items():
            archive.writestr(name, body)
    return path
