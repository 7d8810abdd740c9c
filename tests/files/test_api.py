"""POST /bestanden, GET /bestanden/{file_id} and the signed download they hand out."""

from __future__ import annotations

import hashlib
import io
import re
import time
import uuid
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlencode, urlsplit

import boto3
import pytest
from factories import (
    bearer,
    create_api_key,
    create_driver,
    driver_token,
    in_carrier,
    jpeg_bytes,
    login,
)
from moto import mock_aws
from sqlalchemy import update

from portal.extensions import db
from portal.files import service

API = "/api/v1/bestanden"
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x00\x00\x00\x00"
    b":~\x9bU\x00\x00\x00\nIDATx\x9cc`\x00\x00\x00\x02\x00\x01H\xaf\xa4q\x00\x00\x00\x00IEND"
    b"\xaeB`\x82"
)
JPEG = jpeg_bytes()
PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
HEIC = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 16
FIELDS = [
    "id",
    "transporteur_id",
    "soort",
    "content_type",
    "grootte",
    "sha256",
    "bestandsnaam",
    "created_at",
    "url",
    "url_expires_at",
]
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def upload(client, headers, data: bytes, soort="photo", filename="foto.jpg", **extra):
    form = {"soort": soort, "file": (io.BytesIO(data), filename, "application/octet-stream")}
    form.update(extra)
    return client.post(API, data=form, content_type="multipart/form-data", headers=headers)


def assert_problem(response, status: int, field: str | None = None) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["status"] == status
    if field is not None:
        assert field in [e["field"] for e in body["errors"]], body
    return body


@pytest.fixture
def token(client, driver) -> str:
    return driver_token(client, driver)


def fetch(client, url: str, **kwargs):
    """GET a download, buffered: the response's file stream is closed when it returns."""
    return client.get(url, buffered=True, **kwargs)


def link_parts(url: str) -> tuple[str, dict]:
    parts = urlsplit(url)
    return parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()}


# --- upload ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "soort, data, content_type",
    [
        ("photo", JPEG, "image/jpeg"),
        ("photo", PNG, "image/png"),
        ("photo", HEIC, "image/heic"),
        ("signature", PNG, "image/png"),
        ("document_scan", PDF, "application/pdf"),
    ],
)
def test_a_driver_uploads_each_allowed_type(
    client, carrier, driver, token, soort, data, content_type
):
    response = upload(client, bearer(token), data, soort, "upload.bin")
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert list(body) == FIELDS
    assert body["transporteur_id"] == str(carrier.id)
    assert body["soort"] == soort
    assert body["content_type"] == content_type
    assert body["grootte"] == len(data)
    assert body["sha256"] == hashlib.sha256(data).hexdigest()
    assert body["bestandsnaam"] == "upload.bin"
    assert ISO.match(body["created_at"]) and ISO.match(body["url_expires_at"])
    assert response.headers["Location"] == f"{API}/{body['id']}"
    assert body["url"].startswith(f"http://localhost/bestanden/{carrier.id}/{body['id']}?")
    path, query = link_parts(body["url"])
    assert path == f"/bestanden/{carrier.id}/{body['id']}"
    assert set(query) == {"exp", "sig"}


def test_the_signed_url_is_absolute_on_the_host_the_client_called(client, carrier, token):
    # A generated client joins a relative path to its base, /api/v1, and gets a 404.
    created = client.post(
        API,
        data={"soort": "photo", "file": (io.BytesIO(PNG), "foto.png")},
        content_type="multipart/form-data",
        headers=bearer(token),
        base_url="https://rijplan.example.nl",
    ).get_json()
    assert urlsplit(created["url"])[:2] == ("https", "rijplan.example.nl")
    again = client.get(f"{API}/{created['id']}", headers=bearer(token), base_url="http://x.test")
    assert again.get_json()["url"].startswith(f"http://x.test/bestanden/{carrier.id}/")


def test_the_signed_url_is_absolute_on_public_base_url_when_set(app, client, token):
    app.config["PUBLIC_BASE_URL"] = "https://rijplan.example.nl"
    created = upload(client, bearer(token), PNG).get_json()
    assert created["url"].startswith("https://rijplan.example.nl/bestanden/")
    again = client.get(f"{API}/{created['id']}", headers=bearer(token)).get_json()
    assert again["url"].startswith("https://rijplan.example.nl/bestanden/")
    assert fetch(client, again["url"]).data == PNG  # the same site: the link works


def test_an_integration_uploads_with_its_api_key(client, carrier, api_key):
    response = upload(client, bearer(api_key.key), PDF, "document_scan", "vrachtbrief.pdf")
    assert response.status_code == 201
    assert response.get_json()["content_type"] == "application/pdf"


