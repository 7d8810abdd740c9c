"""The planners' driving-time pages (EU 561/2006): every driver's remaining driving time now,
the infringements over a period with their export for the driver's signature, one driver's
28 days (card and app side by side, the differences named), one day in detail, and the
download deadlines of cards and vehicle units.

Every figure comes from portal.tacho.driving (which reads a fixed number of queries however
many drivers or days) and is worded by portal.tacho.wording. Pages work without JavaScript:
the day bars are SVG drawn on the server, filters and navigation are links and GET forms,
the card number form posts and redirects.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import format_date, format_datetime, ngettext
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import DateField, SelectChoice, SelectField, StringField
from wtforms.validators import Optional, ValidationError

from portal.accounts.permissions import object_route, role_required
from portal.accounts.service import current_carrier_of
from portal.drivers import service as drivers
from portal.drivers.models import Driver
from portal.errors import ValidationFailed
from portal.tacho import driving, driving_export, service, wording
from portal.tacho.forms import driver_choices
from portal.tacho.segments import ACTIVITEITEN, DAY_MIN, KAART_HANDMATIG, ONBEKEND, midnight
from portal.types import period_bound, utcnow
from portal.validators import in_calendar
from portal.web import errors_at_fields
from portal.web.kit import Pager, current_actor, current_carrier_id, current_zone

bp = Blueprint("driving", __name__)

PAGE_SIZE = 50  # findings per page
WINDOW_DAYS = 28  # the days of a driver's overview, and the default period of findings
MAX_PERIOD_DAYS = 366  # the longest period of findings checked at once
EN_DASH = "\u2013"
MIMETYPES = {
    "csv": "text/csv",  # Response adds "; charset=utf-8" to a text/* type
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}

# Fill colour (Okabe and Ito's palette, told apart with colour blindness too) and texture of
# each activity; unknown is grey and hatched so it never reads as rest. The templates draw the
# patterns once per page (templates/tacho/driving/_patterns.html).
STYLE = {
    "rijden": ("#0072B2", "solid"),
    "werk": ("#E69F00", "hatch"),
    "beschikbaar": ("#56B4E9", "vertical"),
    "rust": ("#009E73", "horizontal"),
    "onbekend": ("#C9CDD2", "unknown"),
}

DEADLINE_LABELS = {
    "te_laat": _l("Te laat"),
    "binnenkort": _l("Binnenkort"),
    "ok": _l("Op tijd"),
    "nooit": _l("Nooit gedownload"),
}
DEADLINE_KINDS = {"kaart": _l("Bestuurderskaart"), "voertuig": _l("Voertuigeenheid")}
SORT_LABELS = {"ernst": _l("Ernstigste eerst"), "datum": _l("Nieuwste eerst")}


# --- helpers --------------------------------------------------------------------------


def _today() -> date:
    """Today in the carrier's time zone."""
    return datetime.now(current_zone()).date()


def _utc_today() -> date:
    """Today as the tachograph counts days: in UTC."""
    return utcnow().date()


