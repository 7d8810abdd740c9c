"""The files service: type detection from bytes, limits, carrier scope and signed links."""

from __future__ import annotations

import hashlib
import io
import struct
import uuid
import zlib
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest
from factories import create_carrier, jpeg_bytes, png_bytes

from portal.audit.service import Actor
from portal.errors import Forbidden, NotFound, ValidationFailed
from portal.extensions import db
from portal.files import service
from portal.files.storage import get_storage
from portal.tenancy import carrier_scope


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)  # 1x1, 8-bit greyscale
    pixels = zlib.compress(b"\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


PNG = _png()
JPEG = jpeg_bytes()
PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
HEIC = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 16
HEIF = b"\x00\x00\x00\x18ftypmif1\x00\x00\x00\x00mif1heic" + b"\x00" * 16
HTML = b"<html><script>alert(1)</script></html>"
DRIVER = Actor("driver", uuid.uuid4(), "Jan")


def store(app, carrier_id, data: bytes, soort: str = "photo", filename: str = "x.bin"):
    """store_file in the carrier's scope, committed; returns plain values."""
    with app.app_context(), carrier_scope(db.session, carrier_id):
        row = service.store_file(
            carrier_id=carrier_id,
            stream=io.BytesIO(data),
            filename=filename,
            soort=soort,
            actor=DRIVER,
        )
        db.session.commit()
        return {
            "id": row.id,
            "content_type": row.content_type,
            "grootte": row.grootte,
            "sha256": row.sha256,
            "storage_key": row.storage_key,
            "bestandsnaam": row.bestandsnaam,
            "geupload_door": (row.geupload_door_type, row.geupload_door_id),
        }


def refusal(app, carrier_id, data: bytes, soort: str = "photo") -> list[dict]:
    with pytest.raises(ValidationFailed) as caught:
        store(app, carrier_id, data, soort)
    return caught.value.errors


# --- detection and upload ------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, content_type",
    [
        (PNG, "image/png"),
        (JPEG, "image/jpeg"),
        (PDF, "application/pdf"),
        (HEIC, "image/heic"),
        (HEIF, "image/heif"),
        (b"\x00\x00\x00\x18ftyphevc" + b"\x00" * 20, "image/heic-sequence"),
        (b"\x00\x00\x00\x18ftypmsf1" + b"\x00" * 20, "image/heif-sequence"),
    ],
)
def test_the_type_comes_from_the_magic_bytes(data, content_type):
    assert service.detect_type(data[:32]).content_type == content_type


@pytest.mark.parametrize(
    "data",
    [
        HTML,
        b"GIF89a\x01\x00\x01\x00",
        b"\x00\x00\x00\x18ftypavif" + b"\x00" * 20,  # AVIF: ISO-BMFF, but not a HEIC brand
        b"\x00\x00\x00\x08ftypheic",  # a box too short to hold a brand
        b"PK\x03\x04",
        b"%PD",
        b"",
    ],
)
def test_other_bytes_are_no_accepted_type(data):
    assert service.detect_type(data) is None


def test_a_stored_photo_keeps_its_hash_size_uploader_and_bytes(app, carrier):
    stored = store(app, carrier.id, JPEG, "photo", "../../etc/Foto 1.JPG")
    assert stored["content_type"] == "image/jpeg"
    assert stored["grootte"] == len(JPEG)
    assert stored["sha256"] == hashlib.sha256(JPEG).hexdigest()
    assert stored["bestandsnaam"] == "Foto 1.JPG"  # no path from the client survives
    assert stored["geupload_door"] == ("driver", DRIVER.id)
    now = datetime.now(UTC)
    assert stored["storage_key"] == f"{carrier.id}/{now:%Y}/{now:%m}/{stored['id']}"
    with app.app_context(), get_storage(app).open(stored["storage_key"]) as stream:
        assert stream.read() == JPEG


@pytest.mark.parametrize(
    "soort, data",
    [
        ("photo", JPEG),
        ("photo", PNG),
        ("photo", HEIC),
        ("signature", PNG),
        ("signature", JPEG),
        ("document_scan", PDF),
        ("document_scan", JPEG),
        ("document_scan", PNG),
        ("document_scan", HEIF),
    ],
)
def test_each_soort_takes_its_types(app, carrier, soort, data):
    assert store(app, carrier.id, data, soort)["grootte"] == len(data)


@pytest.mark.parametrize(
    "soort, data, family",
    [("signature", PDF, "PDF"), ("signature", HEIC, "HEIC"), ("photo", PDF, "PDF")],
)
def test_a_type_the_soort_does_not_take_is_refused(app, carrier, soort, data, family):
    [error] = refusal(app, carrier.id, data, soort)
    assert error["field"] == "file"
    assert family in error["message"] and soort in error["message"]


