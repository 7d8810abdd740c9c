"""One driver's driving time: the 28 days of card and app side by side with the differences
named, the remaining time, the card number, the infringements of those days, and one day in
detail. The day bars are SVG drawn on the server; navigation is links, the card number form
posts and redirects.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, timedelta

from flask import abort, flash, make_response, redirect, render_template, request, url_for
from flask_babel import format_date, format_datetime
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import StringField

from portal.accounts.permissions import object_route
from portal.drivers import service as drivers
from portal.errors import ValidationFailed
from portal.fleet.kenteken import compact
from portal.tacho import driving, scope, service
from portal.tacho.pages.kit import (
    EN_DASH,
    WINDOW_DAYS,
    Piece,
    driving_bp,
    hhmm,
    order_findings,
    parse_date,
    pieces,
    utc_today,
)
from portal.tacho.segments import DAY_MIN, KLOK_ACHTER, midnight
from portal.validators import PortalForm
from portal.web.kit import current_actor, current_carrier_id, current_zone, errors_at_fields


def driver_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one driver (another carrier's id: 404 whatever the method)."""

    def load(driver_id: uuid.UUID):
        return drivers.get_driver(carrier_id=current_carrier_id(), driver_id=driver_id)

    return object_route(driving_bp, rule, load, methods=methods)


def day_route(rule: str):
    """A planner's route of one driver's day: a date that is no date is a 404."""

    def load(driver_id: uuid.UUID, datum: str):
        driver = drivers.get_driver(carrier_id=current_carrier_id(), driver_id=driver_id)
        day = parse_date(datum)
        if day is None or day.year < 2000 or day > utc_today():
            abort(404)
        return driver, day

    return object_route(driving_bp, rule, load)


class CardForm(PortalForm):
    kaartnummer = StringField(_l("Kaartnummer bestuurderskaart"))


CARD_WORDING = {
    "card_number_format": _l(
        "Een kaartnummer heeft 13 tot 16 letters en cijfers, zoals op de kaart."
    ),
    "card_number_taken": lambda error: _(
        "Dit kaartnummer hoort al bij %(naam)s.", naam=error.get("naam", "")
    ),
}


@dataclass
class DayRow:
    view: driving.DayView
    kaart: list[Piece]
    app: list[Piece]


def _window_end() -> date:
    """The last day of the overview (?tot=YYYY-MM-DD, at most today, UTC)."""
    today = utc_today()
    chosen = parse_date(request.args.get("tot"))
    if chosen is None or chosen > today or chosen.year < 2000:
        return today
    return chosen


def _driver_context(driver: drivers.Driver, card_form: CardForm | None = None) -> dict:
    carrier_id = current_carrier_id()
    last = _window_end()
    first = last - timedelta(days=WINDOW_DAYS - 1)
    budget = driving.budget_of(carrier_id=carrier_id, driver_id=driver.id)
    days = driving.days(
        carrier_id=carrier_id, driver_id=driver.id, start=first, end=last + timedelta(days=1)
    )
    found = driving.findings(
        carrier_id=carrier_id,
        van=midnight(first),
        tot=midnight(last + timedelta(days=1)),
        driver_id=driver.id,
    )
    if card_form is None:
        card_form = CardForm(formdata=None)
        card_form.kaartnummer.data = driver.kaartnummer or ""
    today = utc_today()
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
def driver(driver: drivers.Driver):
    """One driver: remaining time, card number, 28 days of card and app side by side, and
    the infringements of those days."""
    return render_template("tacho/driving/driver.html", **_driver_context(driver))


