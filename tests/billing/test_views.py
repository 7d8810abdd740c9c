"""The portal's billing page: review, export, download again."""

from __future__ import annotations

import csv
import io
import re
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from conftest import (
    create_carrier,
    create_driver,
    create_task,
    create_user,
    create_vehicle,
    csrf_from,
    in_carrier,
    login,
)

from portal.billing import service as billing
from portal.tasks import service as tasks

AMS = ZoneInfo("Europe/Amsterdam")
MARCH = "van=2025-03-01&tot=2025-03-31"


def billed(app, carrier, driver, at: datetime, line: dict | None = None, **fields):
    """A completed task with its billing line."""
    task = create_task(app, carrier, driver, status="afgerond", afgerond_op=at, **fields)

    def go():
        found = tasks.get_task(carrier_id=carrier.id, task_id=task.id)
        billing.record_line(carrier_id=carrier.id, task=found, **(line or {}))

    in_carrier(app, carrier.id, go)
    return task


def march_lines(app, carrier, driver):
    vehicle = create_vehicle(app, carrier, "BX-12-AB")
    billed(
        app,
        carrier,
        driver,
        datetime(2025, 3, 3, 9, 15, tzinfo=AMS),
        {"hoeveelheid": 30.0, "eenheid": "ton", "kilometers": 12.5, "wachttijd_minuten": 10},
        naam="Mest laden Enter",
        stad="Enter",
        vdm_nummer="VDM77",
        vehicle_id=vehicle.id,
    )
    billed(
        app,
        carrier,
        driver,
        datetime(2025, 3, 31, 23, 30, tzinfo=AMS),
        {"hoeveelheid": 2.5, "eenheid": "ton", "kilometers": 20.0, "wachttijd_minuten": 25},
        naam="Mest lossen Hengelo",
    )
    billed(
        app,
        carrier,
        None,
        datetime(2025, 3, 12, 14, 0, tzinfo=AMS),
        {"hoeveelheid": 18.0, "eenheid": "m3"},
        naam="Voer leveren Delden",
        type="voer_leveren",
    )


def post_export(client, fmt="csv", query=MARCH, **overrides):
    page = client.get(f"/facturatie?{query}")
    data = dict(re.findall(r'name="(van|tot|chauffeur)" value="([^"]*)"', page.get_data(True)))
    data.update(csrf_token=csrf_from(page.get_data(as_text=True)), formaat=fmt, **overrides)
    return client.post("/facturatie/export", data=data)


def test_the_page_shows_unexported_lines_with_totals(app, client, carrier, planner, driver):
    march_lines(app, carrier, driver)
    other = create_carrier(app, "Ander")
    billed(
        app, other, create_driver(app, other), datetime(2025, 3, 5, 9, tzinfo=AMS), naam="Geheim"
    )
    login(client, planner)

    response = client.get(f"/facturatie?{MARCH}")
    html = response.get_data(as_text=True)

    assert response.status_code == 200
    assert "Mest laden Enter" in html and "Mest lossen Hengelo" in html
    assert "Voer leveren Delden" in html and "Geheim" not in html
    assert "Jan Chauffeur" in html and "BX-12-AB" in html and "VDM77" in html
    totals = html[html.index('class="billing-totals"') :]
    assert "32,5 ton" in totals and "18 m3" in totals
    assert "32,5 km" in totals and "35 min" in totals
    assert "Totaal, 3 regels" in html
    assert "Exporteer CSV" in html and "Exporteer XLSX" in html


def test_a_driver_filter_narrows_the_lines(app, client, carrier, planner, driver):
    march_lines(app, carrier, driver)
    login(client, planner)
    html = client.get(f"/facturatie?{MARCH}&chauffeur={driver.id}").get_data(as_text=True)
    assert "Mest laden Enter" in html and "Voer leveren Delden" not in html


def test_the_default_period_is_the_previous_month(app, client, carrier, planner, driver):
    today = datetime.now(AMS).date()
    last_month = today.replace(day=1) - timedelta(days=1)
    billed(app, carrier, driver, datetime.combine(last_month, datetime.min.time(), AMS),
           naam="Vorige maand")  # fmt: skip
    billed(app, carrier, driver, datetime.now(AMS) - timedelta(minutes=1), naam="Deze maand")
    login(client, planner)

    html = client.get("/facturatie").get_data(as_text=True)

    assert f'value="{last_month.replace(day=1).isoformat()}"' in html
    assert f'value="{last_month.isoformat()}"' in html
    assert "Vorige maand" in html and "Deze maand" not in html


