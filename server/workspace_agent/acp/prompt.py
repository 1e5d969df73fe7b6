"""A `session/prompt`'s content blocks as what the core takes: the prompt's text, its
images, the files it links to and the texts it embeds.

Text is taken as it is. A link to a file (`resource_link`, what a client's @-mention
sends) stays in the text as its path relative to the workspace and is resolved as the
core resolves an @-mention (agent/mentions.py): the file's text, or a folder's listing,
in the prompt's context block; a link outside the workspace refuses the prompt. A link
that is not a file (`https:`) stays in the text only. An embedded text resource
(`embeddedContext`) goes in the context block, capped as a mentioned file is; an image
(`image`, or an embedded blob of an image type) goes to the model as an image. Audio and
other binary resources are refused: the agent does not advertise them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp.schema import (
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from ..protocol import PromptImage


class PromptError(ValueError):
    """Content the agent cannot take; the message says which."""


@dataclass
class AcpPrompt:
    text: str = ""
    images: list[PromptImage] = field(default_factory=list)
    linked: list[str] = field(default_factory=list)
    embedded: list[tuple[str, str]] = field(default_factory=list)


def read_prompt(blocks: list[Any], root: Path) -> AcpPrompt:
    prompt = AcpPrompt()
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ImageContentBlock):
            prompt.images.append(PromptImage(block.data, block.mime_type))
        elif isinstance(block, ResourceContentBlock):
            shown, is_file = _shown(block.uri, root)
            parts.append(f"`{shown}`")
            if is_file and shown not in prompt.linked:
                prompt.linked.append(shown)
        elif isinstance(block, EmbeddedResourceContentBlock):
            _embedded(block.resource, root, prompt)
        else:
            kind = getattr(block, "type", type(block).__name__)
            raise PromptError(
                f"{kind} content is not supported: this agent takes text, images, links to "
                "files and embedded text resources"
            )
    prompt.text = "".join(parts)
    return prompt


def _embedded(resource: Any, root: Path, prompt: AcpPrompt) -> None:
    shown = _shown(resource.uri, root)[0]
    if isinstance(resource, TextResourceContents):
        prompt.embedded.append((shown, resource.text))
    elif isinstance(resource, BlobResourceContents) and (resource.mime_type or "").startswith(
        "image/"
    ):
        prompt.images.append(PromptImage(resource.blob, resource.mime_type or ""))
    else:
        raise PromptError(f"binary resources other than images are not supported ({resource.uri})")


def _shown(uri: str, root: Path) -> tuple[str, bool]:
    """A file: URI inside the workspace as a relative path, outside it as an absolute one
    (True: it is a file URI); anything else as it is (False)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri, False
    path = Path(unquote(parsed.path))
    try:
        return path.relative_to(root).as_posix() or ".", True
    except ValueError:
        return str(path), True
