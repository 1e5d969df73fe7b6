"""What a prompt carries besides its text, prepared before the run starts: the images the
client sent and the prompt's @-mentions (mentions.py). Everything is checked here, so a
prompt that cannot be sent as it is (a corrupt image, a missing path) is refused with
PromptRefused before a session changes or the model is called.

In the user message the context block (with the mentions) comes first, then the images,
then the prompt: the order the Messages API's guide recommends for images. The session
keeps the images in its conversation (the model needs them in every later request of the
session); a transcript keeps one small record of each (`Image.record`), and the history
a copy of each to show again (workspaceAgent/historyImage).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..protocol import RunRequest
from ..shared import images
from ..shared.documents import Documents
from . import mentions
from .errors import PromptRefused


@dataclass
class PromptParts:
    mentioned: list[str] = field(default_factory=list)
    """Lines of the context block, from the mentions."""
    images: list[images.Image] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    """The mentions, `@src/app.py`, for the transcript."""
    said: str | None = None
    """What the user did, when the prompt is not their words (a plan's approval)."""

    def blocks(self) -> list[dict[str, Any]]:
        return [image.block() for image in self.images]

    def start_fields(self) -> dict[str, Any]:
        """The runStart event's `images` and `mentions` fields (absent when empty), and
        `imageData`, the images' base64 for the history (a transcript does not get it)."""
        fields: dict[str, Any] = mentions.names_field(self.names)
        if self.images:
            fields["images"] = [image.record() for image in self.images]
            fields["imageData"] = [image.data for image in self.images]
        if self.said:
            fields["said"] = self.said
        return fields


async def prepare(
    prompt: str,
    params: RunRequest,
    root: Path,
    max_chars: int,
    documents: Documents,
    problems: mentions.Problems | None,
) -> PromptParts:
    """The prompt's parts, or PromptRefused saying which part cannot be sent and why."""
    checked = []
    for number, image in enumerate(params.images, start=1):
        try:
            checked.append(images.from_base64(image.data, image.media_type, f"image {number}"))
        except images.ImageError as exc:
            raise PromptRefused(str(exc)) from None
    resolved = await mentions.resolve(
        prompt, root, max_chars, documents, problems, linked=params.linked
    )
    lines = resolved.lines
    for source, text in params.embedded:
        lines = [*lines, *mentions.file_lines(source, text, max_chars, "Attached")]
    return PromptParts(lines, [*resolved.images, *checked], resolved.names)
