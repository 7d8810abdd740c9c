"""The payroll export (/uren/loonexport): approved weeks per driver per week as CSV and XLSX,
never twice without saying so, with the carrier's column names and codes."""

from __future__ import annotations

import csv
import io
import re
import uuid

import pytest
from factories import csrf_from, in_carrier, login

from hours.support import approve, at, record_day

W47, W48 = "2026-W47", "2026-W48"
PAGE = "/uren/loonexport"


def record_weeks(app, carrier, driver):
    """Week 47: Monday to Friday 07:00-17:00 with half an hour's break (47.5 paid hours: 40
    normal, 7.5 overtime); week 48: one morning of 4 hours."""
    for day in ("2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19", "2026-11-20"):
        record_day(
            app,
            carrier,
            driver,
            at(day, "07:00"),
            at(day, "17:00"),
            [
                ("rijden", at(day, "07:00"), at(day, "12:00")),
                ("pauze", at(day, "12:00"), at(day, "12:30")),
                ("laden", at(day, "12:30"), at(day, "17:00")),
            ],
        )
    record_day(
        app,
        carrier,
        driver,
        at("2026-11-23", "08:00"),
        at("2026-11-23", "12:00"),
        [("rijden", at("2026-11-23", "08:00"), at("2026-11-23", "12:00"))],
    )


def set_payroll_number(app, carrier, driver, number: str):
    from sqlalchemy import select

    from portal.drivers.models import Driver
    from portal.extensions import db

    def go():
        db.session.scalar(select(Driver).where(Driver.id == driver.id)).personeelsnummer = number

    in_carrier(app, carrier.id, go)


@pytest.fixture
def weeks(app, client, carrier, driver, planner):
    """Two recorded weeks of which week 47 is approved; the planner signed in."""
    record_weeks(app, carrier, driver)
    set_payroll_number(app, carrier, driver, "00123")
    approve(app, carrier, driver, W47, planner)
    login(client, planner)


def export(client, fmt="csv", opnieuw=False, van=W47, tot=W48):
    """Confirm and export; the response of the POST."""
    query = {"van": van, "tot": tot, "formaat": fmt, **({"opnieuw": "y"} if opnieuw else {})}
    page = client.get(f"{PAGE}/export", query_string=query)
    if page.status_code != 200:
        return page
    token = csrf_from(page.get_data(as_text=True))
    return client.post(f"{PAGE}/export", data={**query, "csrf_token": token})


def batches(app, carrier):
    from portal.hours.payroll import batches as payroll

    return in_carrier(
        app,
        carrier.id,
        lambda: payroll.list_exports(carrier_id=carrier.id, limit=10),
        lambda found: [(b.id, b.opnieuw, b.weken) for b in found],
    )


def download(client, export_id, fmt="csv"):
    response = client.get(f"{PAGE}/exports/{export_id}.{fmt}")
    assert response.status_code == 200
    return response.data


def rows_of(body: bytes) -> list[list[str]]:
    assert body.startswith("\ufeff".encode())
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig")), delimiter=";"))


def test_the_export_holds_the_approved_week_in_decimal_hours_not_the_open_one(
    app, client, carrier, weeks
):
    response = export(client)
    assert response.status_code == 303
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "1 week geëxporteerd." in page
    ((export_id, again, count),) = batches(app, carrier)
    assert (again, count) == (False, 1)
    header, *rows = rows_of(download(client, export_id))
    assert header[:9] == [
        "Personeelsnummer",
        "Naam",
        "Jaar",
        "Week",
        "Uren normaal",
        "Meeruren 100%",
        "Overuren 130%",
        "Zaterdag 150%",
        "Zon- en feestdagen 200%",
    ]
    assert header[-4:] == [
        "Nachttoeslag eendaagse ritten",
        "Doorbetaalde feestdagen",
        "Aanvulling tot contracturen",
        "Verblijfkosten",
    ]
    # The CAO preset has no irregular-hours table: no window columns.
    assert not [h for h in header if h.startswith("Onregelmatig")]
    assert len(rows) == 1  # week 48 is not approved
    row = dict(zip(header, rows[0], strict=True))
    assert (row["Personeelsnummer"], row["Naam"], row["Jaar"], row["Week"]) == (
        "00123",
        "Jan Chauffeur",
        "2026",
        "47",
    )
    assert (row["Uren normaal"], row["Overuren 130%"], row["Zaterdag 150%"]) == (
        "40,00",
        "7,50",
        "0,00",
    )
    assert (row["Meeruren 100%"], row["Doorbetaalde feestdagen"]) == ("0,00", "0,00")
    assert row["Verblijfkosten"] == "0,00"