def _date(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def _uuid(value: str | None) -> uuid.UUID | None:
    try:
        return uuid.UUID(value) if value else None
    except ValueError:
        return None


def _hhmm(moment: datetime, day: date) -> str:
    """A UTC clock time on the row of day: midnight at the end is 24:00."""
    if moment >= midnight(day + timedelta(days=1)):
        return "24:00"
    return f"{moment.hour:02d}:{moment.minute:02d}"


@bp.context_processor
def _helpers() -> dict:
    return {
        "wording": wording,
        "duur": wording.duur,
        "plate": service.painted,
        "moment": wording.moment,
        "span": wording.span,
        "activity_labels": wording.ACTIVITY_LABELS,
        "activity_help": wording.ACTIVITY_HELP,
        "activiteiten": ACTIVITEITEN,
        "styles": STYLE,
        "bron_labels": wording.BRON_LABELS,
        "ernst_labels": wording.ERNST_LABELS,
        "soort_labels": wording.SOORT_LABELS,
        "regel_labels": wording.REGEL_LABELS,
        "unknown_reason": wording.unknown_reason,
        "describe": wording.finding,
        "difference": wording.difference,
        "label": wording.label,
    }


# --- bars -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    """One segment of a day bar: x and width in minutes after 00:00 UTC."""

    x: float
    width: float
    activiteit: str
    label: str  # the accessible name and tooltip: "Rijden 04:05-06:30 UTC (2 u 25)"
    handmatig: bool
    bemanning: bool


def pieces(segments, day: date) -> list[Piece]:
    """The bar of one UTC day from its segments."""
    start = midnight(day)
    out = []
    for s in segments:
        x = (s.begin - start).total_seconds() / 60
        width = (s.eind - s.begin).total_seconds() / 60
        if width <= 0:
            continue
        text = (
            f"{wording.label(wording.ACTIVITY_LABELS, s.activiteit)} "
            f"{_hhmm(s.begin, day)}{EN_DASH}{_hhmm(s.eind, day)} UTC ({wording.duur(s.minuten)})"
        )
        if s.bron == KAART_HANDMATIG:
            text += " · " + _("handmatig ingevoerd")
        if s.bemanning:
            text += " · " + _("met twee chauffeurs")
        out.append(
            Piece(
                x=round(x, 2),
                width=round(max(width, 1.0), 2),
                activiteit=s.activiteit,
                label=text,
                handmatig=s.bron == KAART_HANDMATIG,
                bemanning=s.bemanning,
            )
        )
    return out


# --- remaining driving time -----------------------------------------------------------


@dataclass(frozen=True)
class BudgetRow:
    driver: Driver
    budget: object  # rules.Budget | None
    bron: str | None
    card_until: datetime | None


BUDGET_FIELDS = (
    "resterend_tot_onderbreking_min",
    "resterend_vandaag_min",
    "resterend_week_min",
    "resterend_twee_weken_min",
    "volgende_dagrust_uiterlijk",
    "volgende_weekrust_uiterlijk",
    "verlengingen_over",
    "verkorte_rusten_over",
)


def has_unknown(budget) -> bool:
    """Whether unknown time leaves any of a budget's figures open."""
    return any(getattr(budget, name, None) is None for name in BUDGET_FIELDS)


def _sort_key(row: BudgetRow):
    name = (row.driver.naam.lower(), str(row.driver.id))
    if row.budget is None:
        return (2, 0, name)
    today = row.budget.resterend_vandaag_min
    if today is None:
        return (1, 0, name)
    return (0, today, name)


@bp.get("/rijtijden")
@role_required("planner")
def index():
    """Every active driver's remaining driving time now, least left today first."""
    carrier_id = current_carrier_id()
    people = drivers.list_drivers(carrier_id=carrier_id, active_only=True)
    found = driving.budgets(carrier_id=carrier_id, chauffeur_ids=[d.id for d in people])
    rows = sorted(
        (
            BudgetRow(d, found[d.id].budget, found[d.id].bron, found[d.id].card_until)
            for d in people
        ),
        key=_sort_key,
    )
    any_unknown = any(has_unknown(row.budget) for row in rows if row.budget is not None)
    return render_template(
        "tacho/driving/index.html", rows=rows, now=utcnow(), any_unknown=any_unknown
    )


# --- infringements --------------------------------------------------------------------


class FindingFilterForm(FlaskForm):
    """The filters of the infringements (GET; no CSRF: it changes nothing)."""

    class Meta:
        csrf = False

    van = DateField(_l("Van"), validators=[Optional(), in_calendar])
    tot = DateField(_l("Tot en met"), validators=[Optional(), in_calendar])
    chauffeur = SelectField(_l("Chauffeur"), default="")
    soort = SelectField(
        _l("Soort"),
        choices=[SelectChoice("", _l("Alles"))]
        + [SelectChoice(key, value) for key, value in wording.SOORT_LABELS.items()],
        default="",
    )
    ernst = SelectField(
        _l("Ernst"),
        choices=[SelectChoice("", _l("Elke ernst"))]
        + [SelectChoice(key, value) for key, value in wording.ERNST_LABELS.items()],
        default="",
    )
    volgorde = SelectField(
        _l("Volgorde"),
        choices=[SelectChoice(key, value) for key, value in SORT_LABELS.items()],
        default="ernst",
    )

    def validate_tot(self, field) -> None:
        if field.data and self.van.data:
            if field.data < self.van.data:
                raise ValidationError(_l("De einddatum ligt voor de begindatum."))
            if (field.data - self.van.data).days >= MAX_PERIOD_DAYS:
                raise ValidationError(_l("Kies een periode van hoogstens een jaar."))

    def chosen(self, name: str) -> str:
        """A select's value when it is one of its choices, else ''."""
        field = self[name]
        valid = {value for value, *_rest in field.iter_choices()}
        return field.data if field.data in valid else ""


def order_findings(items: list, volgorde: str) -> list:
    """Most serious first then newest (ernst), or newest first (datum); incomplete checks
    (no severity) after the infringements."""
    newest = sorted(items, key=lambda f: (f.finding.begin, f.driver.naam.lower()), reverse=True)
    if volgorde == "datum":
        return newest
    return sorted(newest, key=lambda f: wording.ERNST_ORDER.get(f.finding.ernst, 9))


@dataclass
class FindingQuery:
    form: FindingFilterForm
    van: date
    tot: date
    chauffeur_id: uuid.UUID | None
    soort: str
    ernst: str
    volgorde: str
    valid: bool

    def args(self, **extra) -> dict:
        """The query string of this selection (defaults left out)."""
        out = {"van": self.van.isoformat(), "tot": self.tot.isoformat()}
        if self.chauffeur_id:
            out["chauffeur"] = str(self.chauffeur_id)
        if self.soort:
            out["soort"] = self.soort
        if self.ernst:
            out["ernst"] = self.ernst
        if self.volgorde != "ernst":
            out["volgorde"] = self.volgorde
        return {**out, **extra}


def _finding_query() -> FindingQuery:
    form = FindingFilterForm(request.args)
    form.chauffeur.choices = driver_choices(
        drivers.list_drivers(carrier_id=current_carrier_id(), active_only=False),
        _l("Alle chauffeurs"),
    )
    valid = form.validate()
    today = _today()
    bad_dates = bool(form.van.errors or form.tot.errors)
    tot = form.tot.data if form.tot.data and not bad_dates else today
    default_van = tot - timedelta(days=WINDOW_DAYS - 1)
    van = form.van.data if form.van.data and not bad_dates else default_van
    if not form.van.raw_data or bad_dates:
        form.van.data = van
    if not form.tot.raw_data or bad_dates:
        form.tot.data = tot
    return FindingQuery(
        form=form,
        van=van,
        tot=tot,
        chauffeur_id=_uuid(form.chosen("chauffeur")),
        soort=form.chosen("soort"),
        ernst=form.chosen("ernst"),
        volgorde=form.chosen("volgorde") or "ernst",
        valid=valid,
    )


def _findings_of(query: FindingQuery) -> list:
    zone = current_zone()
    found = driving.findings(
        carrier_id=current_carrier_id(),
        van=period_bound(query.van, zone, end=False),
        tot=period_bound(query.tot, zone, end=True),
        chauffeur_id=query.chauffeur_id,
    )
    if query.soort:
        found = [f for f in found if f.finding.soort == query.soort]
    if query.ernst:
        found = [f for f in found if f.finding.ernst == query.ernst]
    return order_findings(found, query.volgorde)


@bp.get("/rijtijden/overtredingen")
@role_required("planner")
def findings():
    """The carrier's infringements and incomplete checks over a period, filtered and sorted;
    `formaat=csv|xlsx` exports them for the drivers' signatures."""
    query = _finding_query()
    fmt = request.args.get("formaat")
    if fmt in MIMETYPES:
        if not query.valid:
            # Never a file of another period than the one asked for: back to the page, which
            # shows the error at its field.
            args = {k: v for k, v in request.args.items() if k != "formaat"}
            return redirect(url_for("driving.findings", **args), code=303)
        return _export(query, fmt)
    items = _findings_of(query)
    pager, shown = Pager.asked(PAGE_SIZE).of(items)
    args = query.args()
    context = {
        "form": query.form,
        "query": query,
        "items": shown,
        "total": len(items),
        "pager": pager,
        "page_args": args,
        "links": {
            "csv": url_for("driving.findings", **args, formaat="csv"),
            "xlsx": url_for("driving.findings", **args, formaat="xlsx"),
            "clear": url_for("driving.findings"),
        },
        "sort_links": {
            key: url_for("driving.findings", **{**args, "volgorde": key}) for key in SORT_LABELS
        },
        "sort_labels": SORT_LABELS,
    }
    status = 200 if query.valid else 422
    return make_response(render_template("tacho/driving/findings.html", **context), status)


def _export(query: FindingQuery, fmt: str) -> Response:
    items = _findings_of(query)
    carrier = current_carrier_of(current_carrier_id())
    sheet = driving_export.Report(
        vervoerder=carrier.naam,
        van=query.van,
        tot=query.tot,
        items=items,
    )
    body = driving_export.to_csv(sheet) if fmt == "csv" else driving_export.to_xlsx(sheet)
    response = Response(body, mimetype=MIMETYPES[fmt])
    name = f"overtredingen-{query.van.isoformat()}-{query.tot.isoformat()}.{fmt}"
    response.headers["Content-Disposition"] = f"attachment; filename={name}"
    return response


# --- one driver -----------------------------------------------------------------------


def driver_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one driver (another carrier's id: 404 whatever the method)."""

    def load(driver_id: uuid.UUID):
        return drivers.get_driver(carrier_id=current_carrier_id(), driver_id=driver_id)

    return object_route(bp, rule, load, methods=methods)


def day_route(rule: str):
    """A planner's route of one driver's day: a date that is no date is a 404."""

    def load(driver_id: uuid.UUID, datum: str):
        driver = drivers.get_driver(carrier_id=current_carrier_id(), driver_id=driver_id)
        day = _date(datum)
        if day is None or day.year < 2000 or day > _utc_today():
            abort(404)
        return driver, day

    return object_route(bp, rule, load)


class CardForm(FlaskForm):
    kaartnummer = StringField(_l("Kaartnummer bestuurderskaart"))


CARD_MESSAGES = {
    ("kaartnummer", "13 to 16 letters and digits"): _l(
        "Een kaartnummer heeft 13 tot 16 letters en cijfers, zoals op de kaart."
    ),
}


@dataclass
class DayRow:
    view: driving.DayView
    kaart: list[Piece]
    app: list[Piece]


def _window_end() -> date:
    """The last day of the overview (?tot=YYYY-MM-DD, at most today, UTC)."""
    today = _utc_today()
    chosen = _date(request.args.get("tot"))
    if chosen is None or chosen > today or chosen.year < 2000:
        return today
    return chosen


def _driver_context(driver: Driver, card_form: CardForm | None = None) -> dict:
    carrier_id = current_carrier_id()
    last = _window_end()
    first = last - timedelta(days=WINDOW_DAYS - 1)
    budget = driving.budget_of(carrier_id=carrier_id, chauffeur_id=driver.id)
    days = driving.days(
        carrier_id=carrier_id, chauffeur_id=driver.id, van=first, tot=last + timedelta(days=1)
    )
    found = driving.findings(
        carrier_id=carrier_id,
        van=midnight(first),
        tot=midnight(last + timedelta(days=1)),
        chauffeur_id=driver.id,
    )
    if card_form is None:
        card_form = CardForm(formdata=None)
        card_form.kaartnummer.data = driver.kaartnummer or ""
    today = _utc_today()
    later = last + timedelta(days=WINDOW_DAYS)
    return {
        "driver": driver,
        "budget": budget,
        "first": first,
        "last": last,
        "rows": [DayRow(d, pieces(d.kaart, d.datum), pieces(d.app, d.datum)) for d in days],
        "findings": order_findings(found, "datum"),
        "card_form": card_form,
        "earlier_url": url_for(
            "driving.driver",
            driver_id=driver.id,
            tot=(first - timedelta(days=1)).isoformat(),
        ),
        "later_url": (
            url_for(
                "driving.driver",
                driver_id=driver.id,
                **({"tot": later.isoformat()} if later < today else {}),
            )
            if last < today
            else None
        ),
        "export_url": url_for(
            "driving.findings",
            chauffeur=str(driver.id),
            van=first.isoformat(),
            tot=last.isoformat(),
            formaat="xlsx",
        ),
        "findings_url": url_for(
            "driving.findings",
            chauffeur=str(driver.id),
            van=first.isoformat(),
            tot=last.isoformat(),
        ),
    }


@driver_route("/rijtijden/chauffeurs/<uuid:driver_id>")
def driver(driver: Driver):
    """One driver: remaining time, card number, 28 days of card and app side by side, and
    the infringements of those days."""
    return render_template("tacho/driving/driver.html", **_driver_context(driver))


@driver_route("/rijtijden/chauffeurs/<uuid:driver_id>/kaartnummer", methods=("POST",))
def card_number(driver: Driver):
    """Set or clear the driver's card number; the days read of that card follow it."""
    form = CardForm(request.form)
    number = None if request.form.get("wissen") else (form.kaartnummer.data or "").strip()
    driver_id = driver.id
    try:
        service.assign_card(
            carrier_id=current_carrier_id(),
            driver_id=driver_id,
            kaartnummer=number or None,
            actor=current_actor(),
        )
    except ValidationFailed as error:
        messages = dict(CARD_MESSAGES)
        for item in error.errors:
            if item.get("code") == "card_number_taken":
                messages[(item.get("field"), item.get("message"))] = _(
                    "Dit kaartnummer hoort al bij %(naam)s.", naam=item.get("naam", "")
                )
        general = errors_at_fields(form, error.errors, messages)
        for text in general:
            form.kaartnummer.errors = [*form.kaartnummer.errors, text]
        driver = drivers.get_driver(carrier_id=current_carrier_id(), driver_id=driver_id)
        html = render_template("tacho/driving/driver.html", **_driver_context(driver, form))
        return make_response(html, 422)
    flash(_("Het kaartnummer is opgeslagen.") if number else _("Het kaartnummer is gewist."))
    return redirect(url_for("driving.driver", driver_id=driver_id) + "#kaart", code=303)


@dataclass(frozen=True)
class ChangeRow:
    """One line of the day's list: a segment of the card as the card recorded it."""

    begin: datetime
    eind: datetime
    utc: str
    lokaal: str
    activiteit: str
    minuten: int
    kaart: str  # in, uit or handmatig
    bemanning: bool


def _change_rows(segments, day: date) -> list[ChangeRow]:
    rows = []
    for s in segments:
        local_day = format_datetime(s.begin, "yyyy-MM-dd")
        local = format_datetime(s.begin, "HH:mm")
        if local_day != day.isoformat():
            local = format_datetime(s.begin, "EEE d MMM HH:mm")
        if s.bron == KAART_HANDMATIG:
            kaart = "handmatig"
        elif s.activiteit == ONBEKEND:
            kaart = "uit"
        else:
            kaart = "in"
        rows.append(
            ChangeRow(
                begin=s.begin,
                eind=s.eind,
                utc=f"{_hhmm(s.begin, day)}{EN_DASH}{_hhmm(s.eind, day)}",
                lokaal=local,
                activiteit=s.activiteit,
                minuten=s.minuten,
                kaart=kaart,
                bemanning=s.bemanning,
            )
        )
    return rows


@day_route("/rijtijden/chauffeurs/<uuid:driver_id>/dagen/<datum>")
def day(driver: Driver, datum: date):
    """One UTC day of a driver: a large bar of the card and the app, the card's list of
    changes, the totals side by side, the differences, distance and vehicles."""
    found = driving.days(
        carrier_id=current_carrier_id(),
        chauffeur_id=driver.id,
        van=datum,
        tot=datum + timedelta(days=1),
    )
    if not found:
        abort(404)
    view = found[0]
    today = _utc_today()
    ticks = list(range(0, 25))
    context = {
        "driver": driver,
        "view": view,
        "kaart": pieces(view.kaart, view.datum),
        "app": pieces(view.app, view.datum),
        "changes": _change_rows(view.kaart, view.datum),
        "ticks": ticks,
        "day_min": DAY_MIN,
        "zone_name": current_zone().key,
        "previous_url": url_for(
            "driving.day",
            driver_id=driver.id,
            datum=(datum - timedelta(days=1)).isoformat(),
        ),
        "next_url": url_for(
            "driving.day", driver_id=driver.id, datum=(datum + timedelta(days=1)).isoformat()
        )
        if datum < today
        else None,
        "overview_url": url_for(
            "driving.driver",
            driver_id=driver.id,
            **(
                {"tot": (datum + timedelta(days=WINDOW_DAYS // 2)).isoformat()}
                if datum + timedelta(days=WINDOW_DAYS // 2) < today
                else {}
            ),
        ),
        "day_label": format_date(datum, "EEEE d MMMM yyyy"),
    }
    return render_template("tacho/driving/day.html", **context)


# --- download deadlines ---------------------------------------------------------------


def days_left(item) -> str:
    """How long until a download is due, or how long overdue, in words."""
    if item.dagen_over is None:
        return ""
    if item.dagen_over < 0:
        return ngettext("%(num)s dag te laat", "%(num)s dagen te laat", -item.dagen_over)
    if item.dagen_over == 0:
        return _("vandaag")
    return ngettext("nog %(num)s dag", "nog %(num)s dagen", item.dagen_over)


@bp.get("/rijtijden/downloads")
@role_required("planner")
def downloads():
    """When each driver card and each vehicle unit must next be downloaded: overdue first."""
    items = service.deadlines(carrier_id=current_carrier_id(), today=_today())
    counts = {status: 0 for status in DEADLINE_LABELS}
    for item in items:
        counts[item.status] += 1
    return render_template(
        "tacho/driving/downloads.html",
        items=items,
        counts=counts,
        deadline_labels=DEADLINE_LABELS,
        deadline_kinds=DEADLINE_KINDS,
        days_left=days_left,
        every={"kaart": service.CARD_EVERY_DAYS, "voertuig": service.VU_EVERY_DAYS},
    )
