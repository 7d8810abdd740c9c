"""Where the bytes of stored files live: one small interface, a local folder or S3.

Keys are relative, slash-separated names such as `<transporteur_id>/<yyyy>/<mm>/<uuid>`.
Every backend checks a key before using it, so a key can never climb out of its folder or
prefix (`..`, absolute paths, backslashes, empty segments).
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Protocol, runtime_checkable

from flask import Flask

from portal.config import ConfigError
from portal.errors import DomainError

logger = logging.getLogger(__name__)

EXTENSION = "rijplan_file_storage"
_SEGMENT = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]*$")
CHUNK = 1024 * 1024


class StorageError(Exception):
    """The storage backend could not do what was asked."""


class InvalidKey(StorageError, ValueError):
    """A key that could escape its folder or prefix, or is otherwise malformed."""


class KeyNotFound(StorageError, KeyError):
    """No object is stored under the key."""


class StorageUnavailable(StorageError, DomainError):
    """The backend cannot be reached or refuses to write (a bucket down, a disk full): 503,
    try again later. What was being written is not left half-written."""

    status = 503
    title = "Service unavailable"

    def __init__(self, reason: str):
        super().__init__(
            "File storage is not available right now; try again in a moment.",
            code="storage_unavailable",
        )
        self.reason = reason


def check_key(key: str) -> str:
    """The key itself when it is a safe relative name; InvalidKey otherwise."""
    if not isinstance(key, str) or not key or len(key) > 300:
        raise InvalidKey("a key is a non-empty text of at most 300 characters")
    segments = key.split("/")
    for segment in segments:
        # The pattern refuses "", ".", ".." (a segment cannot start with a dot), "\" and NUL.
        if not _SEGMENT.match(segment):
            raise InvalidKey(f"unsafe key {key!r}")
    return key


@runtime_checkable
class Storage(Protocol):
    """The storage interface every backend offers."""

    def put(self, key: str, stream: BinaryIO) -> None:
        """Store the stream's bytes (read from its current position) under key."""

    def open(self, key: str) -> BinaryIO:
        """A readable binary stream of the object; the caller closes it. KeyNotFound if absent."""

    def delete(self, key: str) -> None:
        """Remove the object; absent is fine."""

    def exists(self, key: str) -> bool:
        """Whether an object is stored under key."""

    def keys(self) -> Iterator[str]:
        """Every stored key (for backups)."""


class LocalStorage:
    """Objects as files under one folder; writes land atomically (temp file, then rename)."""

    def __init__(self, folder: str | os.PathLike[str]):
        self.folder = Path(folder).resolve()

    def _path(self, key: str) -> Path:
        path = (self.folder / check_key(key)).resolve()
        # Belt and braces: check_key already refuses "..", but a symlink could still point out.
        if not path.is_relative_to(self.folder):
            raise InvalidKey(f"unsafe key {key!r}")
        return path

    def put(self, key: str, stream: BinaryIO) -> None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".upload-")
        except OSError as error:
            raise self._unavailable(key, error) from error
        try:
            with os.fdopen(fd, "wb") as out:
                while chunk := stream.read(CHUNK):  # the caller's stream: its errors as they are
                    try:
                        out.write(chunk)
                    except OSError as error:  # ours: a disk full, a folder gone read-only
                        raise self._unavailable(key, error) from error
                try:
                    out.flush()
                    os.fsync(out.fileno())
                except OSError as error:
                    raise self._unavailable(key, error) from error
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

    @staticmethod
    def _unavailable(key: str, error: OSError) -> StorageUnavailable:
        logger.error("local storage: cannot write %s: %s", key, error)
        return StorageUnavailable(str(error))

    def keys(self):
        """Every stored key (for backups), in no particular order."""
        if not self.folder.is_dir():
            return
        for path in self.folder.rglob("*"):
            if path.is_file() and not path.name.startswith(".upload-"):
                yield path.relative_to(self.folder).as_posix()

    def open(self, key: str) -> BinaryIO:
        try:
            return self._path(key).open("rb")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise KeyNotFound(key) from None

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()


