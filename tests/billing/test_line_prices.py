"""A billing line is priced as it is made and again when the work is reported: under the
tariff that holds on the task's day, shown on the billing page and in the export."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal as D

import pytest
from factories import bearer, create_task, driver_token, in_carrier, login

from portal.audit.service import SYSTEM
from portal.billing import service as billing
from portal.billing import tariffs
from portal.billing.models import BillingLine
from portal.errors import ValidationFailed
from portal.extensions import db

MONDAY = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)


def tariff(app, carrier, **fields):
    data = tariffs.TariffIn(
        **{
            "activity_type": "mest_laden",
            "geldig_vanaf": date(2026, 1, 1),
            "grondslag": "eenheid",
            "eenheid": "ton",
            "prijs": D("4.35"),
            **fields,
        }
    )
    in_carrier(
        app,
        carrier.id,
        lambda: tariffs.create_tariff(carrier_id=carrier.id, data=data, actor=SYSTEM),
    )


def line_of(app, carrier, task) -> BillingLine:
    from sqlalchemy import select

    return in_carrier(
        app,
        carrier.id,
        lambda: db.session.scalar(
            select(BillingLine).where(
                BillingLine.transporteur_id == carrier.id, BillingLine.taak_id == task.id
            )
        ),
        lambda line: {
            "bedrag": line.bedrag,
            "btw_bedrag": line.btw_bedrag,
            "btw_procent": line.btw_procent,
            "prijs_reden": line.prijs_reden,
        },
    )


def test_the_drivers_reported_quantity_is_priced_and_shown(app, client, carrier, driver, planner):
    tariff(app, carrier)
    task = create_task(
        app, carrier, driver, status="gestart", hoeveelheid=30, eenheid="ton", gepland_op=MONDAY
    )
    done = client.post(
        f"/api/v1/taken/{task.id}/afronding",
        json={"hoeveelheid": 28.5, "eenheid": "ton"},
        headers=bearer(driver_token(client, driver)),
    )
    assert done.status_code == 200, done.get_json()
    assert line_of(app, carrier, task) == {
        "bedrag": D("123.98"),  # 28.5 x 4.35 = 123.975, half up
        "btw_bedrag": D("26.04"),
        "btw_procent": D("21.00"),
        "prijs_reden": None,
    }
    login(client, planner)
    month = "van=2026-11-01&tot=2026-11-30"
    page = re.sub(r"\s+", " ", client.get(f"/facturatie?{month}").get_data(as_text=True))
    assert "€ 123,98" in page and "+ 21% btw" in page
    assert "Bedrag zonder btw" in page and "€ 26,04" in page
    exported = client.get(f"/facturatie/export?{month}&formaat=csv")
    assert exported.status_code == 200


def test_the_planned_quantity_is_priced_at_completion_and_again_when_reported(app, carrier, driver):
    tariff(app, carrier, minimum=D("150"))
    task = create_task(
        app, carrier, driver, status="gestart", hoeveelheid=10, eenheid="ton", gepland_op=MONDAY
    )
    from portal.tasks import lifecycle

    in_carrier(
        app,
        carrier.id,
        lambda: lifecycle.move_task(
            carrier_id=carrier.id, task_id=task.id, to="afgerond", actor=SYSTEM, office=True
        ),
    )
    assert line_of(app, carrier, task)["bedrag"] == D("150.00")  # the minimum
    from portal.tasks import service as tasks

    in_carrier(
        app,
        carrier.id,
        lambda: billing.record_line(
            carrier_id=carrier.id,
            task=tasks.get_task(carrier_id=carrier.id, task_id=task.id),
            hoeveelheid=40,
            eenheid="ton",
        ),
    )
    assert line_of(app, carrier, task)["bedrag"] == D("174.00")


def test_the_tariff_of_the_planned_day_holds(app, carrier, driver):
    tariff(app, carrier, prijs=D("4.00"))
    tariff(app, carrier, prijs=D("5.00"), geldig_vanaf=date(2026, 12, 1))
    task = create_task(
        app,
        carrier,
        driver,
        status="afgerond",
        afgerond_op=datetime(2026, 12, 2, 9, 0, tzinfo=UTC),
        gepland_op=MONDAY,
        hoeveelheid=10,
        eenheid="ton",
    )
    from portal.tasks import service as tasks

    in_carrier(
        app,
        carrier.id,
        lambda: billing.line_for_completion(
            carrier_id=carrier.id, task=tasks.get_task(carrier_id=carrier.id, task_id=task.id)
        ),
    )
    assert line_of(app, carrier, task)["bedrag"] == D("40.00")


def test_per_hour_runs_from_start_to_completion(app, carrier, driver):
    tariff(app, carrier, grondslag="uur", eenheid=None, prijs=D("85"))
    task = create_task(
        app,
        carrier,
        driver,
        status="afgerond",
        gestart_op=MONDAY,
        afgerond_op=MONDAY + timedelta(hours=2, minutes=30),
        gepland_op=MONDAY,
    )
    from portal.tasks import service as tasks

    in_carrier(
        app,
        carrier.id,
        lambda: billing.line_for_completion(
            carrier_id=carrier.id, task=tasks.get_task(carrier_id=carrier.id, task_id=task.id)
        ),
    )
    assert line_of(app, carrier, task)["bedrag"] == D("212.50")


def test_a_line_without_a_tariff_says_so_and_points_to_the_tariffs(
    app, client, carrier, driver, planner
):
    task = create_task(
        app, carrier, driver, status="afgerond", afgerond_op=MONDAY, gepland_op=MONDAY
    )
    from portal.tasks import service as tasks

    in_carrier(
        app,
        carrier.id,
        lambda: billing.line_for_completion(
            carrier_id=carrier.id, task=tasks.get_task(carrier_id=carrier.id, task_id=task.id)
        ),
    )
    assert line_of(app, carrier, task)["prijs_reden"] == "no_tariff"
    login(client, planner)
    page = re.sub(
        r"\s+", " ", client.get("/facturatie?van=2026-11-01&tot=2026-11-30").get_data(as_text=True)
    )
    assert "geen tarief" in page
    assert "1 regel heeft geen bedrag" in page and "/facturatie/tarieven" in page


def test_the_csv_carries_the_amounts_with_a_decimal_comma(app, client, carrier, driver, planner):
    tariff(app, carrier)
    task = create_task(
        app,
        carrier,
        driver,
        status="afgerond",
        afgerond_op=MONDAY,
        gepland_op=MONDAY,
        hoeveelheid=28.5,
        eenheid="ton",
    )
    from portal.tasks import service as tasks

    in_carrier(
        app,
        carrier.id,
        lambda: billing.line_for_completion(
            carrier_id=carrier.id, task=tasks.get_task(carrier_id=carrier.id, task_id=task.id)
        ),
    )
    rows = in_carrier(
        app,
        carrier.id,
        lambda: billing.unexported(
            carrier_id=carrier.id, van=date(2026, 11, 1), tot=date(2026, 11, 30)
        ),
    )
    text = billing.to_csv(rows).decode("utf-8-sig")
    record = next(csv.DictReader(io.StringIO(text), delimiter=";"))
    assert (record["bedrag"], record["btw_procent"], record["btw_bedrag"]) == (
        "123,98",
        "21,00",
        "26,04",
    )


def test_the_api_answers_the_price_with_the_line(app, client, carrier, driver):
    tariff(app, carrier)
    task = create_task(app, carrier, driver, status="gestart", gepland_op=MONDAY)
    done = client.post(
        f"/api/v1/taken/{task.id}/afronding",
        json={"hoeveelheid": 10, "eenheid": "ton"},
        headers=bearer(driver_token(client, driver)),
    )
    line = done.get_json()["facturatieregel"]
    assert (line["bedrag"], line["btw_procent"], line["btw_bedrag"]) == ("43.50", "21.00", "9.14")
    assert line["prijs_reden"] is None


def test_a_hand_price_carries_the_vat_category_its_rate_stands_for(app, carrier, driver):
    """Above 0 % standard rated; at 0 % the customer's own category, else the tariff's when
    that is one at 0 %, else zero rated, with the evidence typed (none is refused)."""
    from portal.customers import service as customers
    from portal.tasks import service as tasks

    def customer(**data):
        return in_carrier(
            app,
            carrier.id,
            lambda: customers.create_customer(carrier_id=carrier.id, data=data, actor=SYSTEM),
            lambda c: c.id,
        )

    german = customer(naam="Spedition Köhler", btw_nummer="DE123456789", btw_categorie="AE")
    farmer = customer(naam="Maatschap Kamphuis")
    tariff(
        app, carrier, activity_type="vee_transport", grondslag="vracht", eenheid=None,
        btw_categorie="E", btw_procent=D("0"), btw_vrijstellingsreden="Art. 11 Wet OB",
    )  # fmt: skip

    def priced_by_hand(klant_id, kind, rate, reden=None):
        task = create_task(
            app, carrier, driver, type=kind, status="afgerond", afgerond_op=MONDAY,
            gepland_op=MONDAY, klant_id=klant_id,
        )  # fmt: skip

        def go():
            billing.line_for_completion(
                carrier_id=carrier.id, task=tasks.get_task(carrier_id=carrier.id, task_id=task.id)
            )
            return billing.price_by_hand(
                carrier_id=carrier.id, task_id=task.id, bedrag="50", btw_procent=rate,
                actor=SYSTEM, reden=reden,
            )  # fmt: skip

        return in_carrier(
            app, carrier.id, go, lambda line: (line.btw_categorie, line.btw_vrijstellingsreden)
        )

    assert priced_by_hand(farmer, "mest_laden", "21") == ("S", None)
    with pytest.raises(ValidationFailed) as refused:
        priced_by_hand(farmer, "mest_laden", "0")
    assert refused.value.errors[0]["field"] == "btw_vrijstellingsreden"
    assert priced_by_hand(farmer, "mest_laden", "0", "Uitvoer, MRN 1") == ("Z", "Uitvoer, MRN 1")
    assert priced_by_hand(farmer, "vee_transport", "0") == ("E", "Art. 11 Wet OB")
    assert priced_by_hand(german, "mest_laden", "0")[0] == "AE"
