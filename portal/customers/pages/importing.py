"""Import of customers with their places from CSV or XLSX: upload, a preview of what each
row does (with errors at the cell), the import of the valid rows, the error report.

The steps are the import kit's (portal/imports/), as for the tasks import: between the
preview and the import the upload waits in the instance folder (`customer-imports/`), never
in the cookie. The preview, the import and the error report each check the rows again
against the carrier's customers of that moment, so importing the same file twice adds
nothing the second time.
"""

from __future__ import annotations

import logging

from flask import Response, render_template
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from flask_login import current_user

from portal import imports
from portal.accounts.permissions import role_required
from portal.customers import csv_import, service
from portal.customers.pages.kit import bp
from portal.customers.words import SOORT_LABELS
from portal.extensions import csrf
from portal.imports import ParsedFile
from portal.unit_of_work import portal_write
from portal.web.kit import current_actor, current_carrier_id

logger = logging.getLogger(__name__)

STEPS = imports.Steps(
    staging=imports.Staging("customer-imports"),
    read=csv_import.read_file,
    max_bytes=csv_import.MAX_BYTES,
    choose=_l("Kies een CSV- of Excel-bestand om te uploaden."),
    preview="customers.import_preview",
)
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _load(token: str) -> dict:
    return STEPS.load(token, carrier_id=current_carrier_id())


def _check(record: dict) -> tuple[ParsedFile, list[csv_import.RowResult]]:
    parsed = ParsedFile.from_dict(record["parsed"])
    return parsed, csv_import.check(parsed, carrier_id=current_carrier_id())


# --- pages -------------------------------------------------------------------------------


def _form(error: str | None = None, status: int = 200):
    return render_template(
        "customers/import.html",
        error=error,
        columns=[(name, csv_import.COLUMN_HELP[name]) for name in csv_import.COLUMN_ORDER],
        **imports.form_limits(csv_import.COLUMNS),
    ), status


@bp.get("/klanten/import")
@role_required("planner")
def import_form():
    """The upload form, with the columns a file may have and the example files."""
    return _form()


@bp.get("/klanten/import/voorbeeld.csv")
@role_required("planner")
def import_example_csv():
    return imports.download(csv_import.example_csv(), "klanten-voorbeeld.csv")


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
    return STEPS.receive(_form, carrier_id=current_carrier_id(), user_id=current_user.id)


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
    return render_template(
        "customers/import_preview.html",
        **imports.preview_context(token, record, parsed, results),
        counts=counts,
        todo=counts["customers"] + counts["places"],
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
    return STEPS.import_once(token, record, lambda: _import(token, record))


def _import(token: str, record: dict) -> imports.Imported | imports.Nothing:
    _parsed, results = _check(record)
    items = csv_import.plan(results)
    if not items:
        return imports.Nothing(_("Er is niets te importeren: elke rij heeft fouten of bestaat al."))
    customers, places = service.import_customers(
        carrier_id=current_carrier_id(), items=items, actor=current_actor()
    )
    invalid = sum(1 for r in results if not r.valid)
    logger.info("customer import %s: %s customers, %s places", token[:6], customers, places)
    return imports.Imported(
        {
            "customers": customers,
            "places": places,
            "skipped": invalid,
            "rows": {
                str(r.number): [r.kind, r.customer, r.place, r.first] for r in results if r.valid
            },
        },
        _imported_message(customers, places, invalid),
    )


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
    return imports.report_download(record, parsed, results, name="klanten")