class S3Storage:
    """Objects in an S3-compatible bucket (AWS S3, MinIO, ...), under an optional prefix."""

    def __init__(self, bucket: str, *, prefix: str = "", client=None, **client_options):
        if not bucket:
            raise ConfigError("S3_BUCKET is required when FILE_STORAGE=s3")
        self.bucket = bucket
        self.prefix = prefix.strip("/") + "/" if prefix.strip("/") else ""
        if client is None:
            import boto3

            client = boto3.client("s3", **client_options)
        self.client = client

    def _name(self, key: str) -> str:
        return self.prefix + check_key(key)

    def put(self, key: str, stream: BinaryIO) -> None:
        from boto3.exceptions import S3UploadFailedError
        from botocore.exceptions import BotoCoreError, ClientError

        name = self._name(key)
        try:
            # upload_fileobj streams in parts: a large file never sits in memory whole; a
            # multipart upload that fails is aborted by it, so no part stays behind.
            self.client.upload_fileobj(stream, self.bucket, name)
        except (BotoCoreError, ClientError, S3UploadFailedError) as error:
            logger.error("s3 storage: cannot write %s: %s", name, error)
            raise StorageUnavailable(str(error)) from error

    def keys(self):
        """Every stored key under the prefix (for backups), page by page."""
        pages = self.client.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=self.prefix
        )
        for page in pages:
            for item in page.get("Contents", []):
                yield item["Key"][len(self.prefix) :]

    def open(self, key: str) -> BinaryIO:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            return self.client.get_object(Bucket=self.bucket, Key=self._name(key))["Body"]
        except self.client.exceptions.NoSuchKey:
            raise KeyNotFound(key) from None
        except (BotoCoreError, ClientError) as error:
            logger.error("s3 storage: cannot read %s: %s", key, error)
            raise StorageUnavailable(str(error)) from error

    def delete(self, key: str) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self.client.delete_object(Bucket=self.bucket, Key=self._name(key))
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(str(error)) from error

    def exists(self, key: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            self.client.head_object(Bucket=self.bucket, Key=self._name(key))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
                return False
            raise
        return True


def build_storage(config) -> Storage:
    """A storage backend from the app's config (FILE_STORAGE and its settings)."""
    kind = (config.get("FILE_STORAGE") or "local").lower()
    if kind == "local":
        folder = config.get("FILE_STORAGE_PATH") or Path(config["INSTANCE_PATH"]) / "bestanden"
        return LocalStorage(folder)
    if kind == "s3":
        options = {
            "endpoint_url": config.get("S3_ENDPOINT_URL"),
            "region_name": config.get("S3_REGION"),
            "aws_access_key_id": config.get("S3_ACCESS_KEY_ID"),
            "aws_secret_access_key": config.get("S3_SECRET_ACCESS_KEY"),
        }
        from botocore.config import Config

        return S3Storage(
            config.get("S3_BUCKET"),
            prefix=config.get("S3_PREFIX") or "",
            # A storage that does not answer is a quick 503, not a request hanging on; a
            # passing hiccup is retried a few times first.
            config=Config(
                connect_timeout=5, read_timeout=30, retries={"max_attempts": 3, "mode": "standard"}
            ),
            # Unset options fall back to boto3's own chain (environment, instance role).
            **{name: value for name, value in options.items() if value},
        )
    raise ConfigError(f"FILE_STORAGE must be 'local' or 's3', not {kind!r}")


def get_storage(app: Flask) -> Storage:
    """The app's storage backend, built once per app."""
    storage = app.extensions.get(EXTENSION)
    if storage is None:
        storage = app.extensions[EXTENSION] = build_storage(app.config)
        logger.info("file storage: %s", type(storage).__name__)
    return storage
