"""A `session/prompt`'s content blocks as the text prompt the core takes.

Text is taken as it is; a link to a file (`resource_link`, what @-mentions send) becomes
its path relative to the workspace, which the model can read with read_file; an embedded
text resource (`embeddedContext`) is included in a <context> block. Images, audio and
binary resources are refused: the agent does not advertise them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp.schema import (
    EmbeddedResourceContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)


class PromptError(ValueError):
    """Content the agent cannot take; the message says which."""


def prompt_text(blocks: list[Any], root: Path) -> str:
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(f"`{_shown(block.uri, root)}`")
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if not isinstance(resource, TextResourceContents):
                raise PromptError(f"binary resources are not supported ({resource.uri})")
            parts.append(
                f'\n<context source="{_shown(resource.uri, root)}">\n{resource.text}\n</context>\n'
            )
        else:
            kind = getattr(block, "type", type(block).__name__)
            raise PromptError(
                f"{kind} content is not supported: this agent takes text, links to files and "
                "embedded text resources"
            )
    return "".join(parts)


def _shown(uri: str, root: Path) -> str:
    """A file: URI inside the workspace as a relative path; anything else as it is."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    path = Path(unquote(parsed.path))
    try:
        return path.relative_to(root).as_posix() or "."
    except ValueError:
        return str(path)
