"""agent/mentions.py: which `@` tokens are mentions (an e-mail address, a decorator or a
package scope never is), and what each kind resolves to, or why it is refused."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from workspace_agent.agent.errors import PromptRefused
from workspace_agent.agent.mentions import find_mentions, resolve
from workspace_agent.protocol import ContextDiagnostic, Span
from workspace_agent.shared.documents import DiskOnly

from tests.support.images import png


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print('hi')\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("# Guide\n")
    (tmp_path / "Makefile").write_text("all:\n")
    return tmp_path


def test_paths_and_special_mentions_at_a_word_start(root: Path):
    prompt = "Fix @src/app.py (see @docs/), then @problems and @diff; also @Makefile."
    assert find_mentions(prompt, root) == ["src/app.py", "docs/", "problems", "diff", "Makefile"]


@pytest.mark.parametrize(
    "prompt",
    [
        "mail ann@example.com about it",
        "@dataclass(frozen=True)\nclass A: ...",
        "    @app.route('/x')\n    def x(): ...",
        "@functools.cache on f",
        "npm i @types/node and ask @alice",
        "in code: `@src/app.py` and\n```\n@src/nope.py\n```",
        "twice: @@src/app.py",
    ],
)
def test_text_that_only_looks_like_a_mention_is_left_alone(root: Path, prompt: str):
    assert find_mentions(prompt, root) == []


def test_a_missing_file_under_an_existing_folder_is_a_mention(root: Path):
    assert find_mentions("@src/nope.py and @./gone.txt", root) == ["src/nope.py", "./gone.txt"]


def test_paths_that_leave_the_workspace_are_mentions_to_refuse(root: Path):
    assert find_mentions("@../secret @/etc/passwd @~/.ssh/id", root) == [
        "../secret",
        "/etc/passwd",
        "~/.ssh/id",
    ]


async def test_a_file_goes_in_a_fenced_block_cut_at_max_chars(root: Path):
    (root / "src" / "long.py").write_text("x" * 50)
    resolved = await resolve("@src/app.py @src/long.py", root, 20, DiskOnly(), None)
    assert resolved.names == ["@src/app.py", "@src/long.py"]
    assert resolved.lines[:4] == ["Mentioned file src/app.py:", "```", "print('hi')\n", "```"]
    assert resolved.lines[4:8] == ["Mentioned file src/long.py:", "```", "x" * 20, "```"]
    assert resolved.lines[8] == (
        "[src/long.py was cut at 20 characters (setting workspaceAgent.context.maxChars); "
        "read the file for the rest.]"
    )


async def test_a_folder_is_listed(root: Path):
    (root / "docs" / "img").mkdir()
    resolved = await resolve("@docs/", root, 1000, DiskOnly(), None)
    assert resolved.lines == ["Mentioned folder docs/ (2 entries):", "- guide.md", "- img/"]


async def test_an_image_file_is_attached_as_an_image(root: Path):
    (root / "shot.png").write_bytes(png(4, 4))
    resolved = await resolve("look at @shot.png", root, 1000, DiskOnly(), None)
    assert resolved.lines == ["Mentioned image shot.png: attached below."]
    assert [(i.media_type, i.width) for i in resolved.images] == [("image/png", 4)]


@pytest.mark.parametrize(
    ("prompt", "message"),
    [
        ("@src/nope.py", "@src/nope.py: there is no file or folder 'src/nope.py' in the workspace"),
        ("@../outside.txt", "@../outside.txt: path '../outside.txt' is outside the workspace"),
        ("@problems", "@problems: this front end does not report the editor's problems"),
        ("@diff", "@diff: the workspace is not a git repository"),
    ],
)
async def test_what_cannot_be_resolved_refuses_the_prompt(root: Path, prompt: str, message: str):
    with pytest.raises(PromptRefused) as caught:
        await resolve(prompt, root, 1000, DiskOnly(), None)
    assert str(caught.value).startswith(message)


async def test_problems_come_from_the_front_end(root: Path):
    problem = ContextDiagnostic("src/app.py", Span(0, 0, 0, 5), "undefined name", 1, "lint")

    async def reported() -> list[ContextDiagnostic]:
        return [problem]

    resolved = await resolve("@problems", root, 1000, DiskOnly(), reported)
    assert resolved.lines == [
        "Problems the editor reports in the workspace (1):",
        "- src/app.py:1:1 error: undefined name [lint]",
    ]


async def test_diff_is_the_working_trees_against_head(root: Path):
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)

    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    (root / "src" / "app.py").write_text("print('bye')\n")
    resolved = await resolve("@diff", root, 1000, DiskOnly(), None)
    assert resolved.lines[0] == "The working tree's git diff against HEAD:"
    assert resolved.lines[1] == "```diff"
    assert "-print('hi')\n+print('bye')" in resolved.lines[2]