def test_a_second_export_finds_nothing_new_and_says_why(app, client, carrier, weeks):
    assert export(client).status_code == 303
    again = export(client)
    assert again.status_code == 422
    text = again.get_data(as_text=True)
    assert "Er is niets te exporteren in deze periode." in text
    assert "1 goedgekeurde week is al geëxporteerd" in text
    assert "1 week is nog niet goedgekeurd" in text
    # The POST refuses too, whatever the confirmation page said.
    token = csrf_from(client.get(PAGE).get_data(as_text=True))
    posted = client.post(
        f"{PAGE}/export", data={"van": W47, "tot": W48, "formaat": "csv", "csrf_token": token}
    )
    assert posted.status_code == 422
    assert len(batches(app, carrier)) == 1


def test_exporting_again_includes_the_week_and_marks_the_batch(app, client, carrier, weeks):
    assert export(client).status_code == 303
    confirm = client.get(
        f"{PAGE}/export", query_string={"van": W47, "tot": W48, "formaat": "csv", "opnieuw": "y"}
    ).get_data(as_text=True)
    assert "1 week is al eerder geëxporteerd en gaat opnieuw mee." in confirm
    assert export(client, opnieuw=True).status_code == 303
    newest, first = batches(app, carrier)
    assert (newest[1], newest[2], first[1]) == (True, 1, False)
    history = client.get(f"{PAGE}/exports").get_data(as_text=True)
    assert history.count("Opnieuw geëxporteerd") == 1
    _, *rows = rows_of(download(client, newest[0]))
    assert [row[3] for row in rows] == ["47"]
    preview = client.get(PAGE, query_string={"van": W47, "tot": W48}).get_data(as_text=True)
    assert "(2\u00d7)" in preview


def test_a_download_again_is_the_same_file(app, client, carrier, driver, weeks):
    assert export(client, fmt="xlsx").status_code == 303
    ((export_id, _, _),) = batches(app, carrier)
    first = {fmt: download(client, export_id, fmt) for fmt in ("csv", "xlsx")}
    # Neither a new name nor new column settings change a batch already made.
    set_payroll_number(app, carrier, driver, "999")
    assert post_columns(client, kop="code", codes={"normaal": "N1"}).status_code == 303
    assert {fmt: download(client, export_id, fmt) for fmt in ("csv", "xlsx")} == first


def post_columns(client, kop="naam", codes=None, excluded=(), names=None):
    """Save the column settings through the page, changing only what is given."""
    page = client.get(f"{PAGE}/kolommen").get_data(as_text=True)
    data = {"csrf_token": csrf_from(page), "kop": kop}
    for index, key in re.findall(r'name="kolommen-(\d+)-key" type="hidden" value="([^"]+)"', page):
        name = re.search(rf'name="kolommen-{index}-naam" [^>]*value="([^"]*)"', page).group(1)
        data[f"kolommen-{index}-key"] = key
        data[f"kolommen-{index}-naam"] = (names or {}).get(key, name)
        data[f"kolommen-{index}-code"] = (codes or {}).get(key, "")
        if key not in excluded:
            data[f"kolommen-{index}-mee"] = "y"
    return client.post(f"{PAGE}/kolommen", data=data)


