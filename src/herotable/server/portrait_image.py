"""Character portraits as uploaded files: checked, decoded within bounds, and re-encoded before they are kept.

An upload is refused unless it is a PNG, JPEG or WebP of at most `MAX_BYTES` whose header declares at most
`MAX_PIXELS` pixels; the header is read before any pixel is decoded, so a small file that declares a huge image (a
decompression bomb) is refused without the memory it asks for. What is kept is a new WebP drawn from the decoded
pixels alone: the first frame, turned upright as its EXIF orientation says, scaled to fit `FIT` x `FIT`, with no
metadata (EXIF, GPS, ICC profile, text chunks) carried over.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass

from PIL import Image, ImageOps

MAX_BYTES = 1024 * 1024  # 1 MB
MAX_PIXELS = 4096 * 4096  # what a portrait's header may declare: 16 megapixels
FIT = 512  # the kept image fits within FIT x FIT pixels
MEDIA_TYPE = "image/webp"
QUALITY = 85
FORMATS = {"PNG": "PNG", "JPEG": "JPEG", "WEBP": "WebP"}  # Pillow's name → the name people know
TAKEN = "PNG, JPEG or WebP"  # FORMATS, in words
ACCEPT = "image/png,image/jpeg,image/webp"  # for the file input
BROKEN = (OSError, SyntaxError, ValueError, EOFError, struct.error)  # what Pillow raises for a file it cannot read


class PortraitRefused(ValueError):
    """An upload that cannot be a portrait; `status` is its HTTP status, `message` says what is wrong and how to fix
    it."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Reencoded:
    """A portrait as it is kept: the new image's bytes, its media type and its size in pixels."""

    image: bytes
    media_type: str
    width: int
    height: int


def _megabytes(size: int) -> str:
    return f"{size / MAX_BYTES:.1f} MB"


def _sniffed(data: bytes) -> str | None:
    """The format the file's first bytes name (PNG, JPEG, WEBP), or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    return None


def _too_many_pixels(name: str, declared: str) -> PortraitRefused:
    return PortraitRefused(
        422,
        "portrait/too_many_pixels",
        f"the {name} declares {declared} pixels, more than the {MAX_PIXELS / 1e6:.1f} million a portrait may have. "
        f"Tip: scale it down (to {FIT} x {FIT}, say) and upload it again",
    )


def reencode(data: bytes) -> Reencoded:
    """The portrait to keep for an uploaded file. Raises PortraitRefused: 413 for a file over MAX_BYTES, 415 for one
    that is not a PNG, JPEG or WebP, 422 for one that declares more than MAX_PIXELS pixels or cannot be decoded."""
    if len(data) > MAX_BYTES:
        raise PortraitRefused(
            413,
            "portrait/too_large",
            f"the file is {_megabytes(len(data))}; a portrait may be at most 1 MB. Tip: save it smaller (fewer "
            f"pixels, or as a JPEG or WebP); it is shown at most {FIT} x {FIT} pixels anyway",
        )
    if not data:
        raise PortraitRefused(415, "portrait/empty", f"no file was sent. Tip: choose a {TAKEN} image")
    kind = _sniffed(data)
    if kind is None:
        raise PortraitRefused(
            415,
            "portrait/not_an_image",
            f"the file is not a {TAKEN} image. Tip: save the picture in one of those formats and upload it again",
        )
    name = FORMATS[kind]
    try:
        opened = Image.open(io.BytesIO(data), formats=[kind])  # reads the header only
    except Image.DecompressionBombError:  # Pillow's own limit, far above ours, met while reading the header
        raise _too_many_pixels(name, "hundreds of millions of") from None
    except BROKEN:  # Pillow's words name its own insides (`<_io.BytesIO object at 0x…>`): ours say what is wrong
        raise PortraitRefused(
            422,
            "portrait/unreadable",
            f"the file is not a {TAKEN} image (it starts like a {name}, but its header is cut short or damaged). "
            f"Tip: open it in an image editor, save it as a {TAKEN} and upload that",
        ) from None
    with opened:
        width, height = opened.size
        if width * height > MAX_PIXELS:
            raise _too_many_pixels(name, f"{width} x {height}")
        try:
            opened.draft("RGB", (FIT, FIT))  # a JPEG decodes at a fraction of its size when that is enough
            opened.load()
            upright = ImageOps.exif_transpose(opened)
            mode = "RGBA" if upright.mode in ("RGBA", "LA", "PA") or "transparency" in upright.info else "RGB"
            pixels = upright.convert(mode)
        except BROKEN:
            raise PortraitRefused(
                422,
                "portrait/unreadable",
                f"the file is not a whole {name} image (its header is one, but its picture is cut short or damaged). "
                "Tip: open it in an image editor, save it again and upload that",
            ) from None
    pixels.thumbnail((FIT, FIT), Image.Resampling.LANCZOS)
    clean = Image.frombytes(pixels.mode, pixels.size, pixels.tobytes())  # the pixels alone, no metadata
    out = io.BytesIO()
    clean.save(out, "WEBP", quality=QUALITY, method=4)
    return Reencoded(out.getvalue(), MEDIA_TYPE, clean.width, clean.height)
