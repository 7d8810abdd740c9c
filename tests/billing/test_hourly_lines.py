"""Hourly work is priced from the task's own recorded time, and a line never bills €0.00
without saying so.

A tariff per hour bills the minutes the driver's activities on the task record (else the
task's start to its completion), at least its minimum, rounded up per its unit: 2 h 07 per
quarter hour is 2.25 h. An hourly task without recorded time is held (no_duration), and so
is a line that would bill 0.00 under a tariff with a price (zero_amount): shown with the
reason, counted in the export's confirmation, kept off invoices until a planner confirms it
(priced by hand at 0.00, audited) or prices it."""

from __future__ import annotations

import csv
import io
import re
import uuid
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal as D
from zoneinfo import ZoneInfo

from factories import bearer, create_task, csrf_from, driver_token, in_carrier, login
from sqlalchemy import select

from portal.audit.service import SYSTEM
from portal.billing import service as billing
from portal.billing import tariffs
from portal.billing.models import BillingLine, Invoice
from portal.extensions import db

API = "/api/v1"
AMS = ZoneInfo("Europe/Amsterdam")
TIMES = "\N{MULTIPLICATION SIGN}"
# A past Monday: the driver's hours may not lie in the future.
MONDAY = date(2026, 11, 16)


def at(clock: str) -> datetime:
    hour, minute = (int(part) for part in clock.split(":"))
    return datetime(2026, 11, 16, hour, minute, tzinfo=AMS).astimezone(UTC)