def test_a_renamed_html_file_is_refused_whatever_its_name(app, carrier):
    [error] = refusal(app, carrier.id, HTML)
    assert error["field"] == "file"
    assert "HTML" in error["message"]


def test_an_empty_file_is_refused(app, carrier):
    assert refusal(app, carrier.id, b"") == [{"field": "file", "message": "the file is empty"}]


def test_a_file_over_the_limit_is_refused_and_not_read_whole(app, carrier):
    app.config["FILE_MAX_BYTES"] = 100

    class Endless(io.RawIOBase):
        """A stream that never ends: the service must stop reading past the limit."""

        read_total = 0

        def readable(self):
            return True

        def read(self, size=-1):
            assert size is not None and 0 < size <= 64 * 1024
            self.read_total += size
            return b"\xff\xd8\xff" + b"\x00" * (size - 3) if size >= 3 else b"\x00" * size

    endless = Endless()
    with (
        app.app_context(),
        carrier_scope(db.session, carrier.id),
        pytest.raises(ValidationFailed) as caught,
    ):
        service.store_file(
            carrier_id=carrier.id, stream=endless, filename=None, soort="photo", actor=DRIVER
        )
    assert caught.value.errors[0]["field"] == "file"
    assert "100 bytes" in caught.value.errors[0]["message"]
    assert endless.read_total == 101
    # Exactly at the limit is fine.
    small = png_bytes()
    assert store(app, carrier.id, small + b"\x00" * (100 - len(small)))["grootte"] == 100


def test_an_unknown_soort_is_refused(app, carrier):
    [error] = refusal(app, carrier.id, JPEG, "selfie")
    assert error["field"] == "soort"


def test_a_refused_upload_leaves_no_row_and_no_bytes(app, carrier):
    refusal(app, carrier.id, HTML)
    with app.app_context(), carrier_scope(db.session, carrier.id):
        assert service.files_by_id(carrier_id=carrier.id, file_ids=[uuid.uuid4()]) == {}
    folder = get_storage(app).folder
    assert not folder.exists() or not any(p.is_file() for p in folder.rglob("*"))


@pytest.mark.parametrize(
    "name, cleaned",
    [
        ("C:\\Users\\jan\\foto.jpg", "foto.jpg"),
        ('a"b;c\x00d.png', "a_b_c_d.png"),
        ("..", None),
        ("", None),
        (None, None),
        ("x" * 300 + ".jpeg", "x" * 250 + ".jpeg"),
    ],
)
def test_client_file_names_are_cleaned(name, cleaned):
    assert service.clean_filename(name) == cleaned


# --- reads ---------------------------------------------------------------------------------


def test_another_carriers_file_is_not_found(app, carrier, other_carrier):
    theirs = store(app, other_carrier.id, PNG)
    with app.app_context(), carrier_scope(db.session, carrier.id):
        with pytest.raises(NotFound):
            service.get_file(carrier_id=carrier.id, file_id=theirs["id"])
        with pytest.raises(NotFound):
            service.get_file(carrier_id=carrier.id, file_id=uuid.uuid4())
        assert service.files_by_id(carrier_id=carrier.id, file_ids=[theirs["id"]]) == {}


def test_files_by_id_runs_one_query_however_many_ids(app, carrier, count_queries):
    ids = [store(app, carrier.id, PNG)["id"] for _ in range(6)]
    counts = []
    for wanted in (ids[:1], ids):
        with app.app_context(), carrier_scope(db.session, carrier.id):
            with count_queries() as queries:
                found = service.files_by_id(carrier_id=carrier.id, file_ids=wanted)
                assert {f.id: f.grootte for f in found.values()} == {i: len(PNG) for i in wanted}
            counts.append(queries.count)
    assert counts == [1, 1]


def test_files_by_id_of_nothing_asks_nothing(app, carrier, count_queries):
    with app.app_context(), count_queries() as queries:
        assert service.files_by_id(carrier_id=carrier.id, file_ids=[]) == {}
    assert queries.count == 0


# --- signed links --------------------------------------------------------------------------


def signed(app, carrier_id, file_id, expires_in=None) -> dict:
    with app.app_context(), carrier_scope(db.session, carrier_id):
        file = service.get_file(carrier_id=carrier_id, file_id=file_id)
        url, expires_at = service.signed_url(file, expires_in=expires_in)
        db.session.rollback()
    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    return {
        "url": url,
        "path": parts.path,
        "exp": int(query["exp"]),
        "sig": query["sig"],
        "expires_at": expires_at,
    }


