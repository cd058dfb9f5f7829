"""Input defence: images are checked from their header (format, pixel count, sides, aspect ratio) before anything
is decoded, then decoded with ``seed3d.condition.image.load_image`` (byte and pixel limits, truncation) and
re-encoded as a plain RGBA PNG, which is the only image a worker ever reads. Texts are checked for length and for
characters that are not text.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import re
import unicodedata
import warnings
from dataclasses import dataclass
from typing import Any

from api.errors import ApiError
from api.settings import Settings

#: Image formats the service accepts (PIL format names).
IMAGE_FORMATS: tuple[str, ...] = ("PNG", "JPEG", "WEBP")
_DATA_URI = re.compile(r"^data:(?P<type>[A-Za-z0-9.+-]+/[A-Za-z0-9.+-]+)?(?P<params>(?:;[^,;]*)*),", re.ASCII)


@dataclass(frozen=True)
class CheckedImage:
    """An image that passed every check, as the PNG bytes the worker will read."""

    png: bytes
    sha256: str
    width: int
    height: int


def check_image(data: bytes, settings: Settings) -> CheckedImage:
    """Validate encoded image bytes and return them re-encoded as RGBA PNG; refusals raise ``ApiError``
    (413 too many bytes or pixels or a side too long, 415 not an accepted image format, 422 truncated, corrupt, a
    side too short or too elongated: ``check_dimensions``)."""
    from PIL import Image, UnidentifiedImageError

    from seed3d.condition.image import load_image
    from seed3d.errors import InvalidInputError

    if len(data) > settings.max_image_bytes:
        raise ApiError(413, "image_too_large", f"the image is {len(data)} bytes; the limit is "
                                               f"{settings.max_image_bytes} bytes")
    if not data:
        raise ApiError(422, "invalid_image", "the image is empty (0 bytes)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            head = Image.open(io.BytesIO(data))
        except UnidentifiedImageError:
            raise ApiError(415, "unsupported_image", f"the file is not an image in one of the formats "
                                                     f"{', '.join(IMAGE_FORMATS)}") from None
        except Image.DecompressionBombError:
            raise ApiError(413, "image_too_many_pixels", f"the image declares more than {settings.max_image_pixels} "
                                                         "pixels (decompression bomb?)") from None
        except (OSError, SyntaxError, ValueError, EOFError) as exc:
            raise ApiError(422, "invalid_image", f"the image header is unreadable: {exc}") from None
        if head.format not in IMAGE_FORMATS:
            raise ApiError(415, "unsupported_image", f"{head.format} images are not accepted; send one of "
                                                     f"{', '.join(IMAGE_FORMATS)}")
        w, h = head.size
        if w * h > settings.max_image_pixels:
            raise ApiError(413, "image_too_many_pixels", f"the image is {w} x {h} pixels, more than the limit of "
                                                         f"{settings.max_image_pixels}; downscale it first")
        check_dimensions(w, h, settings)
    try:
        rgba = load_image(data, max_pixels=settings.max_image_pixels, max_bytes=settings.max_image_bytes)
    except InvalidInputError as exc:
        raise ApiError(422, "invalid_image", str(exc).replace("the image data", "the image")) from None
    buf = io.BytesIO()
    Image.fromarray(rgba, "RGBA").save(buf, format="PNG")
    png = buf.getvalue()
    return CheckedImage(png, hashlib.sha256(png).hexdigest(), rgba.shape[1], rgba.shape[0])


def check_dimensions(width: int, height: int, settings: Settings) -> None:
    """Refuse an image whose sides or aspect ratio the pipeline cannot use, naming the limit: 413
    image_side_too_long, 422 invalid_image_dimensions (a side too short, or too elongated)."""
    long, short = max(width, height), min(width, height)
    if long > settings.max_image_side:
        raise ApiError(413, "image_side_too_long", f"the image is {width} x {height} pixels; its longer side is more "
                                                  f"than the limit of {settings.max_image_side} pixels")
    if short < settings.min_image_side:
        raise ApiError(422, "invalid_image_dimensions", f"the image is {width} x {height} pixels; each side must be "
                                                        f"at least {settings.min_image_side} pixels")
    if long > settings.max_image_aspect * short:
        raise ApiError(422, "invalid_image_dimensions", f"the image is {width} x {height} pixels, an aspect ratio of "
                                                        f"{long / short:.3g}:1; the limit is "
                                                        f"{settings.max_image_aspect:g}:1 (crop it to the object)")


def decode_data_uri(uri: str, settings: Settings) -> bytes:
    """The bytes of a base64 ``data:image/...`` URI (413 when they would exceed the image byte limit)."""
    m = _DATA_URI.match(uri[:256])
    if not m or ";base64" not in m.group("params").lower():
        raise ApiError(422, "invalid_image", "image must be a data URI like data:image/png;base64,<data>")
    media = (m.group("type") or "").lower()
    if media and not media.startswith("image/"):
        raise ApiError(415, "unsupported_image", f"the data URI holds {media}, not an image")
    payload = uri[m.end():]
    if len(payload) * 3 // 4 > settings.max_image_bytes + 3:
        raise ApiError(413, "image_too_large", f"the image is about {len(payload) * 3 // 4} bytes; the limit is "
                                               f"{settings.max_image_bytes} bytes")
    try:
        return base64.b64decode(payload.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise ApiError(422, "invalid_image", "the data URI's payload is not valid base64") from None


def check_text(text: str | None, settings: Settings, field: str = "text") -> str | None:
    """A prompt stripped of surrounding space; refuses (422 invalid_text) over-long text, lone surrogates and
    control characters other than tab and newline."""
    if text is None:
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ApiError(422, "invalid_text", f"{field} holds invalid unicode (a lone surrogate)") from None
    bad = sorted({f"U+{ord(c):04X}" for c in text if unicodedata.category(c) in ("Cc", "Cs")
                  and c not in "\t\n\r"})
    if bad:
        raise ApiError(422, "invalid_text", f"{field} holds control characters ({', '.join(bad[:5])})")
    if "\ufffd" in text:
        raise ApiError(422, "invalid_text", f"{field} holds U+FFFD: it was not valid UTF-8 somewhere on its way")
    if len(text) > settings.max_text_chars:  # as sent, surrounding space included (the schema's maxLength)
        raise ApiError(422, "invalid_text", f"{field} is {len(text)} characters; the limit is "
                                            f"{settings.max_text_chars}")
    text = text.strip()
    if not text:
        raise ApiError(422, "invalid_text", f"{field} is empty")
    return text


@dataclass
class Form:
    """A parsed multipart body: text fields (strict UTF-8) and file parts (bytes; client file names dropped)."""

    fields: dict[str, str]
    files: dict[str, bytes]


async def read_multipart(request: Any, file_fields: tuple[str, ...], max_parts: int, max_file_bytes: int) -> Form:
    """Parse a multipart/form-data body; a field or file given twice, too many parts, a file in a field that
    takes none or text that is not UTF-8 is refused (400/422), a file over ``max_file_bytes`` gets 413."""
    from python_multipart.exceptions import FormParserError, MultipartParseError
    from python_multipart.multipart import create_form_parser

    parts: list[Any] = []
    try:
        parser = create_form_parser({"Content-Type": request.headers.get("content-type", "").encode("latin-1")},
                                    parts.append, parts.append, config={"MAX_MEMORY_FILE_SIZE": max_file_bytes + 1})
    except (FormParserError, MultipartParseError, ValueError, UnicodeEncodeError) as exc:
        raise ApiError(400, "malformed_body", f"unusable multipart Content-Type: {exc}") from None
    try:
        async for chunk in request.stream():
            parser.write(chunk)
            if len(parts) > max_parts:
                raise ApiError(422, "validation_failed", f"more than {max_parts} form parts")
        parser.finalize()
    except (FormParserError, MultipartParseError, ValueError) as exc:
        raise ApiError(400, "malformed_body", f"the multipart body could not be parsed: {exc}") from None
    form = Form({}, {})
    try:
        for part in parts:
            try:
                name = (part.field_name or b"").decode("utf-8")
            except UnicodeDecodeError:
                raise ApiError(400, "malformed_body", "a form field name is not valid UTF-8") from None
            if name in form.fields or name in form.files:
                raise ApiError(422, "validation_failed", f"form field {name!r} is given more than once")
            if hasattr(part, "file_object"):
                if name not in file_fields:
                    raise ApiError(422, "validation_failed", f"form field {name!r} does not take a file")
                if part.size > max_file_bytes:
                    raise ApiError(413, "image_too_large", f"the file is {part.size} bytes; the limit is "
                                                           f"{max_file_bytes} bytes")
                part.file_object.seek(0)
                form.files[name] = part.file_object.read()
                continue
            try:
                form.fields[name] = (part.value or b"").decode("utf-8")
            except UnicodeDecodeError:
                raise ApiError(400, "malformed_body", f"form field {name!r} is not valid UTF-8") from None
    finally:
        for part in parts:
            close = getattr(part, "close", None)
            if close is not None:
                close()
    return form