def test_an_api_key_without_the_write_scope_may_not_upload(app, client, carrier):
    from portal.accounts.models import ApiKey

    key = create_api_key(app, carrier, "Alleen lezen")
    in_carrier(
        app,
        carrier.id,
        lambda: db.session.execute(
            update(ApiKey).where(ApiKey.id == key.id).values(scopes="tasks:read")
        ),
    )
    assert_problem(upload(client, bearer(key.key), PNG), 403)


def test_without_a_bearer_token_upload_is_401(client):
    assert_problem(upload(client, {}, PNG), 401)


def test_a_renamed_html_file_is_refused(client, token):
    body = assert_problem(
        upload(client, bearer(token), b"<html><body>hi</body></html>", filename="evil.jpg"),
        422,
        "file",
    )
    assert "HTML" in body["errors"][0]["message"]


def test_a_pdf_is_no_signature(client, token):
    body = assert_problem(upload(client, bearer(token), PDF, "signature", "x.png"), 422, "file")
    assert "PDF" in body["errors"][0]["message"]


def test_an_empty_file_is_refused(client, token):
    assert_problem(upload(client, bearer(token), b""), 422, "file")


def test_a_file_over_the_file_limit_is_refused(app, client, token):
    app.config["FILE_MAX_BYTES"] = 64
    body = assert_problem(upload(client, bearer(token), JPEG + b"\x00" * 64), 422, "file")
    assert "64 bytes" in body["errors"][0]["message"]


def test_a_request_over_the_request_limit_is_413(app, client, token):
    app.config["MAX_CONTENT_LENGTH"] = 1024
    assert_problem(upload(client, bearer(token), JPEG + b"\x00" * 2048), 413)


def test_a_missing_file_part_is_422(client, token):
    response = client.post(
        API, data={"soort": "photo"}, content_type="multipart/form-data", headers=bearer(token)
    )
    assert_problem(response, 422, "file")


@pytest.mark.parametrize("soort", ["", "selfie", "PHOTO"])
def test_a_bad_soort_is_422(client, token, soort):
    assert_problem(upload(client, bearer(token), PNG, soort), 422, "soort")


def test_missing_soort_and_file_are_both_named(client, token):
    response = client.post(API, data={}, content_type="multipart/form-data", headers=bearer(token))
    body = assert_problem(response, 422)
    assert sorted(e["field"] for e in body["errors"]) == ["file", "soort"]


@pytest.mark.parametrize(
    "content_type, data",
    [
        ("application/json", b'{"soort": "photo"}'),
        ("image/png", PNG),
        ("multipart/mixed; boundary=xyz", b"--xyz--\r\n"),
        (None, b""),
    ],
)
def test_a_body_that_is_not_multipart_is_415(client, token, content_type, data):
    response = client.post(API, data=data, content_type=content_type, headers=bearer(token))
    assert_problem(response, 415)


def test_a_nul_in_the_soort_is_refused_at_the_field(client, token):
    response = upload(client, bearer(token), PNG, "pho\x00to")
    assert_problem(response, 422)
    assert response.get_json()["errors"][0]["field"] == "soort"


def test_a_failed_upload_stores_no_row(app, client, carrier, token):
    upload(client, bearer(token), PDF, "signature")
    from portal.files.models import StoredFile

    count = in_carrier(app, carrier.id, lambda: db.session.query(StoredFile).count())
    assert count == 0


# --- metadata and download -----------------------------------------------------------------


def test_metadata_and_download_give_back_the_same_bytes(client, carrier, token):
    created = upload(client, bearer(token), JPEG, "photo", "Stal 3 — voor.jpg").get_json()
    response = client.get(f"{API}/{created['id']}", headers=bearer(token))
    assert response.status_code == 200
    body = response.get_json()
    assert {k: v for k, v in body.items() if not k.startswith("url")} == {
        k: v for k, v in created.items() if not k.startswith("url")
    }
    expires = datetime.fromisoformat(body["url_expires_at"])
    assert 0 < (expires - datetime.now(UTC)).total_seconds() <= 300

    fresh = client.application.test_client()  # no cookies, no Authorization header
    download = fetch(fresh, body["url"])
    assert download.status_code == 200
    assert download.data == JPEG
    assert download.mimetype == "image/jpeg"
    assert download.headers["Content-Length"] == str(len(JPEG))
    assert download.headers["X-Content-Type-Options"] == "nosniff"
    disposition = download.headers["Content-Disposition"]
    assert disposition.startswith("inline; ")
    assert "filename*=UTF-8''Stal%203%20%E2%80%94%20voor.jpg" in disposition
    cache = download.headers["Cache-Control"]
    assert "private" in cache and "no-store" not in cache and "public" not in cache
    max_age = int(re.search(r"max-age=(\d+)", cache).group(1))
    assert 0 < max_age <= 300


