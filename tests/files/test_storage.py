"""The storage backends: a local folder and S3 (under moto's in-process mock, no network)."""

from __future__ import annotations

import io
import uuid
from pathlib import Path

import boto3
import pytest
from flask import Flask
from moto import mock_aws

from portal.config import ConfigError
from portal.files.storage import (
    InvalidKey,
    KeyNotFound,
    LocalStorage,
    S3Storage,
    Storage,
    build_storage,
    check_key,
    get_storage,
)

KEY = f"{uuid.uuid4()}/2026/11/{uuid.uuid4()}"
UNSAFE_KEYS = [
    "",
    "../x",
    "a/../../x",
    "a/..",
    "/etc/passwd",
    "a//b",
    "a/./b",
    "a\\b",
    "..\\x",
    "a/b\x00",
    ".hidden",
    "a/ b",
    "x" * 301,
]
CREDENTIALS = {
    "S3_ACCESS_KEY_ID": "testing",
    "S3_SECRET_ACCESS_KEY": "testing",
    "S3_REGION": "us-east-1",
}


def exercise(storage: Storage) -> None:
    """The round trip every backend must pass."""
    assert isinstance(storage, Storage)
    assert not storage.exists(KEY)
    data = bytes(range(256)) * 5000  # over 1 MiB: more than one chunk
    storage.put(KEY, io.BytesIO(data))
    assert storage.exists(KEY)
    stream = storage.open(KEY)
    try:
        assert stream.read() == data
    finally:
        stream.close()
    storage.put(KEY, io.BytesIO(b"replaced"))
    stream = storage.open(KEY)
    try:
        assert stream.read() == b"replaced"
    finally:
        stream.close()
    storage.delete(KEY)
    assert not storage.exists(KEY)
    storage.delete(KEY)  # deleting what is gone is fine
    with pytest.raises(KeyNotFound):
        storage.open(KEY)


@pytest.mark.parametrize("key", UNSAFE_KEYS)
def test_unsafe_keys_are_refused(key):
    with pytest.raises(InvalidKey):
        check_key(key)


def test_a_normal_key_passes():
    assert check_key(KEY) == KEY
    assert check_key("a/b.c/d-e_f") == "a/b.c/d-e_f"


# --- local folder -----------------------------------------------------------------------


def test_local_storage_round_trip(tmp_path):
    exercise(LocalStorage(tmp_path / "bestanden"))


def test_local_storage_writes_nothing_outside_its_folder(tmp_path):
    storage = LocalStorage(tmp_path / "bestanden")
    for key in UNSAFE_KEYS:
        for call in (
            lambda k: storage.put(k, io.BytesIO(b"x")),
            storage.open,
            storage.delete,
            storage.exists,
        ):
            with pytest.raises(InvalidKey):
                call(key)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_local_storage_does_not_follow_a_symlink_out(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_bytes(b"secret")
    folder = tmp_path / "bestanden"
    folder.mkdir()
    (folder / "link").symlink_to(outside)
    storage = LocalStorage(folder)
    with pytest.raises(InvalidKey):
        storage.open("link/secret")


def test_a_failed_local_write_leaves_no_file(tmp_path):
    class Broken(io.RawIOBase):
        def readable(self):
            return True

        def readinto(self, buffer):
            raise OSError("connection lost")

    storage = LocalStorage(tmp_path)
    with pytest.raises(OSError, match="connection lost"):
        storage.put(KEY, Broken())
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []
    assert not storage.exists(KEY)


def test_the_local_folder_defaults_to_the_instance_folder(tmp_path):
    storage = build_storage({"FILE_STORAGE": "local", "INSTANCE_PATH": str(tmp_path)})
    assert isinstance(storage, LocalStorage)
    assert storage.folder == (tmp_path / "bestanden").resolve()
    chosen = build_storage(
        {"FILE_STORAGE_PATH": str(tmp_path / "elders"), "INSTANCE_PATH": str(tmp_path)}
    )
    assert chosen.folder == (tmp_path / "elders").resolve()


def test_the_storage_is_built_once_per_app(tmp_path):
    first, second = Flask("a"), Flask("b")
    for app in (first, second):
        app.config.update(FILE_STORAGE="local", INSTANCE_PATH=str(tmp_path))
    assert get_storage(first) is get_storage(first)
    assert get_storage(first) is not get_storage(second)


def test_an_unknown_storage_kind_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="FILE_STORAGE"):
        build_storage({"FILE_STORAGE": "ftp", "INSTANCE_PATH": str(tmp_path)})


def test_s3_needs_a_bucket(tmp_path):
    with pytest.raises(ConfigError, match="S3_BUCKET"):
        build_storage({"FILE_STORAGE": "s3", "INSTANCE_PATH": str(tmp_path), **CREDENTIALS})


def test_the_app_config_has_the_file_settings(app):
    assert app.config["FILE_STORAGE"] == "local"
    assert app.config["FILE_MAX_BYTES"] == 15 * 1024 * 1024
    assert app.config["FILE_URL_TTL"] == 300
    assert get_storage(app).folder == Path(app.config["INSTANCE_PATH"]).resolve() / "bestanden"


# --- S3 ---------------------------------------------------------------------------------


@pytest.fixture
def s3():
    with mock_aws():
        client = boto3.client(
            "s3",
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        client.create_bucket(Bucket="rijplan-test")
        yield client


def test_s3_storage_round_trip(s3):
    exercise(S3Storage("rijplan-test", prefix="bestanden", client=s3))


def test_s3_keys_live_under_the_prefix(s3):
    storage = S3Storage("rijplan-test", prefix="/tenant-files/", client=s3)
    storage.put(KEY, io.BytesIO(b"abc"))
    names = [o["Key"] for o in s3.list_objects_v2(Bucket="rijplan-test")["Contents"]]
    assert names == [f"tenant-files/{KEY}"]
    for key in ("../x", "a/../../b"):
        with pytest.raises(InvalidKey):
            storage.put(key, io.BytesIO(b"x"))


def test_s3_storage_from_config(s3, tmp_path):
    storage = build_storage(
        {
            "FILE_STORAGE": "s3",
            "INSTANCE_PATH": str(tmp_path),
            "S3_BUCKET": "rijplan-test",
            "S3_PREFIX": "p",
            "S3_ENDPOINT_URL": None,
            **CREDENTIALS,
        }
    )
    assert isinstance(storage, S3Storage)
    assert storage.prefix == "p/"
    assert storage.client.meta.region_name == "us-east-1"
    exercise(storage)


def test_the_s3_endpoint_comes_from_config(tmp_path):
    storage = build_storage(
        {
            "FILE_STORAGE": "S3",
            "INSTANCE_PATH": str(tmp_path),
            "S3_BUCKET": "b",
            "S3_ENDPOINT_URL": "http://minio.local:9000",
            **CREDENTIALS,
        }
    )
    assert storage.client.meta.endpoint_url == "http://minio.local:9000"
