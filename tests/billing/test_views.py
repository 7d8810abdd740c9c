"""The portal's billing page: review, export, download again."""

from __future__ import annotations

import csv
import io
import re
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from factories import (
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
    """Confirm the export as the confirmation page offers it: the POST that marks billed."""
    page = client.get(f"/facturatie/export?{query}&formaat={fmt}")
    html = page.get_data(as_text=True)
    data = dict(re.findall(r'name="(van|tot|chauffeur|formaat)" value="([^"]*)"', html))
    data.update(csrf_token=csrf_from(html), **overrides)
    return client.post("/facturatie/export", data=data)


def export_and_download(client, fmt="csv", query=MARCH):
    """Confirm an export, follow back to the page, and fetch the file it downloads."""
    response = post_export(client, fmt, query)
    assert response.status_code == 303, response.get_data(as_text=True)
    html = client.get(response.headers["Location"]).get_data(as_text=True)
    url = re.search(r'<meta http-equiv="refresh" content="0;url=([^"]+)">', html).group(1)
    return client.get(url), html


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
    assert "planned-quantity" not in html  # each quantity was reported


def test_a_driver_filter_narrows_the_lines(app, client, carrier, planner, driver):
    march_lines(app, carrier, driver)
    login(client, planner)
    html = client.get(f"/facturatie?{MARCH}&chauffeur={driver.id}").get_data(as_text=True)
    assert "Mest laden Enter" in html and "Voer leveren Delden" not in html


def test_the_page_opens_on_the_current_month(app, client, carrier, planner, driver):
    today = datetime.now(AMS).date()
    last_month = today.replace(day=1) - timedelta(days=1)
    billed(app, carrier, driver, datetime.combine(last_month, datetime.min.time(), AMS),
           naam="Vorige maand")  # fmt: skip
    billed(app, carrier, driver, datetime.now(AMS) - timedelta(minutes=1), naam="Deze maand")
    login(client, planner)

    html = client.get("/facturatie").get_data(as_text=True)

    first = today.replace(day=1)
    last = (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    assert f'value="{first.isoformat()}"' in html and f'value="{last.isoformat()}"' in html
    assert "Deze maand" in html and "Vorige maand" not in html


def test_the_current_month_runs_from_its_first_to_its_last_day():
    from portal.billing.pages.lines import default_period

    assert default_period(date(2025, 2, 14)) == (date(2025, 2, 1), date(2025, 2, 28))
    assert default_period(date(2024, 2, 29)) == (date(2024, 2, 1), date(2024, 2, 29))
    assert default_period(date(2025, 12, 31)) == (date(2025, 12, 1), date(2025, 12, 31))


def test_the_page_says_which_completed_tasks_it_holds(client, planner):
    login(client, planner)
    html = client.get("/facturatie").get_data(as_text=True)
    assert "Elke afgeronde taak krijgt hier een regel" in html
    assert "op het bord, door de chauffeur in de app of via de koppeling" in html
    assert "Zonder gemelde hoeveelheid telt de geplande" in html


def test_completing_a_task_on_the_board_makes_its_billing_line(
    app, client, carrier, planner, driver
):
    task = create_task(
        app, carrier, driver, status="gestart", naam="Mest laden Markelo", hoeveelheid=28,
        eenheid="ton", gepland_op=datetime.now(AMS) - timedelta(hours=1),
    )  # fmt: skip
    login(client, planner)
    token = csrf_from(client.get("/facturatie").get_data(as_text=True))

    moved = client.post(
        f"/taken/{task.id}/status", data={"status": "afgerond", "csrf_token": token}
    )

    assert moved.status_code == 303
    html = client.get("/facturatie").get_data(as_text=True)
    assert f'id="line-{task.id}"' in html
    line = html[html.index(f'id="line-{task.id}"') :]
    line = line[: line.index("</tr>")]
    assert "Mest laden Markelo" in line and "28 ton" in line
    assert "gepland" in line  # nobody reported the actual quantity
    assert "Bij 1 regel staat de geplande hoeveelheid" in html
    assert "Totaal, 1 regel" in html


def test_a_task_reopened_after_its_export_is_shown_and_not_billed_again(
    app, client, carrier, planner, driver
):
    task = create_task(
        app, carrier, driver, status="gestart", naam="Voer leveren Goor",
        gepland_op=datetime.now(AMS) - timedelta(hours=2),
    )  # fmt: skip
    login(client, planner)
    token = csrf_from(client.get("/facturatie").get_data(as_text=True))
    client.post(f"/taken/{task.id}/status", data={"status": "afgerond", "csrf_token": token})
    export_and_download(client, "csv", query="")

    client.post(f"/taken/{task.id}/status", data={"status": "gestart", "csrf_token": token})
    reopened = client.get("/facturatie").get_data(as_text=True)
    client.post(f"/taken/{task.id}/status", data={"status": "afgerond", "csrf_token": token})
    completed_again = client.get("/facturatie").get_data(as_text=True)

    for html in (reopened, completed_again):
        assert "Heropend na export" in html and f'id="reopened-{task.id}"' in html
        assert f'id="line-{task.id}"' not in html
        assert "Geen regels om te factureren in deze periode." in html
    assert "Gestart" in reopened[reopened.index(f'id="reopened-{task.id}"') :]
    assert "opnieuw afgerond" in completed_again


def test_no_lines_shows_an_empty_state(client, planner):
    login(client, planner)
    html = client.get(f"/facturatie?{MARCH}").get_data(as_text=True)
    assert "Geen regels om te factureren in deze periode." in html
    assert "Exporteer CSV" not in html
    assert "Nog geen exports." in html


def test_exporteer_asks_for_confirmation_and_marks_nothing_yet(
    app, client, carrier, planner, driver
):
    march_lines(app, carrier, driver)
    login(client, planner)
    page = client.get(f"/facturatie?{MARCH}").get_data(as_text=True)
    form_start = page.rindex("<form", 0, page.index('class="export-form"'))
    assert page[form_start:].startswith('<form method="get" action="/facturatie/export"')
    assert "Exporteer CSV…" in page

    response = client.get(f"/facturatie/export?{MARCH}&chauffeur=&formaat=csv")

    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "Content-Disposition" not in response.headers
    assert "3 regels exporteren als CSV?" in html
    assert "Na het exporteren zijn deze 3 regels gemarkeerd als gefactureerd." in html
    assert "Ja, exporteer en markeer als gefactureerd" in html
    assert 'method="post" action="/facturatie/export"' in html
    assert "<script>" not in html and "onclick" not in html
    assert f'href="/facturatie?{MARCH.replace("&", "&amp;")}&amp;chauffeur=&amp;klant="' in html
    still = client.get(f"/facturatie?{MARCH}").get_data(as_text=True)
    assert "Mest laden Enter" in still and "Nog geen exports." in still


def test_confirming_marks_the_lines_billed_and_downloads_the_file(
    app, client, carrier, planner, driver
):
    march_lines(app, carrier, driver)
    login(client, planner)

    response, html = export_and_download(client, "csv")

    assert "3 regels geëxporteerd en gemarkeerd als gefactureerd." in html
    assert response.status_code == 200
    assert response.headers["Content-Disposition"] == (
        "attachment; filename=facturatie-2025-03-01-2025-03-31.csv"
    )
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"  # said once
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
    assert "gemarkeerd als gefactureerd." not in html  # the notice shows once
    assert 'http-equiv="refresh"' not in html  # a reload downloads nothing again
    exports = html[html.index("Eerdere exports") :]
    assert "1 mrt 2025 \u2013 31 mrt 2025" in exports and planner.email in exports
    assert re.search(r"<td class=\"num\">3</td>", exports)


def test_confirming_with_nothing_left_says_so(app, client, carrier, planner, driver):
    march_lines(app, carrier, driver)
    login(client, planner)
    page = client.get(f"/facturatie/export?{MARCH}&formaat=csv").get_data(as_text=True)
    form = dict(re.findall(r'name="(van|tot|chauffeur|formaat)" value="([^"]*)"', page))
    form["csrf_token"] = csrf_from(page)
    assert client.post("/facturatie/export", data=form).status_code == 303

    again = client.post("/facturatie/export", data=form)
    asked = client.get(f"/facturatie/export?{MARCH}&formaat=csv")

    for response in (again, asked):
        assert response.status_code == 422
        assert "Er is niets te exporteren in deze periode" in response.get_data(as_text=True)


def test_an_earlier_export_downloads_again_in_either_format(app, client, carrier, planner, driver):
    from openpyxl import load_workbook

    march_lines(app, carrier, driver)
    login(client, planner)
    first, _page = export_and_download(client, "xlsx")
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
