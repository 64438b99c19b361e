"""Character portraits: uploads checked and re-encoded with real Pillow-made images (PNG, JPEG, WebP; too large, a
decompression bomb, not an image), set and removed by the character's player or the GM only, served only to members
who may read the character's sheet, and gone with their character. A refused upload changes nothing."""

from __future__ import annotations

import io
import re
import struct
import zlib
from typing import Any

import pytest
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.server.limits import MAX_BODY_BYTES, PORTRAIT_BODY_BYTES
from herotable.server.pages import live_fragments
from herotable.server.portrait_image import (
    FIT,
    MAX_BYTES,
    MAX_PIXELS,
    PortraitRefused,
    decode_bytes,
    jpeg_coefficient_bytes,
    pixel_bytes,
    reencode,
)
from herotable.server.settings import Settings
from herotable.server.slots import Busy, Slots
from herotable.store import EventStore

from .clients import Member, anonymous, make_app, register, table

# --- images made by Pillow ---


def picture(kind: str, size: tuple[int, int] = (800, 600), mode: str = "RGB", **save: Any) -> bytes:
    """A real image of `kind` (PNG, JPEG, WEBP, GIF): a gradient, so it has pixels worth encoding."""
    image = Image.linear_gradient("L").resize(size).convert(mode)
    out = io.BytesIO()
    image.save(out, kind, **save)
    return out.getvalue()


def noise_png(side: int) -> bytes:
    """A PNG of random pixels, stored uncompressed: large for its size in pixels."""
    noisy = Image.effect_noise((side, side), 120).convert("RGB")
    out = io.BytesIO()
    noisy.save(out, "PNG", compress_level=0)
    return out.getvalue()


