"""Character portraits as uploaded files: checked, decoded within bounds, and re-encoded before they are kept.

An upload is refused unless it is a PNG, JPEG or WebP of at most `MAX_BYTES` whose header declares at most
`MAX_PIXELS` pixels, a shape no longer than `MAX_ASPECT` to 1, and a picture whose decoding holds at most
`MAX_DECODE_BYTES` in memory (`decode_bytes`: what the decoder, the decoded picture and its copies take, counted from
their modes, not from the file's bits per pixel); the header is read before any pixel is decoded, so a small file that
declares a huge image (a decompression bomb) is refused without the memory it asks for. What is kept is a new WebP
drawn from the decoded pixels alone: the first frame, scaled to fit `FIT` x `FIT`, turned upright as its EXIF
orientation says, with no metadata (EXIF, GPS, ICC profile, text chunks) carried over.
"""

from __future__ import annotations

import io
import math
import struct
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from PIL import Image, ImageOps
from PIL.JpegImagePlugin import JpegImageFile

MAX_BYTES = 1024 * 1024  # 1 MB
MAX_PIXELS = 4096 * 4096  # what a portrait's header may declare: 16 megapixels
MAX_ASPECT = 20  # a portrait's long side is at most this many times its short side
MAX_DECODE_BYTES = 100 * MAX_BYTES  # what decoding one portrait may hold in memory at once
FIT = 512  # the kept image fits within FIT x FIT pixels
ROW_BYTES = 8  # Pillow keeps a pointer to every row of an image: 128 MB for a picture 1 pixel wide and 16 million tall
RESIZE_BYTES = 16 * FIT * FIT * 4  # the smaller copies shrinking makes: at most 4 FIT x 4 FIT pixels of 4 bytes
WEBP_DECODER_BYTES = 12  # a pixel: libwebp's two 4-byte canvases and Pillow's copy of the frame
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


def pixel_bytes(mode: str) -> int:
    """What a pixel of `mode` takes in Pillow's memory: 1 byte for 1 (a byte per pixel, not a bit), L and P; 2 for
    16-bit grey (I;16…); 4 for every other mode, RGB included (padded to 4)."""
    if mode in ("1", "L", "P"):
        return 1
    if mode.startswith("I;16"):
        return 2
    return 4


def decode_bytes(width: int, height: int, mode: str, *, alpha: bool, decoder: int = 0) -> int:
    """The most memory `reencode` holds at once for a picture that decodes to `width` x `height` pixels of `mode`:
    `decoder` bytes of the decoder's own (`jpeg_coefficient_bytes`, `WEBP_DECODER_BYTES`), the decoded picture, its
    copy in RGB (RGBA with `alpha`) when `mode` is another, with `alpha` the premultiplied copy resizing makes, a row
    table for each of these, and `RESIZE_BYTES` for the smaller copies, all counted as if each stayed to the end."""
    working = "RGBA" if alpha else "RGB"
    modes = [mode] + ([working] if mode != working else []) + (["RGBa"] if alpha else [])
    return decoder + height * sum(width * pixel_bytes(m) + ROW_BYTES for m in modes) + RESIZE_BYTES


def jpeg_coefficient_bytes(width: int, height: int, sampling: Sequence[tuple[int, int]]) -> int:
    """What libjpeg holds for a JPEG of `width` x `height` pixels whose components are sampled (horizontally,
    vertically) as `sampling` says, when the file has more than one scan (as a progressive JPEG has): every
    coefficient of the whole picture, 64 of 2 bytes per 8 x 8 block of each component, in whole MCUs, whatever size
    the picture is decoded at. The header does not tell whether a file has one scan, so every JPEG is counted so."""
    across = max(h for h, _ in sampling)
    down = max(v for _, v in sampling)
    mcus = math.ceil(width / (8 * across)) * math.ceil(height / (8 * down))
    return 128 * mcus * sum(h * v for h, v in sampling)


