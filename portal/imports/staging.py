"""Where an upload waits between its preview and its import: in the instance folder, under
`<folder>/<token>.json`, with the carrier, the uploader and an expiry. Not in the session
cookie: a 5 MB file does not fit in one (browsers keep about 4 kB), and the rows must never
come back from the client. The record holds the rows as the planner sent them, not their
verdict: the preview, the import and the error report each check them again."""

from __future__ import annotations

import json
import os
import re
import secrets
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from flask import abort, current_app

from portal.imports.files import ParsedFile

TTL_SECONDS = 2 * 60 * 60
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32}$")


@dataclass(frozen=True)
class Staging:
    """The waiting uploads of one import, in the instance folder's `folder`."""

    folder: str

    def path(self, token: str, suffix: str = ".json") -> Path:
        # The token is checked before it names a file: nothing but 32 URL-safe characters.
        if not _TOKEN.match(token):
            abort(404)
        return Path(current_app.instance_path) / self.folder / f"{token}{suffix}"

    def keep(
        self, parsed: ParsedFile, filename: str, *, carrier_id: uuid.UUID, user_id: uuid.UUID
    ) -> str:
        """Store an upload (removing those past their expiry first); its token."""
        self.sweep()
        token = secrets.token_urlsafe(24)  # 192 random bits, in the alphabet path() checks
        now = time.time()
        record = {
            "carrier_id": str(carrier_id),
            "user_id": str(user_id),
            "created_at": now,
            "expires_at": now + TTL_SECONDS,
            "bestandsnaam": filename,
            "parsed": parsed.to_dict(),
            "imported": None,
        }
        self.write(token, record)
        return token

    def write(self, token: str, record: dict) -> None:
        """Write the record atomically: a reader sees the old or the new file, never half."""
        path = self.path(token)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".import-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(record, out, ensure_ascii=False)
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

    def sweep(self) -> None:
        """Remove uploads past their expiry (by file age: no other carrier's file is read)."""
        folder = Path(current_app.instance_path) / self.folder
        if not folder.is_dir():
            return
        cutoff = time.time() - TTL_SECONDS - 60
        for path in folder.iterdir():
            try:
                if path.stat().st_mtime < cutoff:
                    path.unlink(missing_ok=True)
            except OSError:
                continue

    def load(self, token: str, *, carrier_id: uuid.UUID) -> dict:
        """The carrier's stored upload; 404 when absent or another carrier's. An expired one
        of the carrier's own answers 404 as well, after removing it."""
        path = self.path(token)
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            abort(404)
        if record.get("carrier_id") != str(carrier_id):
            abort(404)
        if record.get("expires_at", 0) < time.time() and not record.get("imported"):
            path.unlink(missing_ok=True)
            abort(404)
        return record

    def claim(self, token: str) -> bool:
        """Take the upload's import lock: False when another request holds it (the button
        pressed twice at once)."""
        try:
            os.close(os.open(self.path(token, ".lock"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return False
        return True

    def release(self, token: str) -> None:
        self.path(token, ".lock").unlink(missing_ok=True)