def open_signed(app, carrier_id, file_id, exp, sig) -> bytes:
    # Anonymous, as the download view is: no carrier scope until the signature is checked.
    with app.app_context():
        row, stream = service.open_signed(carrier_id=carrier_id, file_id=file_id, exp=exp, sig=sig)
        with stream:
            assert row.id == file_id
            return stream.read()


def test_a_signed_link_opens_the_bytes_without_any_scope(app, carrier):
    stored = store(app, carrier.id, PDF, "document_scan")
    link = signed(app, carrier.id, stored["id"])
    assert link["path"] == f"/bestanden/{carrier.id}/{stored['id']}"
    assert link["expires_at"] == datetime.fromtimestamp(link["exp"], UTC)
    left = (link["expires_at"] - datetime.now(UTC)).total_seconds()
    assert 290 < left <= 300  # FILE_URL_TTL's default
    assert open_signed(app, carrier.id, stored["id"], link["exp"], link["sig"]) == PDF


def test_the_link_path_is_the_same_inside_and_outside_a_request(app, carrier):
    stored = store(app, carrier.id, PNG)
    with app.test_request_context(), carrier_scope(db.session, carrier.id):
        file = service.get_file(carrier_id=carrier.id, file_id=stored["id"])
        assert service.download_path(file.transporteur_id, file.id, 5, "s") == (
            f"/bestanden/{carrier.id}/{stored['id']}?exp=5&sig=s"
        )
        db.session.rollback()


def test_an_altered_signature_or_expiry_is_forbidden(app, carrier):
    stored = store(app, carrier.id, PNG)
    link = signed(app, carrier.id, stored["id"])
    flipped = ("A" if link["sig"][0] != "A" else "B") + link["sig"][1:]
    for exp, sig in [
        (link["exp"], flipped),
        (link["exp"] + 3600, link["sig"]),
        (link["exp"], ""),
        (link["exp"], link["sig"] + "="),
        (link["exp"], "é" * 43),
    ]:
        with pytest.raises(Forbidden, match="not valid"):
            open_signed(app, carrier.id, stored["id"], exp, sig)


def test_an_expired_link_is_forbidden(app, carrier):
    stored = store(app, carrier.id, PNG)
    link = signed(app, carrier.id, stored["id"], expires_in=-1)
    with pytest.raises(Forbidden, match="expired"):
        open_signed(app, carrier.id, stored["id"], link["exp"], link["sig"])


def test_a_link_for_one_carrier_does_not_open_with_another_carriers_id(app, carrier):
    other = create_carrier(app, "Ander BV")
    stored = store(app, carrier.id, PNG)
    link = signed(app, carrier.id, stored["id"])
    with pytest.raises(Forbidden):
        open_signed(app, other.id, stored["id"], link["exp"], link["sig"])


def test_a_valid_signature_for_a_file_of_another_carrier_is_not_found(app, carrier):
    """Only we can sign, but should a row and its link ever disagree, the scope still holds."""
    other = create_carrier(app, "Ander BV")
    theirs = store(app, other.id, PNG)
    with app.app_context():
        sig = service._signature(carrier.id, theirs["id"], 2**40)
    with pytest.raises(NotFound):
        open_signed(app, carrier.id, theirs["id"], 2**40, sig)


def test_the_signing_key_depends_on_the_secret_key(app, carrier):
    stored = store(app, carrier.id, PNG)
    link = signed(app, carrier.id, stored["id"])
    app.config["SECRET_KEY"] = "another-secret"
    with pytest.raises(Forbidden):
        open_signed(app, carrier.id, stored["id"], link["exp"], link["sig"])


def test_missing_bytes_are_not_found(app, carrier):
    stored = store(app, carrier.id, PNG)
    link = signed(app, carrier.id, stored["id"])
    with app.app_context():
        get_storage(app).delete(stored["storage_key"])
    with pytest.raises(NotFound):
        open_signed(app, carrier.id, stored["id"], link["exp"], link["sig"])


@pytest.mark.parametrize(
    "stored_name, content_type, shown",
    [
        ("foto.jpg", "image/jpeg", "foto.jpg"),
        ("foto.JPEG", "image/jpeg", "foto.JPEG"),
        ("evil.html", "image/png", "evil.png"),
        ("scan", "application/pdf", "scan.pdf"),
        (None, "image/heic", "photo-0123abcd.heic"),
    ],
)
def test_the_download_name_fits_the_detected_type(stored_name, content_type, shown):
    from portal.files.models import StoredFile

    file = StoredFile(
        id=uuid.UUID("0123abcd-0000-4000-8000-000000000000"),
        soort="photo",
        bestandsnaam=stored_name,
        content_type=content_type,
    )
    assert service.download_name(file) == shown