def test_the_download_of_a_mislabelled_name_carries_the_true_extension(client, token):
    created = upload(client, bearer(token), PNG, "photo", "evil.html").get_json()
    download = fetch(client, created["url"])
    assert download.mimetype == "image/png"
    assert download.headers["Content-Disposition"] == "inline; filename=evil.png"


def test_an_unchanged_download_answers_304(client, token):
    created = upload(client, bearer(token), PNG).get_json()
    first = fetch(client, created["url"])
    again = fetch(client, created["url"], headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304


def test_an_api_key_reads_a_drivers_upload(client, token, api_key):
    created = upload(client, bearer(token), PNG).get_json()
    response = client.get(f"{API}/{created['id']}", headers=bearer(api_key.key))
    assert response.status_code == 200
    assert fetch(client, response.get_json()["url"]).data == PNG


def test_an_altered_link_is_403(client, token):
    url = upload(client, bearer(token), PNG).get_json()["url"]
    path, query = link_parts(url)
    flipped = ("A" if query["sig"][0] != "A" else "B") + query["sig"][1:]
    for changed in (
        {**query, "sig": flipped},
        {**query, "exp": str(int(query["exp"]) + 3600)},
        {**query, "exp": "tomorrow"},
        {**query, "exp": "-1"},
        {**query, "exp": "9" * 5000},
        {"exp": query["exp"]},
        {"sig": query["sig"]},
    ):
        response = fetch(client, f"{path}?{urlencode(changed)}")
        assert response.status_code == 403, changed
        assert response.mimetype == "text/html"


def test_an_expired_link_is_403(app, client, carrier, token):
    file_id = uuid.UUID(upload(client, bearer(token), PNG).get_json()["id"])

    def expired():
        file = service.get_file(carrier_id=carrier.id, file_id=file_id)
        return service.signed_url(file, expires_in=-1)

    url, expires_at = in_carrier(app, carrier.id, expired)
    assert expires_at < datetime.now(UTC)
    assert fetch(client, url).status_code == 403


def test_an_address_without_a_signature_is_403_whether_the_file_exists_or_not(
    client, carrier, token
):
    file_id = upload(client, bearer(token), PNG).get_json()["id"]
    for path in (f"/bestanden/{carrier.id}/{file_id}", f"/bestanden/{uuid.uuid4()}/{uuid.uuid4()}"):
        response = fetch(client, path)
        assert response.status_code == 403
        assert response.mimetype == "text/html"
    assert fetch(client, f"/bestanden/{carrier.id}/not-a-uuid?exp=1&sig=x").status_code == 404


def test_another_carriers_file_is_404_through_the_api(app, client, other_carrier, token):
    their_driver = create_driver(app, other_carrier)
    theirs = upload(client, bearer(driver_token(client, their_driver)), PNG).get_json()
    response = client.get(f"{API}/{theirs['id']}", headers=bearer(token))
    assert_problem(response, 404)
    for method in ("PUT", "PATCH", "DELETE", "POST"):
        assert client.open(
            f"{API}/{theirs['id']}", method=method, headers=bearer(token)
        ).status_code in (404, 405)


def test_a_link_for_one_carrier_with_another_carriers_id_is_refused(
    app, client, carrier, other_carrier, token
):
    ours = upload(client, bearer(token), PNG).get_json()
    path, query = link_parts(ours["url"])
    swapped = path.replace(str(carrier.id), str(other_carrier.id))
    assert fetch(client, f"{swapped}?{urlencode(query)}").status_code == 403
    # And a link signed for the other carrier's path never opens our file.
    with app.app_context():
        sig = service._signature(other_carrier.id, uuid.UUID(ours["id"]), int(time.time()) + 60)
    exp = int(time.time()) + 60
    response = fetch(client, f"{swapped}?{urlencode({'exp': exp, 'sig': sig})}")
    assert response.status_code == 404


def test_an_unknown_file_is_404(client, token, carrier):
    assert_problem(client.get(f"{API}/{uuid.uuid4()}", headers=bearer(token)), 404)
    assert client.get(f"{API}/not-a-uuid", headers=bearer(token)).status_code == 404


def test_a_signed_in_planner_of_another_carrier_does_not_change_the_download(
    app, client, other_carrier, token
):
    from factories import create_user

    url = upload(client, bearer(token), PNG).get_json()["url"]
    login(client, create_user(app, other_carrier, "planner"))
    assert fetch(client, url).data == PNG


# --- S3 end to end -------------------------------------------------------------------------


def test_upload_and_download_through_s3(app, client, token):
    with mock_aws():
        boto3.client(
            "s3", region_name="eu-west-1", aws_access_key_id="k", aws_secret_access_key="s"
        ).create_bucket(
            Bucket="rijplan", CreateBucketConfiguration={"LocationConstraint": "eu-west-1"}
        )
        app.config.update(
            FILE_STORAGE="s3",
            S3_BUCKET="rijplan",
            S3_PREFIX="files",
            S3_REGION="eu-west-1",
            S3_ACCESS_KEY_ID="k",
            S3_SECRET_ACCESS_KEY="s",
        )
        created = upload(client, bearer(token), PDF, "document_scan").get_json()
        assert fetch(client, created["url"]).data == PDF
        from portal.files.storage import get_storage

        storage = get_storage(app)
        listed = storage.client.list_objects_v2(Bucket="rijplan")["Contents"]
        assert [o["Key"].split("/")[-1] for o in listed] == [created["id"]]
        assert listed[0]["Key"].startswith(f"files/{created['transporteur_id']}/")


def test_a_retried_upload_with_an_idempotency_key_stores_the_file_once(app, client, carrier, token):
    from portal.files.models import StoredFile

    headers = {**bearer(token), "Idempotency-Key": "upload-1"}
    first = upload(client, headers, JPEG)
    again = upload(client, headers, JPEG)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["id"] == first.get_json()["id"]
    count = in_carrier(app, carrier.id, lambda: db.session.query(StoredFile).count())
    assert count == 1


def _png_claiming(width: int, height: int) -> bytes:
    """A small PNG whose header claims width x height pixels (a decompression bomb: it
    never needs to hold them; whoever opens it tries to unpack them)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = zlib.compress(b"\x00" * 4096)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(("width", "height"), [(50_000, 50_000), (12_000, 9_000), (40_000, 10)])
def test_an_image_claiming_more_pixels_than_a_photo_is_refused(client, token, width, height):
    bomb = _png_claiming(width, height)
    body = assert_problem(upload(client, bearer(token), bomb, filename="stal.png"), 422, "file")
    assert "more pixels than a photo" in body["errors"][0]["message"]


def test_a_big_phone_photo_is_taken(client, token):
    photo = _png_claiming(8_000, 6_000)  # 48 megapixels: a phone's full resolution
    assert upload(client, bearer(token), photo, filename="stal.png").status_code == 201


def test_an_image_with_a_damaged_header_is_refused(client, token):
    # Starts like a JPEG (SOI, APP0) but never says how large it is.
    fake = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"
    body = assert_problem(upload(client, bearer(token), fake), 422, "file")
    assert "header is damaged" in body["errors"][0]["message"]


def test_a_pdf_is_downloaded_not_opened_and_no_file_runs_script(client, token):
    pdf = upload(client, bearer(token), PDF, "document_scan", "vrachtbrief.pdf").get_json()
    photo = upload(client, bearer(token), JPEG, "photo", "stal.jpg").get_json()
    saved = fetch(client, pdf["url"])
    shown = fetch(client, photo["url"])
    assert saved.headers["Content-Disposition"].startswith("attachment;")
    assert shown.headers["Content-Disposition"].startswith("inline;")
    for response in (saved, shown):
        assert response.headers["Content-Security-Policy"] == "default-src 'none'; sandbox"


def test_a_driver_reads_and_attaches_only_their_own_files_the_office_all(
    app, client, carrier, driver, token
):
    from factories import create_task

    colleague = create_driver(app, carrier, "Piet Smit", email="piet@example.nl")
    colleague_token = driver_token(client, colleague)
    key = create_api_key(app, carrier)
    theirs = upload(client, bearer(colleague_token), JPEG, "photo", "stal.jpg").get_json()
    mine = upload(client, bearer(token), JPEG, "photo", "erf.jpg").get_json()
    address = f"{API}/{theirs['id']}"

    assert client.get(address, headers=bearer(colleague_token)).status_code == 200
    assert client.get(address, headers=bearer(key.key)).status_code == 200
    refused = client.get(address, headers=bearer(token))
    assert refused.status_code == 404  # as if it did not exist
    assert client.get(f"{API}/{mine['id']}", headers=bearer(token)).status_code == 200

    # Not as evidence on the driver's own task either; once the office puts it on one of
    # the driver's tasks, the driver reads it.
    task = create_task(app, carrier, driver)
    attach = client.patch(
        f"/api/v1/taken/{task.id}/status",
        json={"status": "ontvangen", "fotos": [theirs["id"]]},
        headers=bearer(token),
    )
    assert attach.status_code == 422 and attach.get_json()["errors"][0]["field"] == "fotos"
    by_office = client.patch(
        f"/api/v1/taken/{task.id}/status",
        json={"status": "ontvangen", "fotos": [theirs["id"]]},
        headers=bearer(key.key),
    )
    assert by_office.status_code in (200, 201), by_office.get_json()
    assert client.get(address, headers=bearer(token)).status_code == 200