def test_no_lines_shows_an_empty_state(client, planner):
    login(client, planner)
    html = client.get(f"/facturatie?{MARCH}").get_data(as_text=True)
    assert "Geen regels om te factureren in deze periode." in html
    assert "Exporteer CSV" not in html
    assert "Nog geen exports." in html


def test_exporting_downloads_the_lines_and_takes_them_off_the_list(
    app, client, carrier, planner, driver
):
    march_lines(app, carrier, driver)
    login(client, planner)

    response = post_export(client, "csv")

    assert response.status_code == 200
    assert response.headers["Content-Disposition"] == (
        "attachment; filename=facturatie-2025-03-01-2025-03-31.csv"
    )
    assert response.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(response.data.decode("utf-8-sig")), delimiter=";"))
    assert [r["naam"] for r in rows] == [
        "Mest laden Enter",
        "Voer leveren Delden",
        "Mest lossen Hengelo",
    ]
    assert rows[2]["afgerond_op"] == "2025-03-31 23:30" and rows[2]["hoeveelheid"] == "2,5"

    html = client.get(f"/facturatie?{MARCH}").get_data(as_text=True)
    assert "Mest laden Enter" not in html
    assert "Geen regels om te factureren in deze periode." in html
    exports = html[html.index("Eerdere exports") :]
    assert "1 mrt 2025 \u2013 31 mrt 2025" in exports and planner.email in exports
    assert re.search(r"<td class=\"num\">3</td>", exports)


def test_an_earlier_export_downloads_again_in_either_format(app, client, carrier, planner, driver):
    from openpyxl import load_workbook

    march_lines(app, carrier, driver)
    login(client, planner)
    first = post_export(client, "xlsx")
    assert first.headers["Content-Disposition"].endswith("facturatie-2025-03-01-2025-03-31.xlsx")
    html = client.get(f"/facturatie?{MARCH}").get_data(as_text=True)
    links = re.findall(r'href="(/facturatie/exports/[0-9a-f-]+\.(?:csv|xlsx))"', html)
    assert len(links) == 2

    again = {link.rsplit(".", 1)[1]: client.get(link) for link in links}

    assert again["xlsx"].status_code == 200 and again["xlsx"].data
    sheet = load_workbook(io.BytesIO(again["xlsx"].data)).active
    assert [c.value for c in sheet["A"]][1:] == [
        "Mest laden Enter",
        "Voer leveren Delden",
        "Mest lossen Hengelo",
    ]
    sheet_first = load_workbook(io.BytesIO(first.data)).active
    assert [[c.value for c in r] for r in sheet_first.iter_rows()] == [
        [c.value for c in r] for r in sheet.iter_rows()
    ]
    assert again["csv"].headers["Content-Disposition"] == (
        "attachment; filename=facturatie-2025-03-01-2025-03-31.csv"
    )
    assert again["csv"].data.decode("utf-8-sig").count("\r\n") == 4


def test_a_second_export_of_the_same_period_finds_nothing(app, client, carrier, planner, driver):
    march_lines(app, carrier, driver)
    login(client, planner)
    page = client.get(f"/facturatie?{MARCH}").get_data(as_text=True)
    data = {
        "csrf_token": csrf_from(page),
        "van": "2025-03-01",
        "tot": "2025-03-31",
        "chauffeur": "",
        "formaat": "csv",
    }
    assert client.post("/facturatie/export", data=data).status_code == 200

    response = client.post("/facturatie/export", data=data)

    assert response.status_code == 422
    assert "Er is niets te exporteren in deze periode" in response.get_data(as_text=True)


