"""CSV import of tasks: upload, preview with errors at the cell, import of the valid rows.

The steps are the import kit's (portal/imports/), as for the customers import: between the
preview and the import the upload waits in the instance folder (`imports/<token>.json`), never
in the cookie. The preview, the import and the error report each check the rows again
against the carrier's drivers, vehicles, customers and places of that moment.
"""

from __future__ import annotations

import logging

from flask import Blueprint, render_template
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from flask_login import current_user

from portal import imports
from portal.accounts.permissions import role_required
from portal.accounts.service import carrier_zone
from portal.errors import ValidationFailed
from portal.extensions import csrf
from portal.imports import ParsedFile
from portal.tasks import csv_import, service
from portal.tasks.pages.detail import FIELD_LABELS
from portal.unit_of_work import portal_write
from portal.web.kit import current_actor, current_carrier_id

logger = logging.getLogger(__name__)

bp = Blueprint("task_import", __name__)

STEPS = imports.Steps(
    staging=imports.Staging("imports"),
    read=lambda raw, _filename: csv_import.read_csv(raw),
    max_bytes=csv_import.MAX_BYTES,
    choose=_l("Kies een CSV-bestand om te uploaden."),
    preview="task_import.preview",
)


def _load(token: str) -> dict:
    return STEPS.load(token, carrier_id=current_carrier_id())


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
    plates = {v.id: v.label for v in found.vehicles_by_plate.values()}
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
        **imports.form_limits(csv_import.COLUMNS),
        zone=carrier_zone(current_carrier_id()).key,
    ), status


@bp.get("/taken/import")
@role_required("planner")
def form():
    return _form()


@bp.get("/taken/import/voorbeeld.csv")
@role_required("planner")
def example():
    return imports.download(csv_import.example_csv(), "taken-voorbeeld.csv")


@bp.post("/taken/import")
@role_required("planner")
@portal_write
def upload():
    return STEPS.receive(_form, carrier_id=current_carrier_id(), user_id=current_user.id)


@bp.get("/taken/import/<string(length=32):token>")
@role_required("planner")
def preview(token: str):
    record = _load(token)
    parsed, results, found = _check_with_directory(record)
    return _preview(token, record, parsed, results, found)


def _preview(token: str, record: dict, parsed: ParsedFile, results: list, found, status=200):
    valid = sum(1 for r in results if r.valid)
    # After the import its rows are tasks themselves: comparing them again says nothing.
    warned = _warnings(results, found) if not record.get("imported") else _warnings([], found)
    return render_template(
        "tasks/import_preview.html",
        **imports.preview_context(token, record, parsed, results),
        valid=valid,
        invalid=len(results) - valid,
        zone=carrier_zone(current_carrier_id()).key,
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
    run = _Import(token, record)
    return STEPS.import_once(token, record, run, run.refused)


class _Import:
    """The valid rows of one upload made tasks: what STEPS.commit runs."""

    def __init__(self, token: str, record: dict) -> None:
        self.token, self.record = token, record

    def __call__(self) -> imports.Imported | imports.Nothing:
        self.parsed, self.results, self.found = _check_with_directory(self.record)
        self.good = [r for r in self.results if r.valid]
        if not self.good:
            return imports.Nothing(_("Er zijn geen geldige rijen om te importeren."))
        carrier_id = current_carrier_id()
        service.create_tasks(
            carrier_id=carrier_id,
            rows=[(row.chauffeur_id, row.data) for row in self.good],
            actor=current_actor(),
        )
        count = len(self.good)
        logger.info("import %s: %s tasks created for carrier %s", self.token[:6], count, carrier_id)
        return imports.Imported(
            {"count": count, "skipped": len(self.results) - count},
            ngettext("%(num)s taak geïmporteerd.", "%(num)s taken geïmporteerd.", count),
        )

    def refused(self, failed: ValidationFailed):
        """The rows were checked a moment ago; a driver, vehicle, customer or place changed
        since then lands here. The planner sees the refused rows at their cells when the
        service names them, else the fresh preview, and tries again."""
        if csv_import.add_service_errors(self.good, failed.errors, self.parsed.columns):
            return _preview(self.token, self.record, self.parsed, self.results, self.found, 422)
        return None


@bp.get("/taken/import/<string(length=32):token>/fouten.csv")
@role_required("planner")
def errors(token: str):
    record = _load(token)
    parsed, results = _check(record)
    return imports.report_download(record, parsed, results, name="taken")
