"""Files in S3-compatible storage over real HTTP: moto's standalone server on a loopback port,
reached by boto3 as a production bucket would be. Uploads, signed links, readiness, and a
bucket that is down: a clear 503 and nothing half-written (no row, no object)."""

from __future__ import annotations

import boto3
import pytest
from factories import bearer, driver_token, in_carrier
from files.test_api import PNG, assert_problem, fetch, upload
from moto.server import ThreadedMotoServer

BUCKET = "rijplan-files"
CREDENTIALS = {"aws_access_key_id": "test", "aws_secret_access_key": "test"}


@pytest.fixture(scope="module")
def s3_server():
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def bucket(s3_server):
    client = boto3.client("s3", endpoint_url=s3_server, region_name="eu-west-1", **CREDENTIALS)
    name = f"{BUCKET}-{id(client)}"
    client.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": "eu-west-1"})
    yield client, name
    for item in client.list_objects_v2(Bucket=name).get("Contents", []):
        client.delete_object(Bucket=name, Key=item["Key"])
    client.delete_bucket(Bucket=name)


@pytest.fixture
def on_s3(app, s3_server, bucket):
    _client, name = bucket
    app.config.update(
        FILE_STORAGE="s3",
        S3_BUCKET=name,
        S3_PREFIX="bestanden",
        S3_REGION="eu-west-1",
        S3_ENDPOINT_URL=s3_server,
        S3_ACCESS_KEY_ID=CREDENTIALS["aws_access_key_id"],
        S3_SECRET_ACCESS_KEY=CREDENTIALS["aws_secret_access_key"],
    )
    return app


def objects(client, name) -> list[str]:
    return [item["Key"] for item in client.list_objects_v2(Bucket=name).get("Contents", [])]


def file_rows(app, carrier) -> int:
    from portal.extensions import db
    from portal.files.models import StoredFile

    return in_carrier(app, carrier.id, lambda: db.session.query(StoredFile).count())


def test_an_upload_travels_to_the_bucket_and_back_over_http(on_s3, client, carrier, driver, bucket):
    s3, name = bucket
    token = driver_token(client, driver)
    created = upload(client, bearer(token), PNG, "signature", "handtekening.png")
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    (key,) = objects(s3, name)
    assert key.startswith(f"bestanden/{carrier.id}/") and key.endswith(body["id"])
    # The signed link streams the object back from the bucket.
    assert fetch(client, body["url"]).data == PNG
    assert client.get("/readyz").get_json()["checks"]["storage"] == "ok"


def test_a_bucket_that_is_down_is_a_clear_503_and_nothing_is_half_written(
    on_s3, client, carrier, driver, bucket
):
    s3, name = bucket
    token = driver_token(client, driver)
    stored = upload(client, bearer(token), PNG, "signature").get_json()
    before = file_rows(on_s3, carrier)
    # The bucket goes away (as a storage outage looks to the app: every write refused).
    for key in objects(s3, name):
        s3.delete_object(Bucket=name, Key=key)
    s3.delete_bucket(Bucket=name)
    try:
        refused = upload(client, bearer(token), PNG, "signature")
        problem = assert_problem(refused, 503)
        assert problem["code"] == "storage_unavailable"
        assert "try again" in problem["detail"]
        assert file_rows(on_s3, carrier) == before  # no row without its bytes
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert ready.get_json()["checks"]["storage"] == "unwritable"
        # A signed link to a file whose bytes cannot be read answers 503, not 500.
        assert fetch(client, stored["url"]).status_code == 503
    finally:
        s3.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": "eu-west-1"})
    assert objects(s3, name) == []  # nothing half-written while it was down


def test_a_storage_server_that_does_not_answer_is_a_503(app, client, carrier, driver):
    import socket

    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}"
    app.config.update(
        FILE_STORAGE="s3",
        S3_BUCKET=BUCKET,
        S3_REGION="eu-west-1",
        S3_ENDPOINT_URL=dead,
        S3_ACCESS_KEY_ID="test",
        S3_SECRET_ACCESS_KEY="test",
    )
    token = driver_token(client, driver)
    before = file_rows(app, carrier)
    problem = assert_problem(upload(client, bearer(token), PNG, "signature"), 503)
    assert problem["code"] == "storage_unavailable"
    assert file_rows(app, carrier) == before
