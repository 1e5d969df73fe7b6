"""A fetched body as text the model can read: HTML as Markdown (markdownify over
BeautifulSoup's tree, scripts and styles dropped), a PDF's text page by page (pypdf),
other text as it is. The libraries are imported on the first page of their kind only.
"""

from __future__ import annotations

import io

from ..shared.errors import ToolError

TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript")


def kind_of(content_type: str, body: bytes, url: str) -> str:
    """`html`, `pdf`, `text` or `binary`, from the header and a sniff of the body."""
    media = content_type.split(";", 1)[0].strip().lower()
    head = body[:512].lstrip().lower()
    if media == "application/pdf" or body.startswith(b"%PDF-"):
        return "pdf"
    if media in ("text/html", "application/xhtml+xml") or head.startswith(
        (b"<!doctype html", b"<html")
    ):
        return "html"
    if media.startswith(TEXT_TYPES) or media.endswith(("+json", "+xml")):
        return "text"
    if not media and b"\0" not in body[:4096]:
        return "text"
    return "binary"


def charset_of(content_type: str) -> str:
    for part in content_type.split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip('"')
    return "utf-8"


def to_text(kind: str, body: bytes, content_type: str) -> str:
    if kind == "pdf":
        return pdf_text(body)
    text = body.decode(_known(charset_of(content_type)), "replace")
    return html_markdown(text) if kind == "html" else text


def html_markdown(html: str) -> str:
    """The page as Markdown: its title, headings as `#`, links kept; scripts, styles,
    forms and the head's other contents out."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup(["head", "script", "style", "noscript", "template", "iframe", "svg", "form"]):
        tag.decompose()
    markdown = MarkdownConverter(heading_style="ATX").convert_soup(soup)
    lines = [line.rstrip() for line in markdown.splitlines()]
    out: list[str] = [f"Title: {title}", ""] if title else []
    for line in lines:  # no runs of blank lines (layout tables leave many)
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


def pdf_text(body: bytes) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(body))
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError) as exc:
        raise ToolError(f"the PDF could not be read: {exc}") from None
    return "\n\n".join(f"[page {n}]\n{text.strip()}" for n, text in enumerate(pages, 1))


def _known(charset: str) -> str:
    try:
        "".encode(charset)
    except LookupError:
        return "utf-8"
    return charset
