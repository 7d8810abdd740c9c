"""The payroll export in the portal (/uren/loonexport, role planner): a period's approved
weeks previewed and exported as CSV or XLSX after a confirmation, earlier batches to download
again, and the column settings the carrier's payroll package needs.

As the billing export: exporting is a POST after a confirmation page, then a redirect to
the page, which starts the file's download (a reload neither exports nor downloads again).
"""

from __future__ import annotations

import uuid
from datetime import date, datetime, timedelta

from flask import (
    Response,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from flask_login import current_user

from portal.accounts import payroll_columns as settings
from portal.accounts.permissions import role_required
from portal.errors import NotFound, ValidationFailed
from portal.hours.days import queries
from portal.hours.pages.kit import MIMETYPES
from portal.hours.pages.kit import payroll_bp as bp
from portal.hours.pages.payroll_forms import ColumnsForm, ExportForm, ExportQueryForm, PeriodForm
from portal.hours.payroll import batches as service
from portal.hours.payroll import columns as payroll_columns
from portal.hours.totals import IsoWeek
from portal.labels import window_name
from portal.unit_of_work import portal_write
from portal.web.kit import current_actor, current_carrier_id, current_zone, errors_at_fields

ROWS_SHOWN = 500
EXPORTS_PER_PAGE = 20
DOWNLOAD_KEY = "payroll_download"
CATEGORIES = {
    "personeelsnummer": _l("Personeelsnummer"),
    "naam": _l("Naam van de chauffeur"),
    "jaar": _l("Jaar van de week"),
    "week": _l("Weeknummer"),
    "normaal": _l("Normale uren"),
    "meeruren": _l("Meeruren (boven de contracturen, geen overuren)"),
    "overuren_130": _l("Overuren"),
    "zaterdag_150": _l("Uren op zaterdag"),
    "zondag_200": _l("Uren op zon- en feestdagen"),
    "zaterdag_boven_contract": _l("Uren op zaterdag boven de contracturen"),
    "zondag_boven_contract": _l("Uren op zon- en feestdagen boven de contracturen"),
    "nachttoeslag": _l("Uren met de toeslag voor eendaagse nachtritten"),
    "feestdag": _l("Doorbetaalde feestdagen, niet gewerkt"),
    "aanvulling": _l("Aanvulling tot de contracturen"),
    "verblijfkosten": _l("Verblijfkosten"),
}
UNITS = {"tekst": _l("tekst"), "getal": _l("getal"), "uren": _l("uren"), "geld": _l("euro")}
# Why a week cannot be computed (cao.CaoError codes), as the planner reads it.
FOUTEN = {
    "regelset_wijzigt_in_week": _l("een regelset begint midden in deze week"),
    "geen_regelset": _l("er geldt geen regelset in deze week"),
    "regelset_ongeldig": _l("de regelset van deze week klopt niet"),
}


@bp.context_processor
def _helpers():
    return {
        "category_label": category_label,
        "fout_text": lambda fout: FOUTEN.get(fout.code, _l("deze week kan niet worden berekend")),
        "units": UNITS,
        "value": payroll_columns.value,
    }


def category_label(column: payroll_columns.Column) -> str:
    if column.key.startswith(payroll_columns.WINDOW):
        name = window_name(column.key[len(payroll_columns.WINDOW) :])
        return _("Onregelmatige uren: %(venster)s", venster=name)
    return str(CATEGORIES.get(column.key, column.key))


def month_weeks(day: date) -> tuple[IsoWeek, IsoWeek]:
    """The weeks of day's month, a week counting in the month its Thursday lies in (as an ISO
    week belongs to the year of its Thursday): the period payroll is usually run for."""
    first = day.replace(day=1)
    last = (first + timedelta(days=31)).replace(day=1) - timedelta(days=1)
    return (
        IsoWeek.of(first + timedelta(days=(3 - first.weekday()) % 7)),
        IsoWeek.of(last - timedelta(days=(last.weekday() - 3) % 7)),
    )


def default_period(today: date) -> tuple[IsoWeek, IsoWeek]:
    """The weeks of last month."""
    return month_weeks(today.replace(day=1) - timedelta(days=1))


def opening_period(carrier_id: uuid.UUID, today: date) -> tuple[IsoWeek, IsoWeek]:
    """The first period not exported yet: the month of the earliest approved week of the
    last year that no export carried; else the month after the last exported week (at
    most this month); else last month."""
    since = IsoWeek.of(today).shifted(-service.MAX_WEEKS)
    first = queries.first_unexported_week(carrier_id=carrier_id, since=since)
    if first is not None:
        return month_weeks(first.monday + timedelta(days=3))
    last = queries.last_exported_week(carrier_id=carrier_id)
    if last is None:
        return default_period(today)
    after = month_weeks(last.monday + timedelta(days=3))[1].shifted(1)
    return month_weeks(min(after.monday + timedelta(days=3), today))


def _period_form(formdata, cls=PeriodForm):
    form = cls(formdata)
    if not formdata.get("van") and not formdata.get("tot"):
        today = datetime.now(current_zone()).date()
        form.van.data, form.tot.data = opening_period(current_carrier_id(), today)
    return form


def nothing_to_export(counts: dict) -> str:
    """Why an export found nothing: one sentence per reason."""
    parts = [_("Er is niets te exporteren in deze periode.")]
    if counts.get("al_geexporteerd"):
        parts.append(
            ngettext(
                "%(num)s goedgekeurde week is al geëxporteerd: vink „Opnieuw exporteren” aan "
                "om die nog eens te exporteren.",
                "%(num)s goedgekeurde weken zijn al geëxporteerd: vink „Opnieuw exporteren” "
                "aan om ze nog eens te exporteren.",
                counts.get("al_geexporteerd"),
            )
        )
    if counts.get("niet_goedgekeurd"):
        parts.append(left_out(counts["niet_goedgekeurd"]))
    if counts.get("fout"):
        parts.append(
            ngettext(
                "%(num)s goedgekeurde week kan niet worden berekend.",
                "%(num)s goedgekeurde weken kunnen niet worden berekend.",
                counts.get("fout"),
            )
        )
    return " ".join(parts)


def left_out(count: int) -> str:
    return ngettext(
        "%(num)s week is nog niet goedgekeurd en gaat niet mee: keur die eerst goed onder Uren.",
        "%(num)s weken zijn nog niet goedgekeurd en gaan niet mee: keur ze eerst goed onder Uren.",
        count,
    )


def without_number(rows, columns) -> list:
    """The drivers of rows without a payroll number, once each, when the file carries one."""
    if not any(c.key == "personeelsnummer" and c.mee for c in columns):
        return []
    found: dict = {}
    for row in rows:
        if not (row.personeelsnummer or "").strip():
            found.setdefault(row.driver_id, row)
    return list(found.values())


def _render(form, *, valid: bool, status: int = 200, problem: str | None = None):
    carrier_id = current_carrier_id()
    preview, columns, kop = None, [], "naam"
    if valid:
        preview = service.preview(carrier_id=carrier_id, start=form.van.data, end=form.tot.data)
        figures = [row.cijfers for row in preview.rows if row.cijfers]
        kop, columns = payroll_columns.column_settings(carrier_id=carrier_id, figures=figures)
    context = {
        "form": form,
        "valid": valid,
        "preview": preview,
        "shown": preview.rows[:ROWS_SHOWN] if preview else [],
        "counts": preview.counts if preview else {},
        "pay_columns": [c for c in columns if c.mee and c.soort in ("uren", "geld")],
        "kop": kop,
        "problem": problem,
        "download": _just_exported(carrier_id),
        "period_args": form.args,
        "left_out": left_out,
        "no_number": without_number(preview.te_exporteren(True), columns) if preview else [],
    }
    return make_response(render_template("hours/payroll/index.html", **context), status)


def _just_exported(carrier_id: uuid.UUID) -> dict | None:
    """The batch this planner just exported, once: its file downloads as the page opens."""
    made = session.pop(DOWNLOAD_KEY, None)
    if not isinstance(made, dict) or made.get("formaat") not in MIMETYPES:
        return None
    try:
        batch = service.get_export(carrier_id=carrier_id, export_id=uuid.UUID(str(made["id"])))
    except (NotFound, ValueError):
        return None
    fmt = made["formaat"]
    url = url_for("payroll.download", loon_export_id=batch.id, fmt=fmt)
    return {"batch": batch, "formaat": fmt, "url": url}


@bp.get("")
@role_required("planner")
def index():
    """A period's driver-weeks: approved or not, exported before or not, their figures."""
    form = _period_form(request.args)
    valid = form.validate()
    return _render(form, valid=valid, status=200 if valid else 422)


def _refused(formdata, problem: str):
    shown = _period_form(formdata)
    valid = shown.validate()
    return _render(shown, valid=valid, status=422, problem=problem)


@bp.get("/export")
@role_required("planner")
def confirm_export():
    """Ask before exporting: what goes along, what is left out and why."""
    form = _period_form(request.args, ExportQueryForm)
    if not form.validate():
        return _refused(request.args, _("Kies CSV of XLSX en een geldige periode."))
    carrier_id = current_carrier_id()
    preview = service.preview(carrier_id=carrier_id, start=form.van.data, end=form.tot.data)
    chosen = preview.te_exporteren(form.opnieuw.data)
    if not chosen:
        return _refused(request.args, nothing_to_export(preview.counts))
    return render_template(
        "hours/payroll/confirm.html",
        form=form,
        preview=preview,
        counts=preview.counts,
        chosen=chosen,
        again=sum(1 for row in chosen if row.geexporteerd),
        drivers=len({row.driver_id for row in chosen}),
        period_args=form.args,
        left_out=left_out,
        no_number=without_number(chosen, payroll_columns.column_settings(carrier_id=carrier_id)[1]),
    )


@bp.post("/export")
@role_required("planner")
@portal_write
def export():
    """Export the confirmed weeks and return to the page, which starts the download."""
    form = ExportForm()
    if not form.validate():
        return _refused(request.form, _("Kies CSV of XLSX en een geldige periode."))
    try:
        batch, _preview = service.export(
            carrier_id=current_carrier_id(),
            van=form.van.data,
            tot=form.tot.data,
            opnieuw=form.opnieuw.data,
            actor_label=current_user.email,
        )
    except ValidationFailed as error:
        return _refused(request.form, nothing_to_export(error.errors[0]))
    session[DOWNLOAD_KEY] = {"id": str(batch.id), "formaat": form.formaat.data}
    return redirect(url_for("payroll.index", **form.args), code=303)


@bp.get("/exports")
@role_required("planner")
def history():
    """The carrier's payroll batches, newest first, to download again."""
    page = min(max(request.args.get("pagina", default=1, type=int), 1), 10_000)
    found = service.list_exports(
        carrier_id=current_carrier_id(),
        limit=EXPORTS_PER_PAGE + 1,
        offset=(page - 1) * EXPORTS_PER_PAGE,
    )
    return render_template(
        "hours/payroll/history.html",
        exports=found[:EXPORTS_PER_PAGE],
        page=page,
        more=len(found) > EXPORTS_PER_PAGE,
        week_of=IsoWeek.of,
    )


@bp.get("/exports/<uuid:loon_export_id>.<any(csv, xlsx):fmt>")
@role_required("planner")
def download(loon_export_id: uuid.UUID, fmt: str):
    """A batch's file, the same bytes as the first time."""
    batch, weeks = service.export_weeks(carrier_id=current_carrier_id(), export_id=loon_export_id)
    body = service.to_csv(batch, weeks) if fmt == "csv" else service.to_xlsx(batch, weeks)
    response = Response(body, mimetype=MIMETYPES[fmt])
    response.headers["Content-Disposition"] = (
        f"attachment; filename={service.file_name(batch, fmt)}"
    )
    return response


@bp.route("/kolommen", methods=("GET", "POST"))
@role_required("planner")
@portal_write
def columns():
    """The columns of the export: per category included or not, its name and code, and
    whether the header row carries the names or the codes."""
    carrier_id = current_carrier_id()
    kop, found = payroll_columns.column_settings(carrier_id=carrier_id)
    known = {c.key: c for c in found}
    if request.method == "GET":
        rows = [{"key": c.key, "mee": c.mee, "naam": c.naam, "code": c.code} for c in found]
        form = ColumnsForm(data={"kop": kop, "kolommen": rows})
    else:
        form = ColumnsForm()
        if form.validate():
            data = form.data_for_service(set(known))
            data["kolommen"] = payroll_columns.default_names_as_source(
                columns=found, kolommen=data["kolommen"]
            )
            # Keep the settings of windows no current rule set has (an old week may need them).
            stored = settings.payroll_columns(carrier_id=carrier_id)["kolommen"]
            data["kolommen"] = stored | data["kolommen"]
            try:
                settings.set_payroll_columns(
                    carrier_id=carrier_id, data=data, actor=current_actor()
                )
            except ValidationFailed as error:
                _column_errors_at_rows(form, error.errors)
            else:
                flash(_("De kolommen van de loonexport zijn opgeslagen."))
                return redirect(url_for("payroll.columns"), code=303)
    status = 422 if request.method == "POST" else 200
    rows = [(entry, known.get(entry.form.key.data)) for entry in form.kolommen.entries]
    return make_response(
        render_template("hours/payroll/columns.html", form=form, rows=rows, units=UNITS), status
    )


# The column settings' refusals by code (accounts/payroll_columns.py names the code in
# `message` where the error has no `code` of its own).
COLUMN_ERRORS = {
    "required": _l("Vul een naam in."),
    "duplicate": _l("Twee kolommen die meegaan hebben dezelfde waarde."),
}


def _column_errors_at_rows(form: ColumnsForm, errors: list[dict]) -> None:
    """Each refusal at its column's row (naam or code), else at the header choice."""
    rows = {entry.form.key.data: entry.form for entry in form.kolommen.entries}
    for item in errors:
        key, _dot, part = item["field"].rpartition(".")
        row = rows.get(key) if part in ("naam", "code") else None
        target, field = (row, part) if row is not None else (form, "kop")
        coded = {**item, "field": field, "code": item.get("code") or item["message"]}
        errors_at_fields(target, [coded], COLUMN_ERRORS)