def z(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def month() -> str:
    """The billing page's period around today (a completion is stamped now)."""
    today = datetime.now(AMS).date()
    first = today.replace(day=1) - timedelta(days=31)
    last = (today.replace(day=1) + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    return f"van={first.replace(day=1).isoformat()}&tot={last.isoformat()}"


def text(response) -> str:
    return re.sub(r"\s+", " ", response.get_data(as_text=True))


def tariff(app, carrier, **fields):
    data = tariffs.TariffIn(
        **{
            "activity_type": "koel_transport",
            "geldig_vanaf": date(2026, 1, 1),
            "grondslag": "uur",
            "prijs": D("85"),
            "afronding_minuten": 15,
            **fields,
        }
    )
    in_carrier(
        app,
        carrier.id,
        lambda: tariffs.create_tariff(carrier_id=carrier.id, data=data, actor=SYSTEM),
    )


def customer(app, carrier, naam="Koelhuis Twente") -> uuid.UUID:
    from portal.customers import service as customers

    return in_carrier(
        app,
        carrier.id,
        lambda: customers.create_customer(carrier_id=carrier.id, data={"naam": naam}, actor=SYSTEM),
        lambda c: c.id,
    )


def line_of(app, carrier, task) -> dict:
    return in_carrier(
        app,
        carrier.id,
        lambda: db.session.scalar(
            select(BillingLine).where(
                BillingLine.transporteur_id == carrier.id, BillingLine.taak_id == task.id
            )
        ),
        lambda line: {
            name: getattr(line, name)
            for name in (
                "bedrag",
                "btw_bedrag",
                "prijs_reden",
                "uren",
                "gemeten_minuten",
                "minuten_bron",
                "btw_categorie",
                "handmatig",
                "export_id",
            )
        },
    )


def record_hours(client, token, driver, task, activities):
    """The driver's app records a work day and activities on the task (the hours API)."""
    day = client.post(
        f"{API}/users/{driver.user_token}/werkdagen",
        json={"gestart_op": z(at("06:00")), "beeindigd_op": z(at("16:00"))},
        headers=bearer(token),
    )
    assert day.status_code == 201, day.get_json()
    for soort, begin, einde in activities:
        added = client.post(
            f"{API}/werkdagen/{day.get_json()['id']}/activiteiten",
            json={
                "soort": soort,
                "begin": z(at(begin)),
                "einde": z(at(einde)),
                "taak_id": str(task.id),
            },
            headers=bearer(token),
        )
        assert added.status_code == 201, added.get_json()


def complete(client, token, task, **report):
    """The driver completes the task and reports the work (POST afronding)."""
    done = client.post(f"{API}/taken/{task.id}/afronding", json=report, headers=bearer(token))
    assert done.status_code == 200, done.get_json()
    return done.get_json()["facturatieregel"]


def hourly_task(app, carrier, driver, **fields):
    fields = {
        "type": "koel_transport",
        "naam": "Koelrit Hengelo",
        "status": "gestart",
        "gestart_op": at("07:00"),
        "gepland_op": at("07:00"),
        **fields,
    }
    return create_task(app, carrier, driver, **fields)


def test_the_drivers_hours_on_the_task_are_billed_per_quarter_hour_rounded_up(
    app, client, carrier, driver, planner
):
    tariff(app, carrier)
    task = hourly_task(app, carrier, driver)
    token = driver_token(client, driver)
    # 07:00-08:10 loading, a break (not billed), 08:40-09:37 unloading: 2 h 07 of work.
    record_hours(
        client,
        token,
        driver,
        task,
        [("laden", "07:00", "08:10"), ("pauze", "08:10", "08:40"), ("lossen", "08:40", "09:37")],
    )
    complete(client, token, task)
    assert line_of(app, carrier, task) == {
        "bedrag": D("191.25"),  # 2.25 h x 85
        "btw_bedrag": D("40.16"),
        "prijs_reden": None,
        "uren": D("2.2500"),
        "gemeten_minuten": 127,
        "minuten_bron": "activiteiten",
        "btw_categorie": "S",
        "handmatig": False,
        "export_id": None,
    }

    login(client, planner)
    page = text(client.get(f"/facturatie?{month()}"))
    assert "€ 191,25" in page
    assert f"2,25 uur {TIMES} € 85,00" in page
    assert "gewerkt 2 u 07 (activiteiten)<br>per kwartier naar boven</small>" in page

    rows = in_carrier(
        app,
        carrier.id,
        lambda: billing.unexported(
            carrier_id=carrier.id, van=MONDAY, tot=datetime.now(AMS).date() + timedelta(days=1)
        ),
    )
    record = next(
        csv.DictReader(io.StringIO(billing.to_csv(rows).decode("utf-8-sig")), delimiter=";")
    )
    assert (
        record["uren"],
        record["gemeten_minuten"],
        record["bedrag"],
        record["btw_categorie"],
    ) == (
        "2,25",
        "127",
        "191,25",
        "S",
    )


def test_without_activities_the_status_times_count_with_the_tariffs_minimum(
    app, client, carrier, driver
):
    tariff(app, carrier, minimum_minuten=60)
    task = hourly_task(app, carrier, driver, gestart_op=datetime.now(UTC) - timedelta(minutes=35))
    complete(client, driver_token(client, driver), task)
    line = line_of(app, carrier, task)
    assert (line["gemeten_minuten"], line["minuten_bron"]) == (35, "status")
    assert (line["uren"], line["bedrag"]) == (D("1.0000"), D("85.00"))  # the minimum hour


def test_an_hourly_task_without_recorded_time_is_held_and_priced_once_the_hours_are_in(
    app, client, carrier, driver, planner
):
    from portal.tasks import lifecycle

    tariff(app, carrier)
    task = create_task(
        app, carrier, driver, type="koel_transport", naam="Koelrit Almelo", gepland_op=at("07:00")
    )

    def through_on_the_board():  # started and completed in one go: no time recorded
        for to in ("gestart", "afgerond"):
            lifecycle.move_task(
                carrier_id=carrier.id, task_id=task.id, to=to, actor=SYSTEM, office=True
            )

    in_carrier(app, carrier.id, through_on_the_board)
    line = line_of(app, carrier, task)
    assert (line["bedrag"], line["prijs_reden"], line["uren"]) == (None, "no_duration", None)

    login(client, planner)
    page = text(client.get(f"/facturatie?{month()}"))
    assert "geen gewerkte tijd vastgelegd" in page
    assert "1 regel heeft geen bedrag" in page
    confirm = text(client.get(f"/facturatie/export?{month()}&formaat=csv"))
    assert "1 regel heeft geen bedrag en gaat op geen factuur:" in confirm
    assert f"1 {TIMES} geen gewerkte tijd vastgelegd" in confirm

    client.post("/taal", data={"csrf_token": csrf_from(page), "taal": "en"})
    assert "no time worked recorded" in text(client.get(f"/facturatie?{month()}"))
    client.post("/taal", data={"csrf_token": csrf_from(page), "taal": "nl"})

    # The driver records the hours afterwards; the planner prices the line again.
    record_hours(
        client, driver_token(client, driver), driver, task, [("overig_werk", "07:00", "08:50")]
    )
    again = client.post(
        f"/facturatie/regels/{task.id}/prijs",
        data={"csrf_token": csrf_from(page), "actie": "tarief"},
    )
    assert again.status_code == 303
    line = line_of(app, carrier, task)
    assert (line["gemeten_minuten"], line["uren"], line["bedrag"]) == (
        110,
        D("2.0000"),
        D("170.00"),
    )
    assert not line["handmatig"]


def period() -> dict[str, str]:
    return dict(part.split("=") for part in month().split("&"))


def held_at_zero(app, client, carrier, driver) -> tuple[uuid.UUID, object]:
    """A customer's task priced per ton, whose driver reports 0 ton: its line is held."""
    klant = customer(app, carrier)
    tariff(
        app, carrier, activity_type="mest_laden", grondslag="eenheid", eenheid="ton",
        prijs=D("4.35"),
    )  # fmt: skip
    task = create_task(
        app, carrier, driver, status="gestart", gepland_op=at("07:00"), klant_id=klant,
        hoeveelheid=30, eenheid="ton",
    )  # fmt: skip
    complete(client, driver_token(client, driver), task, hoeveelheid=0, eenheid="ton")
    return klant, task


def export_period(client, page: str):
    exported = client.post(
        "/facturatie/export",
        data={"csrf_token": csrf_from(page), "formaat": "csv", **period()},
    )
    assert exported.status_code == 303


def invoices_made(app, carrier) -> list[tuple]:
    return in_carrier(
        app,
        carrier.id,
        lambda: db.session.scalars(
            select(Invoice).where(Invoice.transporteur_id == carrier.id)
        ).all(),
        lambda found: [(i.klant_id, i.regels, i.bedrag) for i in found],
    )


def test_a_line_at_zero_under_a_priced_tariff_is_held_confirmed_by_the_planner_and_invoiced(
    app, client, carrier, driver, planner
):
    klant, task = held_at_zero(app, client, carrier, driver)
    line = line_of(app, carrier, task)
    assert (line["bedrag"], line["prijs_reden"], line["btw_categorie"]) == (
        None,
        "zero_amount",
        None,
    )

    login(client, planner)
    page = text(client.get(f"/facturatie?{month()}"))
    assert "€ 0,00, terwijl het tarief een prijs heeft" in page
    assert f'action="/facturatie/regels/{task.id}/nul-bevestigen"' in page
    confirm = text(client.get(f"/facturatie/export?{month()}&formaat=csv"))
    assert f"1 {TIMES} € 0,00, terwijl het tarief een prijs heeft" in confirm

    confirmed = client.post(
        f"/facturatie/regels/{task.id}/nul-bevestigen",
        data={"csrf_token": csrf_from(page), **period()},
    )
    assert confirmed.status_code == 303
    assert confirmed.headers["Location"].endswith(f"#line-{task.id}")
    assert "is bevestigd op € 0,00" in text(client.get(confirmed.headers["Location"]))
    line = line_of(app, carrier, task)
    assert (line["bedrag"], line["btw_bedrag"], line["handmatig"], line["prijs_reden"]) == (
        D("0.00"),
        D("0.00"),
        True,
        None,
    )
    assert line["btw_categorie"] == "S"
    assert "Prijs met de hand vastgelegd" in text(client.get(f"/taken/{task.id}"))

    # Confirmed twice (a second tab): told, nothing changes.
    twice = client.post(
        f"/facturatie/regels/{task.id}/nul-bevestigen", data={"csrf_token": csrf_from(page)}
    )
    assert twice.status_code == 303
    assert "staat niet (meer) op € 0,00 vast" in text(client.get(twice.headers["Location"]))

    export_period(client, page)
    assert invoices_made(app, carrier) == [(klant, 1, D("0.00"))]


def test_an_unconfirmed_line_at_zero_keeps_its_customer_off_the_invoices(
    app, client, carrier, driver, planner
):
    _klant, task = held_at_zero(app, client, carrier, driver)
    login(client, planner)
    export_period(client, client.get(f"/facturatie?{month()}").get_data(as_text=True))
    assert invoices_made(app, carrier) == []
    assert line_of(app, carrier, task)["bedrag"] is None


def test_confirming_a_priced_line_or_another_carriers_is_refused(
    app, client, carrier, other_carrier, driver, planner
):
    tariff(app, carrier)
    task = hourly_task(app, carrier, driver)
    token = driver_token(client, driver)
    record_hours(client, token, driver, task, [("laden", "07:00", "08:00")])
    complete(client, token, task)
    login(client, planner)
    page = client.get(f"/facturatie?{month()}").get_data(as_text=True)
    refused = client.post(
        f"/facturatie/regels/{task.id}/nul-bevestigen", data={"csrf_token": csrf_from(page)}
    )
    assert refused.status_code == 303
    assert line_of(app, carrier, task)["bedrag"] == D("85.00")
    assert not line_of(app, carrier, task)["handmatig"]
    assert (
        client.post(
            f"/facturatie/regels/{uuid.uuid4()}/nul-bevestigen",
            data={"csrf_token": csrf_from(page)},
        ).status_code
        == 404
    )


def test_the_billing_page_words_the_hours_in_english(app, client, carrier, driver, planner):
    tariff(app, carrier, minimum_minuten=60)
    task = hourly_task(app, carrier, driver)
    token = driver_token(client, driver)
    record_hours(client, token, driver, task, [("laden", "07:00", "08:10")])
    complete(client, token, task)
    login(client, planner)
    page = client.get("/facturatie").get_data(as_text=True)
    client.post("/taal", data={"csrf_token": csrf_from(page), "taal": "en"})
    english = text(client.get(f"/facturatie?{month()}"))
    assert f"1.25 h {TIMES} €85.00" in english
    assert (
        "worked 1 h 10 (activities)<br>per quarter hour, rounded up<br>at least 60 min" in english
    )