def _decoder_bytes(opened: Image.Image, width: int, height: int) -> int:
    """What `opened`'s decoder holds beside the decoded picture, for a file of `width` x `height` pixels."""
    if isinstance(opened, JpegImageFile):
        return jpeg_coefficient_bytes(width, height, [(h, v) for _, h, v, _ in opened.layer])
    if opened.format == "WEBP":
        return WEBP_DECODER_BYTES * width * height
    return 0


def _check_shape(name: str, width: int, height: int) -> None:
    """Refuse a picture with more than MAX_PIXELS pixels, or one more than MAX_ASPECT times as long one way as the
    other: a thin picture costs rows without pixels, and shows nothing as a portrait."""
    if width * height > MAX_PIXELS:
        raise _too_many_pixels(name, f"{width} x {height}")
    if max(width, height) > MAX_ASPECT * min(width, height):
        shape = "tall as it is wide" if height > width else "wide as it is tall"
        raise PortraitRefused(
            422,
            "portrait/too_thin",
            f"the {name} is {width} x {height} pixels, more than {MAX_ASPECT} times as {shape}, and a portrait may "
            f"be at most {MAX_ASPECT} times as long one way as the other. Tip: crop it to what the portrait should "
            "show and upload that",
        )


def _check_memory(name: str, opened: Image.Image, width: int, height: int) -> bool:
    """Whether the picture has transparency; refused when decoding it would hold more than MAX_DECODE_BYTES."""
    alpha = opened.has_transparency_data
    needed = decode_bytes(*opened.size, opened.mode, alpha=alpha, decoder=_decoder_bytes(opened, width, height))
    if needed > MAX_DECODE_BYTES:
        raise PortraitRefused(
            422,
            "portrait/too_much_memory",
            f"the {name} is {width} x {height} pixels{' with transparency' if alpha else ''}; reading it would take "
            f"{math.ceil(needed * 10 / MAX_BYTES) / 10} MB of memory, more than the {MAX_DECODE_BYTES // MAX_BYTES} MB "
            f"a portrait may take. Tip: scale it down (to {FIT} x {FIT}, say) and upload it again",
        )
    return alpha


def reencode(data: bytes, slot: Callable[[], AbstractContextManager[object]] = nullcontext) -> Reencoded:
    """The portrait to keep for an uploaded file, decoded within `slot()` (what limits how many decodes run at once),
    which is entered only once the header has passed every check. Raises PortraitRefused: 413 for a file over
    MAX_BYTES, 415 for one that is not a PNG, JPEG or WebP, 422 for one that declares more than MAX_PIXELS pixels, is
    too thin, would take more than MAX_DECODE_BYTES to decode, or cannot be decoded; and whatever `slot()` raises."""
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
        _check_shape(name, width, height)
        opened.draft("RGB", (FIT, FIT))  # a JPEG decodes at a fraction of its size when that is enough
        alpha = _check_memory(name, opened, width, height)
        try:
            with slot():  # the memory counted is taken from here
                opened.load()
                working = "RGBA" if alpha else "RGB"
                pixels = opened if opened.mode == working else opened.convert(working)
                pixels.thumbnail((FIT, FIT), Image.Resampling.LANCZOS)
                ImageOps.exif_transpose(pixels, in_place=True)  # once small: turning it costs nothing
                clean = Image.frombytes(pixels.mode, pixels.size, pixels.tobytes())  # the pixels alone, no metadata
        except BROKEN:
            raise PortraitRefused(
                422,
                "portrait/unreadable",
                f"the file is not a whole {name} image (its header is one, but its picture is cut short or damaged). "
                "Tip: open it in an image editor, save it again and upload that",
            ) from None
    out = io.BytesIO()
    clean.save(out, "WEBP", quality=QUALITY, method=4)
    return Reencoded(out.getvalue(), MEDIA_TYPE, clean.width, clean.height)
