"""What a stored file is, from its bytes: the file types the product accepts (magic numbers,
never the name or the client's content type), which soort takes which, and the image
header check against decompression bombs."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

from portal.errors import ValidationFailed

SOORTEN = ("photo", "signature", "document_scan")
HEAD_BYTES = 32  # the bytes that name a file's type


@dataclass(frozen=True)
class FileType:
    """A file type the product accepts: its family and exact content type."""

    family: str  # JPEG, PNG, PDF, HEIC (HEIC/HEIF)
    content_type: str


JPEG = FileType("JPEG", "image/jpeg")
PNG = FileType("PNG", "image/png")
PDF = FileType("PDF", "application/pdf")
HEIC_BRANDS = {
    b"heic": FileType("HEIC", "image/heic"),
    b"heix": FileType("HEIC", "image/heic"),
    b"heim": FileType("HEIC", "image/heic"),
    b"heis": FileType("HEIC", "image/heic"),
    b"hevc": FileType("HEIC", "image/heic-sequence"),
    b"mif1": FileType("HEIC", "image/heif"),
    b"msf1": FileType("HEIC", "image/heif-sequence"),
}
# File name extensions per content type, the usual one first.
EXTENSIONS = {
    "image/jpeg": (".jpg", ".jpeg"),
    "image/png": (".png",),
    "application/pdf": (".pdf",),
    "image/heic": (".heic", ".heif"),
    "image/heic-sequence": (".heics", ".heic"),
    "image/heif": (".heif", ".heic"),
    "image/heif-sequence": (".heifs", ".heif"),
}
ALLOWED = {
    "photo": ("JPEG", "PNG", "HEIC"),
    "signature": ("PNG", "JPEG"),
    "document_scan": ("PDF", "JPEG", "PNG", "HEIC"),
}

# A photo of a delivery note is 12-50 megapixels; a few kilobytes of PNG can claim billions
# (a decompression bomb), which whoever opens the file (a browser, the PDF export, a
# thumbnailer) then tries to unpack.
MAX_PIXELS = 100_000_000
MAX_SIDE = 30_000
# Pillow's own check only warns between 89 and 179 megapixels and raises above; ours
# refuses at once, from the header, so Pillow's is switched off (this process opens no
# image but to read its size).
Image.MAX_IMAGE_PIXELS = None


def check_dimensions(buffer) -> None:
    """Refuse an image whose header claims more pixels than a photo has, or that cannot be
    read as the image it says it is; only the header is read, nothing is decoded."""
    try:
        with Image.open(buffer) as image:
            width, height = image.size
    except (UnidentifiedImageError, OSError, ValueError):
        raise ValidationFailed(
            [{"field": "file", "message": "not a readable image: its header is damaged"}]
        ) from None
    if width * height > MAX_PIXELS or max(width, height) > MAX_SIDE:
        raise ValidationFailed(
            [
                {
                    "field": "file",
                    "message": f"the image claims more pixels than a photo has; at most "
                    f"{MAX_PIXELS // 1_000_000} megapixels and {MAX_SIDE} pixels a side",
                }
            ]
        )


def detect_type(head: bytes) -> FileType | None:
    """The file type its first bytes announce, or None for anything we do not accept."""
    if head.startswith(b"\xff\xd8\xff"):
        return JPEG
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if head.startswith(b"%PDF-"):
        return PDF
    # ISO-BMFF: a box of at least 16 bytes (size, "ftyp", major brand, minor version) first.
    if len(head) >= 12 and head[4:8] == b"ftyp" and int.from_bytes(head[:4], "big") >= 16:
        return HEIC_BRANDS.get(head[8:12])
    return None


def describe(head: bytes) -> str:
    if not head.strip():
        return "it is empty or blank"
    if head.lstrip()[:1] == b"<":
        return "it looks like HTML or XML"
    if len(head) >= 12 and head[4:8] == b"ftyp":
        brand = head[8:12].decode("ascii", "replace")
        return f"it is an ISO media file of brand {brand!r}, not HEIC/HEIF"
    return "its content is not a JPEG, PNG, HEIC/HEIF or PDF file"