def png_declaring(width: int, height: int) -> bytes:
    """A small, well-formed PNG whose header declares `width` x `height` pixels: a decompression bomb's shape."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = zlib.compress(b"\x00" * 4096, 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


def png_1bit(width: int, height: int) -> bytes:
    """A well-formed PNG of `width` x `height` black pixels, one bit each: a few KB for millions of pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    rows = zlib.compress(b"\x00" * (1 + (width + 7) // 8) * height, 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


def webp_canvas(width: int, height: int) -> bytes:
    """A two-frame WebP of 16 x 16 pixels whose canvas is declared `width` x `height`: a few hundred bytes that
    libwebp decodes onto two canvases of the declared size."""
    frames = [Image.new("RGBA", (16, 16), (200, 30, 30, 128)), Image.new("RGBA", (16, 16), (30, 30, 200, 128))]
    out = io.BytesIO()
    frames[0].save(out, "WEBP", save_all=True, append_images=frames[1:])
    data = bytearray(out.getvalue())
    at = data.index(b"VP8X") + 8 + 4  # the canvas's width - 1 and height - 1, 3 bytes each
    data[at : at + 6] = (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return bytes(data)


def opened(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


# --- the checks, on their own ---


@pytest.mark.parametrize("kind", ["PNG", "JPEG", "WEBP"])
def test_a_png_jpeg_or_webp_is_kept_as_a_webp_that_fits_512_pixels(kind: str) -> None:
    made = reencode(picture(kind, (1200, 900)))
    kept = opened(made.image)
    assert (made.media_type, kept.format) == ("image/webp", "WEBP")
    assert (made.width, made.height) == kept.size == (FIT, FIT * 3 // 4)  # scaled down, its shape kept
    small = reencode(picture(kind, (120, 200)))
    assert (small.width, small.height) == (120, 200)  # never scaled up


def test_nothing_but_the_pixels_is_kept() -> None:
    exif = Image.Exif()
    exif[0x013B] = "Artist Secretname"  # Artist
    exif[0x010E] = "taken at 51.5N 0.1W, my house"  # ImageDescription
    jpeg = picture("JPEG", exif=exif.tobytes(), icc_profile=b"\x00" * 128, comment=b"a private comment")
    text = Image.new("RGB", (50, 50))
    info = PngInfo()
    info.add_text("Author", "Secretname")
    out = io.BytesIO()
    text.save(out, "PNG", pnginfo=info)
    for upload in (jpeg, out.getvalue()):
        assert b"Secretname" in upload
        made = reencode(upload)
        kept = opened(made.image)
        assert b"Secretname" not in made.image and b"my house" not in made.image and b"private" not in made.image
        assert not {"exif", "icc_profile", "xmp", "comment"} & set(kept.info)


def test_a_photo_is_turned_upright_as_its_camera_said() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: the camera was turned; the picture is shown rotated 90 degrees
    made = reencode(picture("JPEG", (300, 100), exif=exif.tobytes()))
    assert (made.width, made.height) == (100, 300)


def test_transparency_survives() -> None:
    image = Image.new("RGBA", (64, 64), (200, 30, 30, 255))
    image.paste((0, 0, 0, 0), (0, 0, 32, 64))  # the left half clear
    out = io.BytesIO()
    image.save(out, "PNG")
    kept = opened(reencode(out.getvalue()).image)
    assert kept.mode == "RGBA" and kept.getpixel((5, 5))[3] == 0 and kept.getpixel((60, 5))[3] == 255


def test_a_file_over_one_megabyte_is_refused() -> None:
    big = noise_png(640)
    assert len(big) > MAX_BYTES
    with pytest.raises(PortraitRefused) as refused:
        reencode(big)
    assert refused.value.status == 413 and refused.value.code == "portrait/too_large"
    assert "at most 1 MB" in refused.value.message and "Tip: save it smaller" in refused.value.message


@pytest.mark.parametrize(("width", "height"), [(4097, 4096), (30_000, 30_000), (1_000_000, 1_000_000)])
def test_a_decompression_bomb_is_refused_before_its_pixels_are_decoded(width: int, height: int) -> None:
    bomb = png_declaring(width, height)
    assert len(bomb) < 1024 and width * height > MAX_PIXELS
    with pytest.raises(PortraitRefused) as refused:
        reencode(bomb)
    assert refused.value.status == 422 and refused.value.code == "portrait/too_many_pixels"
    assert "Tip: scale it down" in refused.value.message


def test_the_most_pixels_a_portrait_may_declare_are_accepted() -> None:
    made = reencode(picture("PNG", (4096, 4096)))
    assert (made.width, made.height) == (FIT, FIT)


MiB = 1024 * 1024
RESIZING = 16 * MiB  # 16 x 512 x 512 pixels of 4 bytes: the smaller copies shrinking to 512 x 512 makes


def test_a_pixel_takes_the_bytes_of_the_mode_pillow_holds_it_in() -> None:
    assert [pixel_bytes(m) for m in ("1", "L", "P", "I;16", "I;16B", "LA", "RGB", "RGBA", "CMYK", "I")] == [
        *(1, 1, 1),  # a 1-bit picture takes a byte a pixel once decoded
        *(2, 2),
        *(4, 4, 4, 4, 4),  # RGB is padded to 4 bytes
    ]


@pytest.mark.parametrize(
    ("size", "mode", "alpha", "decoder", "expected"),
    [
        # decoded RGB, kept as it is: one picture of 4 bytes a pixel and its row table (8 bytes a row)
        ((4096, 4096), "RGB", False, 0, 4096 * (4096 * 4 + 8) + RESIZING),
        # a 1-bit PNG decodes to a byte a pixel, and its RGB copy takes 4 more
        ((4096, 4096), "1", False, 0, 4096 * (4096 * (1 + 4) + 2 * 8) + RESIZING),
        # a palette with transparency: the palette picture, its RGBA copy and resizing's premultiplied copy
        ((4096, 4096), "P", True, 0, 4096 * (4096 * (1 + 4 + 4) + 3 * 8) + RESIZING),
        ((4096, 4096), "RGBA", True, 0, 4096 * (4096 * (4 + 4) + 2 * 8) + RESIZING),
        ((3000, 3000), "I;16", False, 0, 3000 * (3000 * (2 + 4) + 2 * 8) + RESIZING),
        # the attack: 32 KB of PNG, 1 x 16,777,216 one-bit pixels; the rows cost far more than the pixels
        ((1, 16_777_216), "1", False, 0, 16_777_216 * (1 + 8 + 4 + 8) + RESIZING),  # 352 MB
        # a WebP: libwebp's two canvases and Pillow's copy of the frame, 12 bytes a pixel, before the picture
        ((2048, 2048), "RGBA", True, 12 * 2048 * 2048, 2048 * 2048 * 12 + 2048 * (2048 * 8 + 2 * 8) + RESIZING),
    ],
)
def test_what_decoding_holds_is_counted_from_its_modes_not_its_file(
    size: tuple[int, int], mode: str, alpha: bool, decoder: int, expected: int
) -> None:
    assert decode_bytes(*size, mode, alpha=alpha, decoder=decoder) == expected


def test_what_libjpeg_holds_is_every_coefficient_of_the_whole_picture() -> None:
    """64 coefficients of 2 bytes per 8 x 8 block of each component, in whole MCUs."""
    subsampled = [(2, 2), (1, 1), (1, 1)]  # 4:2:0: an MCU of 16 x 16 pixels holds 4 + 1 + 1 blocks
    assert jpeg_coefficient_bytes(4096, 4096, subsampled) == 256 * 256 * 6 * 128 == 48 * MiB
    assert jpeg_coefficient_bytes(4097, 4096, subsampled) == 257 * 256 * 6 * 128  # a ragged edge takes a whole MCU
    assert jpeg_coefficient_bytes(4096, 4096, [(1, 1)] * 3) == 512 * 512 * 3 * 128 == 96 * MiB  # 4:4:4
    assert jpeg_coefficient_bytes(4096, 4096, [(1, 1)] * 4) == 128 * MiB  # CMYK
    assert jpeg_coefficient_bytes(4096, 4096, [(1, 1)]) == 32 * MiB  # grey


def test_a_tall_thin_picture_is_refused_before_it_is_decoded() -> None:
    """The attack: a 32 KB PNG of 1 x 16,777,216 one-bit pixels, within the pixel limit, took 480 MB to decode."""
    thin = png_1bit(1, 16_777_216)
    assert len(thin) < 64 * 1024
    with pytest.raises(PortraitRefused) as refused:
        reencode(thin)
    assert (refused.value.status, refused.value.code) == (422, "portrait/too_thin")
    assert refused.value.message == (
        "the PNG is 1 x 16777216 pixels, more than 20 times as tall as it is wide, and a portrait may be at most 20 "
        "times as long one way as the other. Tip: crop it to what the portrait should show and upload that"
    )


def test_a_portrait_may_be_twenty_times_as_long_one_way_as_the_other() -> None:
    assert (reencode(picture("PNG", (40, 800))).width, reencode(picture("PNG", (800, 40))).height) == (26, 26)
    for size, words in (((40, 801), "more than 20 times as tall as it is wide"), ((801, 40), "as wide as it is tall")):
        with pytest.raises(PortraitRefused) as refused:
            reencode(picture("PNG", size))
        assert refused.value.code == "portrait/too_thin" and words in refused.value.message


def test_a_picture_just_within_the_memory_budget_is_kept_and_one_pixel_more_is_refused() -> None:
    """RGBA: the picture and resizing's premultiplied copy, 8 bytes a pixel and 16 bytes a row, and 16 MB for the
    smaller copies, within 100 MB: 3317 x 3317 pixels fit, 3318 x 3318 do not."""
    assert decode_bytes(3317, 3317, "RGBA", alpha=True) == 3317 * (3317 * 8 + 16) + RESIZING == 104_850_200
    assert decode_bytes(3318, 3318, "RGBA", alpha=True) == 104_903_296
    assert 104_850_200 <= 100 * MiB < 104_903_296
    made = reencode(picture("PNG", (3317, 3317), "RGBA", compress_level=1))
    assert (made.width, made.height) == (FIT, FIT)
    with pytest.raises(PortraitRefused) as refused:
        reencode(picture("PNG", (3318, 3318), "RGBA", compress_level=1))
    assert (refused.value.status, refused.value.code) == (422, "portrait/too_much_memory")
    assert refused.value.message == (
        "the PNG is 3318 x 3318 pixels with transparency; reading it would take 100.1 MB of memory, more than the "
        "100 MB a portrait may take. Tip: scale it down (to 512 x 512, say) and upload it again"
    )


def test_a_small_webp_on_a_large_canvas_is_refused_before_it_is_decoded() -> None:
    """A few hundred bytes declaring a 4096 x 4096 canvas took 390 MB: libwebp's canvases, counted, are too many."""
    bomb = webp_canvas(4096, 4096)
    assert len(bomb) < 1024
    with pytest.raises(PortraitRefused) as refused:
        reencode(bomb)
    assert refused.value.code == "portrait/too_much_memory"
    assert "the WebP is 4096 x 4096 pixels with transparency; reading it would take 336.1 MB" in refused.value.message


def test_a_progressive_jpeg_is_counted_at_its_full_size() -> None:
    """libjpeg holds a progressive file's coefficients at full size, though the picture is decoded at an eighth."""
    jpeg = picture("JPEG", (4096, 4096), "CMYK", progressive=True)
    with pytest.raises(PortraitRefused) as refused:
        reencode(jpeg)
    assert refused.value.code == "portrait/too_much_memory" and "4096 x 4096 pixels;" in refused.value.message
    kept = reencode(picture("JPEG", (4096, 4096), progressive=True))  # 4:2:0 colour: 48 MB of coefficients
    assert (kept.width, kept.height) == (FIT, FIT)


@pytest.mark.parametrize(
    ("upload", "status", "code"),
    [
        (b"", 415, "portrait/empty"),
        (b"just some text, not a picture", 415, "portrait/not_an_image"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'></svg>", 415, "portrait/not_an_image"),
        (picture("GIF", (40, 40)), 415, "portrait/not_an_image"),
        (picture("BMP", (40, 40)), 415, "portrait/not_an_image"),
        (picture("PNG", (400, 400))[:300], 422, "portrait/unreadable"),  # cut short
        (b"\xff\xd8\xff" + b"\x00" * 100, 422, "portrait/unreadable"),  # starts like a JPEG, is none
    ],
)
def test_what_is_not_a_png_jpeg_or_webp_is_refused_saying_so(upload: bytes, status: int, code: str) -> None:
    with pytest.raises(PortraitRefused) as refused:
        reencode(upload)
    assert (refused.value.status, refused.value.code) == (status, code)
    assert "Tip:" in refused.value.message


PYTHON_INSIDES = re.compile(r"<[^>]*>|0x[0-9a-f]{4,}|_io\b|BytesIO|object at", re.IGNORECASE)


@pytest.mark.parametrize(
    ("upload", "name"),
    [
        pytest.param(picture("PNG", (400, 400))[:8], "PNG", id="png-signature-alone"),
        pytest.param(picture("PNG", (400, 400))[:40], "PNG", id="png-header-cut-short"),
        pytest.param(b"\xff\xd8\xff" + b"\x00" * 100, "JPEG", id="jpeg-start-then-zeros"),
        pytest.param(b"RIFF\x00\x00\x00\x00WEBP" + b"\x00" * 50, "WebP", id="webp-start-then-zeros"),
        pytest.param(picture("WEBP", (400, 400))[:12], "WebP", id="webp-riff-header-alone"),
    ],
)
def test_a_file_that_only_starts_like_an_image_is_refused_in_words(upload: bytes, name: str) -> None:
    """Pillow cannot even read the header: the refusal says what the file is not, never Pillow's
    'cannot identify image file <_io.BytesIO object at 0x…>'."""
    with pytest.raises(PortraitRefused) as refused:
        reencode(upload)
    message = refused.value.message
    assert (refused.value.status, refused.value.code) == (422, "portrait/unreadable")
    assert message.startswith(f"the file is not a PNG, JPEG or WebP image (it starts like a {name}"), message
    assert "Tip:" in message and not PYTHON_INSIDES.search(message), message


@pytest.mark.parametrize(
    "upload",
    [
        pytest.param(picture("PNG", (400, 400))[:300], id="png"),
        pytest.param(picture("JPEG", (400, 400))[:100], id="jpeg-in-its-tables"),
        pytest.param(picture("JPEG", (400, 400))[:2000], id="jpeg-in-its-pixels"),
        pytest.param(picture("WEBP", (400, 400))[:100], id="webp"),
    ],
)
def test_a_picture_cut_short_is_refused_in_words(upload: bytes) -> None:
    with pytest.raises(PortraitRefused) as refused:
        reencode(upload)
    message = refused.value.message
    assert (refused.value.status, refused.value.code) == (422, "portrait/unreadable")
    assert "cut short or damaged" in message and "Tip:" in message and not PYTHON_INSIDES.search(message), message


# --- on the web ---


@pytest.fixture
def app() -> Any:
    return make_app()


@pytest.fixture
def campaign(app: Any) -> tuple[str, dict[str, Member]]:
    return with_heroes(app)


def with_heroes(app: Any) -> tuple[str, dict[str, Member]]:
    """Pat's hero Captain Comet and the GM's hidden villain Doctor Entropy, in a campaign with Sam and Sly."""
    cid, m = table(app)
    assert m["pat"].command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET).status_code == 200
    made = m["gm"].command(
        cid, type="character.create_ltl", character="entropy", sheet=DOCTOR_ENTROPY, npc=True, hidden=True
    )
    assert made.status_code == 200, made.text
    return cid, m


def store_of(app: Any) -> EventStore:
    store: EventStore = app.state.services.table.store
    return store


def upload(who: Member, cid: str, character: str, data: bytes, name: str = "face.png") -> Any:
    return who.client.post(
        f"/campaigns/{cid}/portraits/{character}",
        data={"csrf_token": who.csrf},
        files={"portrait": (name, data, "application/octet-stream")},
        follow_redirects=False,
    )


def remove(who: Member, cid: str, character: str) -> Any:
    return who.client.post(
        f"/campaigns/{cid}/portraits/{character}/remove", data={"csrf_token": who.csrf}, follow_redirects=False
    )


def test_a_player_sets_their_heros_portrait_and_every_member_sees_it(app: Any, campaign: Any) -> None:
    cid, m = campaign
    edit = m["pat"].get(f"/campaigns/{cid}/characters/comet/edit").text
    assert 'enctype="multipart/form-data"' in edit and 'accept="image/png,image/jpeg,image/webp"' in edit
    assert "No portrait yet." in edit
    answer = upload(m["pat"], cid, "comet", picture("JPEG", (1024, 768)), "comet.jpg")
    assert answer.status_code == 303 and answer.headers["location"].endswith("/characters/comet/edit#portrait")
    kept = store_of(app).portrait(cid, "comet")
    assert kept is not None and (kept.width, kept.height, kept.set_by) == (512, 384, m["pat"].user_id)
    for who in ("gm", "pat", "sam", "sly"):
        page = m[who].get(f"/campaigns/{cid}/table").text
        src = f'src="/campaigns/{cid}/portraits/comet?v={kept.digest[:16]}"'
        assert f'<img class="portrait-thumb" {src} alt="Portrait of Captain Comet"' in page, who
        image = m[who].get(f"/campaigns/{cid}/portraits/comet?v={kept.digest[:16]}")
        assert image.status_code == 200 and image.content == kept.image
        assert image.headers["content-type"] == "image/webp"
        assert image.headers["cache-control"] == "private, max-age=3600"
        assert image.headers["etag"] == f'"{kept.digest}"'
        assert image.headers["x-content-type-options"] == "nosniff"
        assert "img-src 'self'" in image.headers["content-security-policy"]
    again = m["sam"].client.get(f"/campaigns/{cid}/portraits/comet", headers={"If-None-Match": f'"{kept.digest}"'})
    assert again.status_code == 304 and not again.content
    stale = m["sam"].get(f"/campaigns/{cid}/portraits/comet?v=0000000000000000")
    assert stale.status_code == 200 and stale.headers["cache-control"] == "private, no-cache"
    assert '<img class="portrait" src="' in m["pat"].get(f"/campaigns/{cid}/characters/comet/edit").text
    # a new portrait replaces it, under a new address; removing it leaves none
    assert upload(m["pat"], cid, "comet", picture("PNG", (200, 200))).status_code == 303
    newer = store_of(app).portrait(cid, "comet")
    assert newer is not None and newer.digest != kept.digest and (newer.width, newer.height) == (200, 200)
    assert remove(m["pat"], cid, "comet").status_code == 303
    assert store_of(app).portrait(cid, "comet") is None
    assert m["sam"].get(f"/campaigns/{cid}/portraits/comet").status_code == 404
    assert "portrait-thumb" not in m["sam"].get(f"/campaigns/{cid}/table").text


def test_the_gm_may_set_and_remove_any_characters_portrait(app: Any, campaign: Any) -> None:
    cid, m = campaign
    assert upload(m["gm"], cid, "comet", picture("WEBP", (300, 300))).status_code == 303
    kept = store_of(app).portrait(cid, "comet")
    assert kept is not None and kept.set_by == m["gm"].user_id
    assert remove(m["gm"], cid, "comet").status_code == 303
    assert store_of(app).portrait(cid, "comet") is None


def test_other_players_spectators_and_strangers_may_not_change_a_portrait(app: Any, campaign: Any) -> None:
    cid, m = campaign
    assert upload(m["pat"], cid, "comet", picture("PNG")).status_code == 303
    kept = store_of(app).portrait(cid, "comet")
    outsider = register(app, "olga")
    for who, words in (
        (m["sam"], "Captain Comet is not your character"),
        (m["sly"], "spectators watch"),
        (outsider, "not a member of this campaign"),
    ):
        answer = upload(who, cid, "comet", picture("PNG", (64, 64)))
        assert answer.status_code == 403 and words in answer.text, answer.text
        assert remove(who, cid, "comet").status_code == 403
        assert who.get(f"/campaigns/{cid}/characters/comet/edit").text.count('id="portrait-form"') == 0
    assert store_of(app).portrait(cid, "comet") == kept
    # without the session's CSRF token nothing happens either
    forged = m["pat"].client.post(
        f"/campaigns/{cid}/portraits/comet", files={"portrait": ("x.png", picture("PNG", (64, 64)), "image/png")}
    )
    assert forged.status_code == 403 and store_of(app).portrait(cid, "comet") == kept


def test_a_hidden_characters_portrait_is_never_served_to_whom_its_sheet_is_secret(app: Any, campaign: Any) -> None:
    cid, m = campaign
    assert upload(m["pat"], cid, "entropy", picture("PNG")).status_code == 403  # not Pat's to change
    assert upload(m["gm"], cid, "entropy", picture("PNG")).status_code == 303
    kept = store_of(app).portrait(cid, "entropy")
    assert kept is not None
    address = f"/campaigns/{cid}/portraits/entropy?v={kept.digest[:16]}"
    assert m["gm"].get(address).content == kept.image
    assert f'src="{address}"' in m["gm"].get(f"/campaigns/{cid}/table").text
    for who in ("pat", "sam", "sly"):
        refused = m[who].get(address)
        assert refused.status_code == 404 and kept.image not in refused.content
        assert m[who].get(f"/campaigns/{cid}/portraits/nobody").status_code == 404  # the same answer as no portrait
        assert "portraits/entropy" not in m[who].get(f"/campaigns/{cid}/table").text
    state = app.state.services.table.state(cid)
    digests = store_of(app).portrait_digests(cid)
    assert "portraits/entropy" in live_fragments(state, m["gm"].user_id, digests)
    assert "portraits/entropy" not in live_fragments(state, m["pat"].user_id, digests)  # nor in a live frame
    assert anonymous(app).get(address, follow_redirects=False).status_code == 303  # to the login page


@pytest.mark.parametrize(
    ("data", "status", "words"),
    [
        (noise_png(593), 413, "a portrait may be at most 1 MB"),  # just over 1 MB: the route's own refusal
        (png_declaring(50_000, 50_000), 422, "more than the 16.8 million a portrait may have"),
        (b"%PDF-1.4 not a picture", 415, "not a PNG, JPEG or WebP image"),
        (picture("GIF", (40, 40)), 415, "not a PNG, JPEG or WebP image"),
        (b"", 415, "no file was sent"),
    ],
)
def test_a_refused_upload_says_why_and_keeps_the_portrait_there_was(
    app: Any, campaign: Any, data: bytes, status: int, words: str
) -> None:
    cid, m = campaign
    assert len(data) < PORTRAIT_BODY_BYTES - 1024  # the route reads it: the request's own limit is not met
    assert upload(m["pat"], cid, "comet", picture("PNG")).status_code == 303
    kept = store_of(app).portrait(cid, "comet")
    answer = upload(m["pat"], cid, "comet", data)
    assert answer.status_code == status, answer.text
    assert "The portrait was not changed" in answer.text and words in answer.text and "Tip:" in answer.text
    assert f'href="/campaigns/{cid}/characters/comet/edit#portrait"' in answer.text
    assert store_of(app).portrait(cid, "comet") == kept


def test_only_the_portrait_route_takes_a_body_over_64_kb(app: Any, campaign: Any) -> None:
    cid, m = campaign
    nearly = noise_png(560)
    assert MAX_BODY_BYTES < len(nearly) <= MAX_BYTES
    assert upload(m["pat"], cid, "comet", nearly).status_code == 303  # a portrait of nearly 1 MB gets through
    kept = store_of(app).portrait(cid, "comet")
    elsewhere = m["pat"].client.post(
        f"/campaigns/{cid}/characters/comet/edit",
        data={"csrf_token": m["pat"].csrf},
        files={"portrait": ("face.png", nearly, "image/png")},
    )
    assert elsewhere.status_code == 413 and elsewhere.json()["code"] == "request/too_large"
    huge = b"\x89PNG\r\n\x1a\n" + b"\x00" * PORTRAIT_BODY_BYTES
    answer = upload(m["pat"], cid, "comet", huge)
    assert answer.status_code == 413
    assert answer.json()["code"] == "portrait/too_large" and "1 MB" in answer.json()["detail"]
    assert store_of(app).portrait(cid, "comet") == kept


def test_a_deleted_character_takes_its_portrait_with_it(app: Any, campaign: Any) -> None:
    cid, m = campaign
    assert upload(m["pat"], cid, "comet", picture("PNG")).status_code == 303
    assert upload(m["gm"], cid, "entropy", picture("PNG")).status_code == 303
    assert m["pat"].command(cid, type="character.delete", character="comet").status_code == 200
    assert store_of(app).portrait(cid, "comet") is None
    assert store_of(app).portrait_digests(cid) == {"entropy": store_of(app).portrait(cid, "entropy").digest}  # type: ignore[union-attr]
    assert m["gm"].get(f"/campaigns/{cid}/portraits/comet").status_code == 404
    assert upload(m["pat"], cid, "comet", picture("PNG")).status_code == 404  # no character, no portrait


def test_a_retired_character_keeps_its_portrait_out_of_sight_until_it_returns(app: Any, campaign: Any) -> None:
    cid, m = campaign
    assert upload(m["pat"], cid, "comet", picture("PNG")).status_code == 303
    kept = store_of(app).portrait(cid, "comet")
    assert m["pat"].command(cid, type="character.retire", character="comet").status_code == 200
    assert m["sam"].get(f"/campaigns/{cid}/portraits/comet").status_code == 404
    assert upload(m["pat"], cid, "comet", picture("PNG", (64, 64))).status_code == 404
    assert m["pat"].command(cid, type="character.return", character="comet").status_code == 200
    assert m["sam"].get(f"/campaigns/{cid}/portraits/comet").content == kept.image  # type: ignore[union-attr]


def test_a_deleted_campaign_takes_its_portraits_with_it(app: Any, campaign: Any) -> None:
    cid, m = campaign
    assert upload(m["pat"], cid, "comet", picture("PNG")).status_code == 303
    app.state.services.table.delete_campaign(cid, m["gm"].user_id)
    assert store_of(app).portrait(cid, "comet") is None and store_of(app).portrait_digests(cid) == {}


def test_an_archived_campaigns_portraits_do_not_change(app: Any, campaign: Any) -> None:
    cid, m = campaign
    assert upload(m["pat"], cid, "comet", picture("PNG")).status_code == 303
    kept = store_of(app).portrait(cid, "comet")
    assert m["gm"].command(cid, type="campaign.archive").status_code == 200
    for who in ("pat", "gm"):
        answer = upload(m[who], cid, "comet", picture("PNG", (64, 64)))
        assert answer.status_code == 403 and "archived" in answer.text
        assert remove(m[who], cid, "comet").status_code == 403
    assert store_of(app).portrait(cid, "comet") == kept
    assert m["sam"].get(f"/campaigns/{cid}/portraits/comet").content == kept.image  # type: ignore[union-attr]


# --- a few decodes at a time ---


def test_a_full_server_answers_503_and_keeps_the_portrait_there_was() -> None:
    """Both slots are held here (no upload waits: `image_wait_s=0`), as two large decodes would hold them."""
    app = make_app(image_slots=2, image_wait_s=0)
    cid, m = with_heroes(app)
    assert upload(m["pat"], cid, "comet", picture("PNG")).status_code == 303
    kept = store_of(app).portrait(cid, "comet")
    slots = app.state.services.images
    with slots.slot(), slots.slot():
        busy = upload(m["pat"], cid, "comet", picture("PNG", (64, 64)))
        assert busy.status_code == 503 and busy.headers["retry-after"] == "2"
        assert (
            "The portrait was not changed: the server is busy reading other pictures. Tip: try again in a few seconds."
            in busy.text
        )
        assert f'href="/campaigns/{cid}/characters/comet/edit#portrait"' in busy.text
        assert store_of(app).portrait(cid, "comet") == kept
        # what the header alone refuses is refused at once, busy or not
        assert upload(m["pat"], cid, "comet", b"%PDF-1.4 not a picture").status_code == 415
        assert upload(m["pat"], cid, "comet", png_1bit(1, 16_777_216)).status_code == 422
    # the slots are free again, after decodes kept and refused alike
    assert upload(m["pat"], cid, "comet", picture("PNG", (64, 64))).status_code == 303
    assert upload(m["pat"], cid, "comet", picture("PNG", (400, 400))[:300]).status_code == 422  # cut short
    assert store_of(app).portrait(cid, "comet") != kept
    with slots.slot(), slots.slot():
        pass


def test_one_free_slot_is_enough() -> None:
    app = make_app(image_slots=2, image_wait_s=0)
    cid, m = with_heroes(app)
    with app.state.services.images.slot():
        assert upload(m["pat"], cid, "comet", picture("PNG", (64, 64))).status_code == 303


def test_slots_are_counted_and_a_caller_who_finds_none_is_told_the_server_is_busy() -> None:
    slots = Slots(2, 0, work="reading portraits", doing="reading other pictures")
    with slots.slot(), slots.slot(), pytest.raises(Busy) as busy, slots.slot():
        pass
    assert (busy.value.status_code, busy.value.headers) == (503, {"Retry-After": "2"})
    assert busy.value.detail == (
        "the server is busy reading other pictures; nothing was changed. Tip: try again in a few seconds"
    )
    with slots.slot(), slots.slot():  # both were given back
        pass
    with pytest.raises(ValueError, match="reading portraits needs at least one slot"):
        Slots(0, 1.0, work="reading portraits", doing="reading other pictures")


def test_the_number_of_image_slots_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEROTABLE_SECRET_KEY", "a-key-so-that-no-file-is-made")
    assert Settings().image_slots == Settings.load().image_slots == 2
    monkeypatch.setenv("HEROTABLE_IMAGE_SLOTS", "3")
    assert Settings.load().image_slots == 3
    monkeypatch.setenv("HEROTABLE_IMAGE_SLOTS", "0")
    with pytest.raises(ValueError, match=re.escape("Tip: e.g. HEROTABLE_IMAGE_SLOTS=2")):
        Settings.load()
