"""CSV import of tasks: upload, preview with errors at the cell, import of the valid rows.

Between the preview and the import the upload waits on the server, in the instance folder
under `imports/<token>.json` with the carrier, the uploader and an expiry. Not in the session
cookie: a 5 MB file does not fit in one (browsers keep about 4 kB), and the rows must never
come back from the client. The stored record holds the rows as the planner sent them, not
their verdict: the preview, the import and the error report each check them again against
the carrier's drivers, vehicles, customers and places of that moment.
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import tempfile
import time
from pathlib import Path

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import format_decimal, ngettext
from flask_babel import gettext as _
from flask_login import current_user

from portal.accounts.permissions import role_required
from portal.accounts.service import carrier_zone
from portal.errors import ValidationFailed
from portal.extensions import csrf
from portal.tasks import csv_import, service
from portal.tasks.csv_import import FileRefused, ParsedFile
from portal.tasks.pages.detail import FIELD_LABELS
from portal.unit_of_work import after_commit, after_rollback, portal_write, refused
from portal.web.kit import current_actor, current_carrier_id

logger = logging.getLogger(__name__)

bp = Blueprint("task_import", __name__)

TTL_SECONDS = 2 * 60 * 60
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32}$")


# --- the stored upload -----------------------------------------------------------------


def _folder() -> Path:
    return Path(current_app.instance_path) / "imports"


def _path(token: str, suffix: str = ".json") -> Path:
    # The token is checked before it names a file: nothing but 32 URL-safe characters.
    if not _TOKEN.match(token):
        abort(404)
    return _folder() / f"{token}{suffix}"


def _write(path: Path, record: dict) -> None:
    """Write the record atomically: a reader sees the old or the new file, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".import-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(record, out, ensure_ascii=False)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _sweep() -> None:
    """Remove uploads past their expiry (by file age: no other carrier's file is read)."""
    folder = _folder()
    if not folder.is_dir():
        return
    cutoff = time.time() - TTL_SECONDS - 60
    for path in folder.iterdir():
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink(missing_ok=True)
        except OSError:
            continue


def _load(token: str) -> dict:
    """The carrier's stored upload; 404 when absent or another carrier's. An expired one of
    the carrier's own answers 404 as well, after removing it."""
    path = _path(token)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        abort(404)
    if record.get("carrier_id") != str(current_carrier_id()):
        abort(404)
    if record.get("expires_at", 0) < time.time() and not record.get("imported"):
        path.unlink(missing_ok=True)
        abort(404)
    return record


def _check(record: dict) -> tuple[ParsedFile, list[csv_import.RowResult]]:
    parsed, results, _found = _check_with_directory(record)
    return parsed, results


def _check_with_directory(record: dict):
    carrier_id = current_carrier_id()
    parsed = ParsedFile.from_dict(record["parsed"])
    found = csv_import.directory(carrier_id=carrier_id, parsed=parsed)
    return parsed, csv_import.check(parsed, found=found, zone=carrier_zone(carrier_id)), found


def _warnings(results: list[csv_import.RowResult], found: csv_import.Directory) -> dict:
    """The planning warnings of the valid rows by row number (double bookings, VDM numbers,
    rows identical to a task or to an earlier row), with the names and plates they need."""
    good = [r for r in results if r.valid]
    found_warnings = service.import_warnings(
        carrier_id=current_carrier_id(),
        rows=[(r.number, r.chauffeur_id, r.data) for r in good],
    )
    names = {d.id: d.naam for same in found.drivers_by_name.values() for d in same}
    plates = {v.id: v.kenteken for v in found.vehicles_by_plate.values()}
    by_row = {r.number: w for r, w in zip(good, found_warnings, strict=True) if w}
    return {"warnings": by_row, "warning_names": names, "warning_plates": plates}


# --- pages -----------------------------------------------------------------------------


def _form(error: str | None = None, status: int = 200):
    columns = [
        (
            name,
            csv_import.COLUMN_HELP.get(name) or FIELD_LABELS.get(name, ""),
            name in csv_import.REQUIRED_COLUMNS,
            csv_import.KINDS.get(name) == "bool",
        )
        for name in csv_import.COLUMN_ORDER
    ]
    return render_template(
        "tasks/import.html",
        error=error,
        columns=columns,
        max_rows=format_decimal(csv_import.MAX_ROWS),
        max_mb=csv_import.MAX_BYTES // (1024 * 1024),
        zone=carrier_zone(current_carrier_id()).key,
    ), status


@bp.get("/taken/import")
@role_required("planner")
def form():
    return _form()


@bp.get("/taken/import/voorbeeld.csv")
@role_required("planner")
def example():
    return Response(
        csv_import.example_csv().encode("utf-8"),
        mimetype="text/csv",
        headers={"Content-Disposition": 'attachment; filename="taken-voorbeeld.csv"'},
    )


