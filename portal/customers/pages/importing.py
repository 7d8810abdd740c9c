"""Import of customers with their places from CSV or XLSX: upload, a preview of what each
row does (with errors at the cell), the import of the valid rows, the error report.

As the tasks import does: between the preview and the import the upload waits in the
instance folder (`customer-imports/<token>.json`) with the carrier, the uploader and an
expiry, its rows as text; never in the cookie, and the rows never come back from the client.
The preview, the import and the error report each check the rows again against the carrier's
customers of that moment, so importing the same file twice adds nothing the second time.
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

from flask import Response, abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import format_decimal, ngettext
from flask_babel import gettext as _
from flask_login import current_user

from portal.accounts.permissions import role_required
from portal.customers import csv_import, service
from portal.customers.csv_import import FileRefused, ParsedFile
from portal.customers.pages.kit import bp
from portal.customers.words import SOORT_LABELS
from portal.errors import ValidationFailed
from portal.extensions import csrf
from portal.unit_of_work import after_commit, after_rollback, portal_write, refused
from portal.web.kit import current_actor, current_carrier_id

logger = logging.getLogger(__name__)

TTL_SECONDS = 2 * 60 * 60
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32}$")
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


# --- the stored upload -------------------------------------------------------------------


def _path(token: str, suffix: str = ".json") -> Path:
    # The token is checked before it names a file: nothing but 32 URL-safe characters.
    if not _TOKEN.match(token):
        abort(404)
    return Path(current_app.instance_path) / "customer-imports" / f"{token}{suffix}"


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


def _sweep(folder: Path) -> None:
    """Remove uploads past their expiry (by file age: no other carrier's file is read)."""
    cutoff = time.time() - TTL_SECONDS - 60
    for path in folder.iterdir() if folder.is_dir() else ():
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink(missing_ok=True)
        except OSError:
            continue


def _load(token: str) -> dict:
    """The carrier's stored upload; 404 when absent, expired or another carrier's."""
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
    parsed = ParsedFile.from_dict(record["parsed"])
    return parsed, csv_import.check(parsed, carrier_id=current_carrier_id())


# --- pages -------------------------------------------------------------------------------


def _form(error: str | None = None, status: int = 200):
    return render_template(
        "customers/import.html",
        error=error,
        columns=[(name, csv_import.COLUMN_HELP[name]) for name in csv_import.COLUMN_ORDER],
        max_rows=format_decimal(csv_import.MAX_ROWS),
        max_mb=csv_import.MAX_BYTES // (1024 * 1024),
    ), status


@bp.get("/klanten/import")
@role_required("planner")
def import_form():
    """The upload form, with the columns a file may have and the example files."""
    return _form()


@bp.get("/klanten/import/voorbeeld.csv")
@role_required("planner")
def import_example_csv():
    return Response(
        csv_import.example_csv().encode("utf-8"),
        mimetype="text/csv",
        headers={"Content-Disposition": 'attachment; filename="klanten-voorbeeld.csv"'},
    )


@bp.get("/klanten/import/voorbeeld.xlsx")
@role_required("planner")
def import_example_xlsx():
    return Response(
        csv_import.example_xlsx(),
        mimetype=XLSX,
        headers={"Content-Disposition": 'attachment; filename="klanten-voorbeeld.xlsx"'},
    )


@bp.post("/klanten/import")
@role_required("planner")
@portal_write
def import_upload():
    """Read the file and keep its rows for the preview; a file that cannot be read is
    refused on the form, with the reason."""
    upload = request.files.get("bestand")
    if upload is None or not upload.filename:
        return _form(_("Kies een CSV- of Excel-bestand om te uploaden."), 422)
    # One byte past the limit is enough to know the file is too large.
    raw = upload.stream.read(csv_import.MAX_BYTES + 1)
    name = os.path.basename(upload.filename.replace("\\", "/"))[:200]
    try:
        parsed = csv_import.read_file(raw, name)
    except FileRefused as refusal:
        return _form(refusal.message, refusal.status)
    if not parsed.rows:
        return _form(_("Het bestand heeft geen rijen onder de kopregel."), 422)
    token = secrets.token_urlsafe(24)  # 192 random bits, in the alphabet _path checks
    _sweep(_path(token).parent)
    now = time.time()
    record = {
        "carrier_id": str(current_carrier_id()),
        "user_id": str(current_user.id),
        "created_at": now,
        "expires_at": now + TTL_SECONDS,
        "bestandsnaam": name,
        "parsed": parsed.to_dict(),
        "imported": None,
    }
    _write(_path(token), record)
    logger.info("customer import %s: %s rows uploaded", token[:6], len(parsed.rows))
    return redirect(url_for("customers.import_preview", token=token), 303)


def _counts(results: list[csv_import.RowResult]) -> dict:
    kinds = [r.kind for r in results]
    return {
        "customers": kinds.count("new"),
        "places": sum(1 for r in results if r.kind in ("new", "new_place", "place") and r.place),
        "exists": kinds.count("exists"),
        "invalid": sum(1 for r in results if not r.valid),
    }


@bp.get("/klanten/import/<string(length=32):token>")
@role_required("planner")
def import_preview(token: str):
    """What each row does, with its errors at the cell; the button that imports."""
    record = _load(token)
    parsed, results = _check(record)
    done = (record.get("imported") or {}).get("rows", {})
    for result in results:
        # After the import its rows are customers themselves: say what it did with them.
        if str(result.number) in done:
            result.errors = {}
            result.kind, result.customer, result.place, result.first = done[str(result.number)]
    counts = _counts(results)
    only_errors = request.args.get("alleen") == "fouten"
    return render_template(
        "customers/import_preview.html",
        token=token,
        record=record,
        parsed=parsed,
        results=[r for r in results if not r.valid] if only_errors else results,
        only_errors=only_errors,
        total=len(results),
        counts=counts,
        todo=counts["customers"] + counts["places"],
        row_key=csv_import.ROW,
        soort_labels=SOORT_LABELS,
    )


@bp.post("/klanten/import/<string(length=32):token>")
@csrf.exempt  # checked below, after the 404: another carrier's token answers 404 either way
@role_required("planner")
@portal_write
def import_run(token: str):
    """Import the valid rows in one unit of work: everything, or nothing when the service
    refuses one (a customer or number added meanwhile)."""
    record = _load(token)
    csrf.protect()
    back = redirect(url_for("customers.import_preview", token=token), 303)
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
    after_rollback(lambda: lock.unlink(missing_ok=True))
    _parsed, results = _check(record)
    items = csv_import.plan(results)
    if not items:
        lock.unlink(missing_ok=True)
        flash(_("Er is niets te importeren: elke rij heeft fouten of bestaat al."), "error")
        return back
    try:
        customers, places = service.import_customers(
            carrier_id=current_carrier_id(), items=items, actor=current_actor()
        )
    except ValidationFailed as failed:
        logger.warning("customer import %s refused by the service: %s", token[:6], failed)
        flash(
            _(
                "De import is afgebroken; er is niets geïmporteerd. Controleer het voorbeeld "
                "en probeer het opnieuw."
            ),
            "error",
        )
        return refused(back)
    invalid = sum(1 for r in results if not r.valid)
    record["imported"] = {
        "at": time.time(),
        "customers": customers,
        "places": places,
        "skipped": invalid,
        "rows": {str(r.number): [r.kind, r.customer, r.place, r.first] for r in results if r.valid},
    }
    # The upload says "imported" once the customers are committed, not before.
    after_commit(lambda: _write(_path(token), record))
    logger.info("customer import %s: %s customers, %s places", token[:6], customers, places)
    flash(_imported_message(customers, places, invalid), "success")
    return back


def _imported_message(customers: int, places: int, invalid: int) -> str:
    text = _(
        "Geïmporteerd: %(customers)s en %(places)s.",
        customers=ngettext("%(num)s nieuwe klant", "%(num)s nieuwe klanten", customers),
        places=ngettext("%(num)s locatie", "%(num)s locaties", places),
    )
    if invalid:
        text += " " + ngettext(
            "%(num)s rij met fouten is overgeslagen.",
            "%(num)s rijen met fouten zijn overgeslagen.",
            invalid,
        )
    return text


@bp.get("/klanten/import/<string(length=32):token>/fouten.csv")
@role_required("planner")
def import_errors(token: str):
    """The rows with errors, with a column that says what is wrong: fix and upload again."""
    record = _load(token)
    parsed, results = _check(record)
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", Path(record.get("bestandsnaam") or "klanten").stem)
    name = f"{stem.strip('-')[:60] or 'klanten'}-fouten.csv"
    return Response(
        csv_import.error_report(parsed, results).encode("utf-8"),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )
