"""`workspace-agent run` with more than text, as a terminal user runs it: `--image`
(repeatable) reaches the model as image blocks; a file that is not an image, and a
mention that cannot be resolved, stop before any model call with a message and exit 2;
an @-mention is resolved into the model's context block."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

from tests.support.cli import CLI, cli_env
from tests.support.images import b64, gif, png


def run_cli(
    model: ScriptedModelServer, workspace: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "run", *args, "--workspace", str(workspace)],
        env=cli_env(model),
        capture_output=True,
        text=True,
        timeout=60,
    )


def first_message(model: ScriptedModelServer) -> list[dict[str, Any]]:
    content = model.requests[0].body["messages"][0]["content"]
    return [{k: v for k, v in block.items() if k != "cache_control"} for block in content]


def test_images_go_to_the_model_with_the_task(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    model.load(script_of(reply(text("A red square and a GIF."))))
    (tmp_path / "shot.png").write_bytes(png(3, 3))
    (tmp_path / "anim.gif").write_bytes(gif(2, 2))

    done = run_cli(
        model,
        workspace,
        "--image",
        str(tmp_path / "shot.png"),
        "--image",
        str(tmp_path / "anim.gif"),
        "What are these?",
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "▶ What are these?\n  with image png 3x3, image gif 2x2\n" in done.stdout
    assert first_message(model) == [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": b64(png(3, 3))},
        },
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/gif", "data": b64(gif(2, 2))},
        },
        {"type": "text", "text": "What are these?"},
    ]


def test_a_file_that_is_not_an_image_stops_before_the_run(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "cut.png").write_bytes(png()[:30])

    not_image = run_cli(model, workspace, "--image", str(tmp_path / "notes.txt"), "Look")
    cut = run_cli(model, workspace, "--image", str(tmp_path / "cut.png"), "Look")
    missing = run_cli(model, workspace, "--image", str(tmp_path / "gone.png"), "Look")

    assert not_image.returncode == 2
    assert f"--image {tmp_path / 'notes.txt'} is not a PNG, JPEG, GIF or WebP image" in (
        not_image.stdout
    )
    assert cut.returncode == 2 and "looks like a PNG image but is corrupt" in cut.stdout
    assert missing.returncode == 2
    assert f"--image {tmp_path / 'gone.png'}: No such file or directory" in missing.stdout
    assert model.requests == []


def test_a_mention_is_resolved_and_a_missing_one_refused(
    model: ScriptedModelServer, workspace: Path
):
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("A = 1\n")
    model.load(script_of(reply(text("Read it."))))

    refused = run_cli(model, workspace, "Fix @src/app.pyy")
    assert refused.returncode == 2
    assert "workspace-agent: @src/app.pyy: there is no file or folder 'src/app.pyy'" in (
        refused.stdout
    )
    assert model.requests == []

    problems = run_cli(model, workspace, "Fix @problems")
    assert problems.returncode == 2
    assert "@problems: this front end does not report the editor's problems" in problems.stdout
    assert model.requests == []

    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / "new.txt").write_text("fresh\n")
    subprocess.run(["git", "-C", str(workspace), "add", "new.txt"], check=True)
    task = "Explain @src/app.py and @src/ and @diff to ann@example.com"
    done = run_cli(model, workspace, task)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "  with @src/app.py, @src/, @diff\n" in done.stdout
    context, sent = first_message(model)
    assert sent == {"type": "text", "text": task}
    assert "Mentioned file src/app.py:\n```\nA = 1\n\n```" in context["text"]
    assert "Mentioned folder src/ (1 entry):\n- app.py" in context["text"]
    assert "The working tree's git diff (no commit yet):\n```diff\n" in context["text"]
    assert "+fresh" in context["text"]