@bp.post("/taken/import")
@role_required("planner")
@portal_write
def upload():
    upload = request.files.get("bestand")
    if upload is None or not upload.filename:
        return _form(_("Kies een CSV-bestand om te uploaden."), 422)
    # One byte past the limit is enough to know the file is too large.
    raw = upload.stream.read(csv_import.MAX_BYTES + 1)
    try:
        parsed = csv_import.read_csv(raw)
    except FileRefused as refused:
        return _form(refused.message, refused.status)
    if not parsed.rows:
        return _form(_("Het bestand heeft geen rijen onder de kopregel."), 422)
    _sweep()
    # 192 random bits, in the URL-safe alphabet the path checks.
    token = secrets.token_urlsafe(24)
    now = time.time()
    _write(
        _path(token),
        {
            "carrier_id": str(current_carrier_id()),
            "user_id": str(current_user.id),
            "created_at": now,
            "expires_at": now + TTL_SECONDS,
            "bestandsnaam": os.path.basename(upload.filename.replace("\\", "/"))[:200],
            "parsed": parsed.to_dict(),
            "imported": None,
        },
    )
    logger.info(
        "import %s: %s rows uploaded for carrier %s",
        token[:6],
        len(parsed.rows),
        current_carrier_id(),
    )
    return redirect(url_for("task_import.preview", token=token), 303)


@bp.get("/taken/import/<string(length=32):token>")
@role_required("planner")
def preview(token: str):
    record = _load(token)
    parsed, results, found = _check_with_directory(record)
    return _preview(token, record, parsed, results, found)


def _preview(token: str, record: dict, parsed: ParsedFile, results: list, found, status=200):
    only_errors = request.args.get("alleen") == "fouten"
    valid = sum(1 for r in results if r.valid)
    # After the import its rows are tasks themselves: comparing them again says nothing.
    warned = _warnings(results, found) if not record.get("imported") else _warnings([], found)
    return render_template(
        "tasks/import_preview.html",
        token=token,
        record=record,
        parsed=parsed,
        results=[r for r in results if not r.valid] if only_errors else results,
        only_errors=only_errors,
        total=len(results),
        valid=valid,
        invalid=len(results) - valid,
        zone=carrier_zone(current_carrier_id()).key,
        row_key=csv_import.ROW,
        has_route=any(r.klant or r.route for r in results),
        **warned,
    ), status


@bp.post("/taken/import/<string(length=32):token>")
@csrf.exempt  # checked below, after the 404: another carrier's token answers 404 either way
@role_required("planner")
@portal_write
def run(token: str):
    record = _load(token)
    csrf.protect()
    back = redirect(url_for("task_import.preview", token=token), 303)
    lock = _path(token, ".lock")
    if record.get("imported"):
        flash(_("Dit bestand is al geïmporteerd."), "error")
        return back
    try:
        # Only one import per upload, even when the button is pressed twice at once.
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        flash(_("Dit bestand wordt al geïmporteerd."), "error")
        return back
    # Whatever refuses or breaks the import from here (also its commit) frees the upload.
    after_rollback(lambda: lock.unlink(missing_ok=True))
    try:
        parsed, results, found = _check_with_directory(record)
        good = [r for r in results if r.valid]
        if not good:
            lock.unlink(missing_ok=True)
            flash(_("Er zijn geen geldige rijen om te importeren."), "error")
            return back
        carrier_id = current_carrier_id()
        actor = current_actor()
        service.create_tasks(
            carrier_id=carrier_id,
            rows=[(row.chauffeur_id, row.data) for row in good],
            actor=actor,
        )
    except ValidationFailed as failed:
        # The rows were checked a moment ago; a driver, vehicle, customer or place changed
        # since then lands here. Nothing is imported: the planner sees the refused rows at
        # their cells when the service names them, else the fresh preview, and tries again.
        logger.warning("import %s refused by the service: %s", token[:6], failed)
        flash(
            _(
                "De import is afgebroken; er is niets geïmporteerd. Controleer het voorbeeld "
                "en probeer het opnieuw."
            ),
            "error",
        )
        if csv_import.add_service_errors(good, failed.errors, parsed.columns):
            return refused(_preview(token, record, parsed, results, found, 422))
        return refused(back)
    record["imported"] = {
        "at": time.time(),
        "count": len(good),
        "skipped": len(results) - len(good),
    }
    # The upload says "imported" once the tasks are committed, not before.
    after_commit(lambda: _write(_path(token), record))
    logger.info("import %s: %s tasks created for carrier %s", token[:6], len(good), carrier_id)
    flash(
        ngettext("%(num)s taak geïmporteerd.", "%(num)s taken geïmporteerd.", len(good)),
        "success",
    )
    return back


@bp.get("/taken/import/<string(length=32):token>/fouten.csv")
@role_required("planner")
def errors(token: str):
    record = _load(token)
    parsed, results = _check(record)
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", Path(record.get("bestandsnaam") or "taken").stem)
    name = f"{stem.strip('-')[:60] or 'taken'}-fouten.csv"
    return Response(
        csv_import.error_report(parsed, results).encode("utf-8"),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )
