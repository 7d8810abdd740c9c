"""Hostile uploads: what an attacker would send as a driver's photo or scan. Each is refused
clearly (422 at the field, nothing stored: no row, no bytes in storage) or neutralised
(stored as the harmless thing its bytes are, served so that nothing in it runs); never a
500. The drill prints what it tried and how each ended."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path

from factories import bearer, driver_token, in_carrier, jpeg_bytes
from sqlalchemy import func, select

from portal.extensions import db

API = "/api/v1/bestanden"
HTML = b"<!doctype html><html><body><script>fetch('/api/v1/taken')</script></body></html>"
SVG = (
    b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)">'
    b"<script>alert(document.cookie)</script></svg>"
)


def _zip_bomb() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bom.txt", b"\0" * 20_000_000)  # 20 MB that packs into ~20 KB
    return out.getvalue()


def _png_claiming(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0" * 4096))
        + chunk(b"IEND", b"")
    )


REFUSED = {
    "empty file": (b"", "foto.jpg"),
    "HTML named .jpg": (HTML, "foto.jpg"),
    "SVG with script named .png": (SVG, "foto.png"),
    "zip bomb named .jpg": (None, "foto.jpg"),  # built once, below
    "decompression bomb PNG (50,000 x 50,000)": (_png_claiming(50_000, 50_000), "stal.png"),
    "JPEG magic with a damaged header": (b"\xff\xd8\xff\xe0" + b"\0" * 200, "foto.jpg"),
    "executable named .pdf": (b"MZ\x90\0" + b"\0" * 200, "vrachtbrief.pdf"),
    # The line break ends the part's header: the part is no file any more.
    "a header injected through the file name": (jpeg_bytes(), "foto\r\nSet-Cookie: x=1.jpg"),
}
NEUTRALISED = {
    # A real JPEG with a page after it: stored as a JPEG, served as one, never as HTML.
    "JPEG + HTML polyglot named .html": (jpeg_bytes() + HTML, "evil.html", "evil.jpg"),
    "path traversal in the name": (jpeg_bytes(), "../../etc/passwd.jpg", "passwd.jpg"),
    "control characters in the name": (
        jpeg_bytes(),
        "foto\t\x07\x1b[2J\x7f.jpg",  # a tab, a bell, a terminal's clear-screen, DEL
        None,
    ),
}


def stored_state(app, carrier_id) -> tuple[int, int]:
    from portal.files.models import StoredFile

    rows = in_carrier(
        app,
        carrier_id,
        lambda: db.session.scalar(select(func.count()).select_from(StoredFile)),
    )
    configured = app.config.get("FILE_STORAGE_PATH")
    folder = Path(configured) if configured else Path(app.config["INSTANCE_PATH"]) / "bestanden"
    return rows, sum(1 for p in folder.rglob("*") if p.is_file())


def upload(client, token: str, data: bytes, filename: str, soort: str = "photo"):
    form = {"soort": soort, "file": (io.BytesIO(data), filename, "application/octet-stream")}
    return client.post(API, data=form, content_type="multipart/form-data", headers=bearer(token))


def test_hostile_uploads_are_refused_or_neutralised_and_never_stored_half(
    app, client, carrier, driver
):
    token = driver_token(client, driver)
    # Under the test client's 500 KB, above which it spools the body to a file of its own.
    app.config["FILE_MAX_BYTES"] = 200 * 1024
    cases = dict(REFUSED)
    cases["zip bomb named .jpg"] = (_zip_bomb(), "foto.jpg")
    big = jpeg_bytes()
    cases["one byte over the limit"] = (big + b"\0" * (200 * 1024 + 1 - len(big)), "groot.jpg")
    outcome = {}

    for name, (data, filename) in cases.items():
        before = stored_state(app, carrier.id)
        soort = "document_scan" if filename.endswith(".pdf") else "photo"
        response = upload(client, token, data, filename, soort)
        assert response.status_code == 422, (name, response.status_code, response.get_data())
        assert response.mimetype == "application/problem+json"
        assert [e["field"] for e in response.get_json()["errors"]] == ["file"], name
        assert stored_state(app, carrier.id) == before, f"{name}: something was stored"
        outcome[name] = "refused: " + response.get_json()["errors"][0]["message"]

    for name, (data, filename, served_as) in NEUTRALISED.items():
        created = upload(client, token, data, filename)
        assert created.status_code == 201, (name, created.get_data())
        body = created.get_json()
        assert body["content_type"] == "image/jpeg", name
        served = client.get(body["url"], buffered=True)
        disposition = served.headers["Content-Disposition"]
        assert served.mimetype == "image/jpeg", name
        assert served.headers["X-Content-Type-Options"] == "nosniff"
        assert served.headers["Content-Security-Policy"] == "default-src 'none'; sandbox"
        assert disposition.isprintable() and "/" not in disposition, (name, disposition)
        if served_as:
            assert served_as in disposition, (name, disposition)
        outcome[name] = f"neutralised: stored as image/jpeg, served as {disposition}"

    print(f"\nhostile uploads: {len(outcome)} tried, 0 got through")
    for name, result in outcome.items():
        print(f"  {name}: {result}")