@driver_route("/rijtijden/chauffeurs/<uuid:driver_id>/kaartnummer", methods=("POST",))
def card_number(driver: drivers.Driver):
    """Set or clear the driver's card number; the days read of that card follow it."""
    form = CardForm(request.form)
    number = None if request.form.get("wissen") else (form.kaartnummer.data or "").strip()
    driver_id = driver.id
    if number and not form.validate():  # a control character, refused at the field
        html = render_template("tacho/driving/driver.html", **_driver_context(driver, form))
        return make_response(html, 422)
    try:
        service.assign_card(
            carrier_id=current_carrier_id(),
            driver_id=driver_id,
            kaartnummer=number or None,
            actor=current_actor(),
        )
    except ValidationFailed as error:
        general = errors_at_fields(form, error.errors, CARD_WORDING)
        for text in general:
            form.kaartnummer.errors = [*form.kaartnummer.errors, text]
        driver = drivers.get_driver(carrier_id=current_carrier_id(), driver_id=driver_id)
        html = render_template("tacho/driving/driver.html", **_driver_context(driver, form))
        return make_response(html, 422)
    flash(_("Het kaartnummer is opgeslagen.") if number else _("Het kaartnummer is gewist."))
    return redirect(url_for("driving.driver", driver_id=driver_id) + "#kaart", code=303)


@dataclass(frozen=True)
class ChangeRow:
    """One line of the day's list: a change as the card recorded it (its time on the clock of
    the tachograph it was in) and how long it lasted; `notitie` when the next change was
    recorded at an earlier minute (a vehicle unit whose clock was behind)."""

    utc: str
    lokaal: str
    activiteit: str
    minuten: int
    kaart: str  # in, uit or handmatig
    bemanning: bool
    notitie: tuple[str, dict] | None = None  # the data note on the step back after it


def _kaart(period) -> str:
    change = period.change
    if change.handmatig:
        return "handmatig"
    return "in" if change.kaart_in else "uit"


def _change_rows(periods, day: date) -> list[ChangeRow]:
    """The day's changes in the order recorded; changes that follow with the same activity,
    card state and crew are one line, and a change that lasted no time is left out unless the
    clock stepped back after it."""
    start = midnight(day)
    merged: list[list] = []  # [first period, minutes, achter]
    for p in periods:
        last = merged[-1] if merged else None
        if (
            last is not None
            and not last[2]
            and (last[0].activiteit, _kaart(last[0]), last[0].change.bemanning)
            == (p.activiteit, _kaart(p), p.change.bemanning)
        ):
            last[1] += p.minuten
            last[2] = p.achter
            continue
        merged.append([p, p.minuten, p.achter])
    rows = []
    for first, minutes, achter in merged:
        if minutes == 0 and not achter:
            continue
        begin = start + timedelta(minutes=first.change.minuut)
        local = format_datetime(begin, "HH:mm")
        if format_datetime(begin, "yyyy-MM-dd") != day.isoformat():
            local = format_datetime(begin, "EEE d MMM HH:mm")
        utc = hhmm(begin, day)
        if minutes:
            utc += EN_DASH + hhmm(begin + timedelta(minutes=minutes), day)
        rows.append(
            ChangeRow(
                utc=utc,
                lokaal=local,
                activiteit=first.activiteit,
                minuten=minutes,
                kaart=_kaart(first),
                bemanning=first.change.bemanning,
                notitie=(
                    KLOK_ACHTER,
                    {
                        "minuten": achter,
                        "van": first.change.minuut + minutes,
                        "naar": first.change.minuut + minutes - achter,
                    },
                )
                if achter
                else None,
            )
        )
    return rows


@day_route("/rijtijden/chauffeurs/<uuid:driver_id>/dagen/<datum>")
def day(driver: drivers.Driver, datum: date):
    """One UTC day of a driver: a large bar of the card and the app, the card's list of
    changes, the totals side by side, the differences, distance and vehicles."""
    found = driving.days(
        carrier_id=current_carrier_id(),
        driver_id=driver.id,
        start=datum,
        end=datum + timedelta(days=1),
    )
    if not found:
        abort(404)
    view = found[0]
    today = utc_today()
    ticks = list(range(0, 25))
    context = {
        "driver": driver,
        "view": view,
        "kaart": pieces(view.kaart, view.datum),
        "app": pieces(view.app, view.datum),
        "changes": _change_rows(view.perioden, view.datum),
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
        "buiten_561": scope.out_of_scope_plates(carrier_id=current_carrier_id())
        if view.voertuigen
        else {},
        "compact_plate": compact,
    }
    return render_template("tacho/driving/day.html", **context)