def test_another_carriers_export_is_404(app, client, carrier, driver):
    other = create_carrier(app, "Ander")
    billed(app, other, create_driver(app, other), datetime(2025, 3, 5, 9, tzinfo=AMS))
    foreign = in_carrier(
        app,
        other.id,
        lambda: billing.export(
            carrier_id=other.id, van=date(2025, 3, 1), tot=date(2025, 3, 31), actor_label="x"
        ),
        lambda batch: batch.id,
    )
    login(client, create_user(app, carrier, "admin"))
    for fmt in ("csv", "xlsx"):
        assert client.get(f"/facturatie/exports/{foreign}.{fmt}").status_code == 404
    assert client.get(f"/facturatie/exports/{foreign}.pdf").status_code == 404


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("van=2025-03-31&tot=2025-03-01", "De einddatum ligt voor de begindatum."),
        ("van=2025-13-01&tot=2025-03-31", "Geen geldige datum (jjjj-mm-dd)."),
        ("van=gisteren&tot=2025-03-31", "Geen geldige datum (jjjj-mm-dd)."),
        ("van=2025-02-30&tot=2025-03-31", "Geen geldige datum (jjjj-mm-dd)."),
        ("van=&tot=2025-03-31", "Kies een datum."),
        ("van=2024-01-01&tot=2025-03-31", "Kies een periode van hoogstens een jaar."),
        ("van=0001-01-01&tot=0001-01-02", "Kies een datum tussen"),
        ("van=2025-03-01&tot=9999-12-31", "Kies een datum tussen"),
        ("van=2025-03-01&tot=2025-03-31&chauffeur=nobody", "Deze chauffeur kennen we niet."),
    ],
)
def test_bad_input_shows_the_form_with_a_message(client, planner, query, message):
    login(client, planner)
    response = client.get(f"/facturatie?{query}")
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert message in html
    assert 'class="field-error" role="alert"' in html and 'aria-invalid="true"' in html


def test_another_carriers_driver_is_unknown(app, client, carrier, planner):
    other = create_carrier(app, "Ander")
    stranger = create_driver(app, other, "Vreemde")
    login(client, planner)
    response = client.get(f"/facturatie?{MARCH}&chauffeur={stranger.id}")
    assert response.status_code == 422
    assert "Deze chauffeur kennen we niet." in response.get_data(as_text=True)


def test_an_export_with_bad_dates_shows_the_form(app, client, carrier, planner, driver):
    march_lines(app, carrier, driver)
    login(client, planner)
    response = post_export(client, tot="2025-02-01")
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "De einddatum ligt voor de begindatum." in html
    assert "Content-Disposition" not in response.headers
    assert "Mest laden Enter" in client.get(f"/facturatie?{MARCH}").get_data(as_text=True)


def test_an_htmx_request_gets_the_billing_region(client, planner):
    login(client, planner)
    response = client.get(f"/facturatie?{MARCH}", headers={"HX-Request": "true"})
    html = response.get_data(as_text=True)
    assert html.lstrip().startswith('<div id="billing"')
    assert "<html" not in html
    assert "HX-Request" in response.headers["Vary"]


def test_an_author_may_not_bill(app, client, carrier, driver):
    march_lines(app, carrier, driver)
    author = create_user(app, carrier, "author")
    login(client, author)
    refused = client.get("/facturatie")
    assert refused.status_code == 403
    page = refused.get_data(as_text=True)
    response = client.post(
        "/facturatie/export",
        data={"csrf_token": csrf_from(page), "van": "2025-03-01", "tot": "2025-03-31",
              "formaat": "csv"},
    )  # fmt: skip
    assert response.status_code == 403
    assert "Mest laden Enter" in in_carrier(
        app,
        carrier.id,
        lambda: [r.naam for r in billing.unexported(
            carrier_id=carrier.id, van=date(2025, 3, 1), tot=date(2025, 3, 31)
        )],
    )  # fmt: skip


def test_signed_out_visitors_go_to_the_login(client):
    response = client.get("/facturatie")
    assert response.status_code in (302, 303) and "/login" in response.headers["Location"]


def test_the_page_works_in_english(client, planner):
    login(client, planner)
    client.post(
        "/taal",
        data={"csrf_token": csrf_from(client.get("/facturatie").get_data(True)), "taal": "en"},
    )
    html = client.get(f"/facturatie?{MARCH}").get_data(as_text=True)
    assert "Billing" in html and "Earlier exports" in html
