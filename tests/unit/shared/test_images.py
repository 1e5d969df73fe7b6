"""shared/images.py: the type from the bytes, the size from the header, and the API's
limits as clear refusals."""

from __future__ import annotations

import pytest

from workspace_agent.shared import images
from workspace_agent.shared.images import ImageError

from tests.support.images import b64, gif, jpeg, png, webp


@pytest.mark.parametrize(
    ("raw", "media_type", "size"),
    [
        (png(3, 2), "image/png", (3, 2)),
        (gif(2, 5), "image/gif", (2, 5)),
        (jpeg(4, 3), "image/jpeg", (4, 3)),
        (webp(5, 7), "image/webp", (5, 7)),
    ],
)
def test_each_type_is_known_by_its_bytes_and_sized(
    raw: bytes, media_type: str, size: tuple[int, int]
):
    image = images.checked(raw, "shot")
    assert (image.media_type, image.width, image.height) == (media_type, *size)
    assert image.block() == {
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": b64(raw)},
    }
    assert image.record() == {
        "mediaType": media_type,
        "width": size[0],
        "height": size[1],
        "bytes": len(raw),
    }


def test_a_file_of_another_kind_is_refused():
    with pytest.raises(ImageError, match=r"notes.txt is not a PNG, JPEG, GIF or WebP image"):
        images.checked(b"hello, world", "notes.txt")


@pytest.mark.parametrize(
    "raw",
    [png()[:30], png()[:8] + b"\x00" * 40, jpeg()[:-2] + b"\x00\x00", b"\xff\xd8\xff\xe0xx"],
    ids=["png cut short", "png without a header", "jpeg without its end", "jpeg header only"],
)
def test_a_corrupt_image_says_so(raw: bytes):
    with pytest.raises(ImageError, match=r"shot.png looks like a .* image but is corrupt"):
        images.checked(raw, "shot.png")


def test_too_large_says_the_size_and_the_limit():
    raw = png()[:8] + b"\x00" * (4 * 1024 * 1024)  # 4 MB of bytes: 5.3 MB as base64
    with pytest.raises(ImageError) as caught:
        images.checked(raw, "big.png")
    assert str(caught.value) == (
        "big.png is too large for the model: 4.0 MB (5.3 MB as base64), the Messages API "
        "takes at most 5.0 MB per image; scale it down or crop it and try again"
    )


def test_more_than_8000_pixels_a_side_is_refused():
    with pytest.raises(ImageError, match=r"9000x10 pixels: the Messages API takes at most 8000"):
        images.checked(png(9000, 10), "wide.png")


def test_a_client_image_must_be_what_it_says():
    assert images.from_base64(b64(png()), "image/png", "image 1").width == 3
    with pytest.raises(ImageError, match=r"image 1 is said to be image/jpeg but its bytes are"):
        images.from_base64(b64(png()), "image/jpeg", "image 1")
    with pytest.raises(ImageError, match=r"image 2: its data is not valid base64"):
        images.from_base64("not base64!", "image/png", "image 2")