def test_codes_head_the_columns_and_an_excluded_column_is_absent(app, client, carrier, weeks):
    saved = post_columns(
        client,
        kop="code",
        codes={"normaal": "L100", "meeruren": "L101", "overuren_130": "L130"},
        names={"verblijfkosten": "Onkosten"},
        excluded=("zaterdag_150", "feestdag"),
    )
    assert saved.status_code == 303
    assert export(client).status_code == 303
    ((export_id, _, _),) = batches(app, carrier)
    header, row = rows_of(download(client, export_id))
    assert header[:7] == ["Personeelsnummer", "Naam", "Jaar", "Week", "L100", "L101", "L130"]
    assert "Zaterdag 150%" not in header and "Doorbetaalde feestdagen" not in header
    assert header[-1] == "Onkosten"  # no code: its name
    assert row[4:7] == ["40,00", "0,00", "7,50"]


def test_column_settings_refuse_the_same_code_twice(app, client, carrier, weeks):
    refused = post_columns(client, codes={"normaal": "L1", "overuren_130": "l1"})
    assert refused.status_code == 422
    assert "Twee kolommen die meegaan hebben dezelfde waarde." in refused.get_data(as_text=True)
    # An excluded column may keep a code that an included one has.
    assert (
        post_columns(client, codes={"normaal": "L1", "overuren_130": "L1"}, excluded=("normaal",))
    ).status_code == 303


def test_the_xlsx_holds_numbers(app, client, carrier, weeks):
    from openpyxl import load_workbook

    assert export(client, fmt="xlsx").status_code == 303
    ((export_id, _, _),) = batches(app, carrier)
    sheet = load_workbook(io.BytesIO(download(client, export_id, "xlsx"))).active
    header = [cell.value for cell in sheet[1]]
    values = dict(zip(header, [cell.value for cell in sheet[2]], strict=True))
    assert sheet.max_row == 2
    assert values["Personeelsnummer"] == "00123"  # text: its leading zeros stay
    assert (values["Jaar"], values["Week"]) == (2026, 47)
    assert values["Uren normaal"] == 40 and values["Overuren 130%"] == 7.5
    assert isinstance(values["Overuren 130%"], float)


def test_another_carriers_batch_is_404(app, client, carrier, other_carrier, weeks):
    from factories import create_driver

    from portal.hours.payroll import batches as payroll
    from portal.hours.totals import IsoWeek

    stranger = create_driver(app, other_carrier, naam="Elders")
    record_day(
        app,
        other_carrier,
        stranger,
        at("2026-11-16", "08:00"),
        at("2026-11-16", "12:00"),
        [("rijden", at("2026-11-16", "08:00"), at("2026-11-16", "12:00"))],
    )
    approve(app, other_carrier, stranger, W47)
    foreign = in_carrier(
        app,
        other_carrier.id,
        lambda: payroll.export(
            carrier_id=other_carrier.id,
            van=IsoWeek.parse(W47),
            tot=IsoWeek.parse(W47),
            opnieuw=False,
            actor_label="elders",
        ),
        lambda made: made[0].id,
    )
    for fmt in ("csv", "xlsx"):
        assert client.get(f"{PAGE}/exports/{foreign}.{fmt}").status_code == 404
    assert client.get(f"{PAGE}/exports/{uuid.uuid4()}.csv").status_code == 404
    assert str(foreign) not in client.get(f"{PAGE}/exports").get_data(as_text=True)


def test_the_preview_counts_the_weeks_not_approved(app, client, weeks):
    page = client.get(PAGE, query_string={"van": W47, "tot": W48})
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    counts = dict(re.findall(r"<dt>([^<]+)</dt><dd>(\d+)</dd>", text))
    assert counts["Niet goedgekeurd"] == "1"
    assert counts["Goedgekeurd"] == "1"
    assert counts["Te exporteren"] == "1"
    assert "1 week is nog niet goedgekeurd en gaat niet mee" in text
    assert "40,00" in text and "7,50" in text


def test_a_period_with_only_open_weeks_exports_nothing(app, client, carrier, weeks):
    refused = export(client, van=W48, tot=W48)
    assert refused.status_code == 422
    assert "1 week is nog niet goedgekeurd" in refused.get_data(as_text=True)
    assert batches(app, carrier) == []


def test_the_period_is_checked(app, client, weeks):
    assert client.get(PAGE, query_string={"van": W48, "tot": W47}).status_code == 422
    assert client.get(PAGE, query_string={"van": "2025-W01", "tot": W48}).status_code == 422
    assert client.get(PAGE).status_code == 200  # last month's weeks by default


def test_the_pages_are_empty_at_first(app, client, planner):
    login(client, planner)
    assert "Nog geen loonexports." in client.get(f"{PAGE}/exports").get_data(as_text=True)
    page = client.get(PAGE, query_string={"van": W47, "tot": W48}).get_data(as_text=True)
    assert "Geen weken in deze periode." in page
    assert client.get(f"{PAGE}/kolommen").status_code == 200


def test_drivers_may_not_and_authors_get_403(app, client, carrier):
    from factories import create_user

    login(client, create_user(app, carrier, "author"))
    assert client.get(PAGE).status_code == 403


def test_the_preview_takes_as_many_queries_for_many_drivers(
    app, client, carrier, weeks, count_queries
):
    from factories import create_driver

    with count_queries() as few:
        client.get(PAGE, query_string={"van": W47, "tot": W48})
    for n in range(3):
        other = create_driver(app, carrier, naam=f"Chauffeur {n}")
        record_weeks(app, carrier, other)
        approve(app, carrier, other, W47)
    done = export(client)
    client.get(done.headers["Location"])  # the page that starts the download, once
    with count_queries() as many:
        text = client.get(PAGE, query_string={"van": W47, "tot": W48}).get_data(as_text=True)
    assert "Chauffeur 2" in text
    assert many.count == few.count, "\n".join([*few.statements, "-----", *many.statements])


def test_saturday_hours_beyond_the_contract_have_their_own_column(
    app, client, carrier, driver, planner
):
    """A Saturday after a full week: all its hours are beyond the contract, which payroll
    pays at the full 150% (within the contract only the surcharge)."""
    record_weeks(app, carrier, driver)
    record_day(
        app,
        carrier,
        driver,
        at("2026-11-21", "06:00"),
        at("2026-11-21", "10:00"),
        [("rijden", at("2026-11-21", "06:00"), at("2026-11-21", "10:00"))],
    )
    approve(app, carrier, driver, W47, planner)
    login(client, planner)
    assert export(client).status_code == 303
    ((export_id, _, _),) = batches(app, carrier)
    header, row = rows_of(download(client, export_id))
    row = dict(zip(header, row, strict=True))
    assert row["Zaterdag 150%"] == "4,00"
    assert row["Zaterdag 150% boven contract"] == "4,00"
    assert row["Zon- en feestdagen 200% boven contract"] == "0,00"


def test_meeruren_have_their_own_column(app, client, carrier, driver, planner):
    """A 32-hour driver's week 47 under the CAO's rule up to 2025 (chosen in the rule set):
    32 normal hours, 8 meeruren at 100%, 7.5 overtime hours."""
    from dataclasses import replace
    from datetime import date

    from hours.support import set_contract
    from portal.audit.service import SYSTEM
    from portal.hours import cao
    from portal.hours.payroll import rulesets

    rules = replace(cao.cao_preset(date(2026, 11, 2)), overuren_grens="week_40")
    in_carrier(
        app,
        carrier.id,
        lambda: rulesets.create_rule_set(carrier_id=carrier.id, rules=rules, actor=SYSTEM),
    )
    set_contract(app, carrier, driver, 32)
    record_weeks(app, carrier, driver)
    approve(app, carrier, driver, W47, planner)
    login(client, planner)
    assert export(client).status_code == 303
    ((export_id, _, _),) = batches(app, carrier)
    header, row = rows_of(download(client, export_id))
    row = dict(zip(header, row, strict=True))
    assert (row["Uren normaal"], row["Meeruren 100%"], row["Overuren 130%"]) == (
        "32,00",
        "8,00",
        "7,50",
    )
