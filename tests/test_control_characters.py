"""Control characters (U+000B and the like) in text: refused where text comes in (the API at
its field, the portal's forms at the field, imports at the cell), and cleaned where stored
text goes out, so a name stored before they were refused still exports: a committed billing
batch and a payroll batch (which keeps its own copy of the names) download again as a
readable file, never a 500."""

from __future__ import annotations

import csv
import io
import re
from datetime import datetime
from zoneinfo import ZoneInfo

from billing.test_views import billed, export_and_download
from factories import bearer, create_driver, csrf_from, in_carrier, login
from hours.support import approve
from hours.test_payroll import batches, download, export, record_weeks, set_payroll_number
from openpyxl import load_workbook

from portal import plain_text, spreadsheets

API = "/api/v1"
AMS = ZoneInfo("Europe/Amsterdam")
VT = "\x0b"


def test_the_api_refuses_a_control_character_at_its_field(client, api_key):
    response = client.post(
        f"{API}/klanten",
        json={"naam": f"Ter{VT}Horst", "opmerkingen": "regel een\nregel twee\tmet tab"},
        headers=bearer(api_key.key),
    )
    assert response.status_code == 422
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["errors"] == [
        {
            "field": "naam",
            "message": "Control characters are not allowed in text (found U+000B).",
            "code": "control_character",
        }
    ]
    # Nested text, keys and query strings too; tab and line breaks are text.
    nested = client.post(
        f"{API}/klanten",
        json={"naam": "Ter Horst", "opmerkingen": "ok\n", "debiteurnummer": "10\x1f23"},
        headers=bearer(api_key.key),
    )
    assert [e["field"] for e in nested.get_json()["errors"]] == ["debiteurnummer"]
    listed = client.get(f"{API}/klanten?q=a%07b", headers=bearer(api_key.key))
    assert listed.status_code == 422 and listed.get_json()["errors"][0]["field"] == "q"
    assert client.get(f"{API}/klanten", headers=bearer(api_key.key)).get_json() == []


def test_a_form_refuses_a_control_character_at_the_field(app, client, carrier, planner):
    login(client, planner)
    page = client.get("/chauffeurs/nieuw").get_data(as_text=True)
    response = client.post(
        "/chauffeurs/nieuw",
        data={
            "naam": f"Jan{VT}de Vries",
            "email": "",
            "telefoon": "",
            "taal": "nl",
            "csrf_token": csrf_from(page),
        },
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Bevat een onzichtbaar stuurteken (U+000B)" in html
    # The message stands at the name's field.
    field = html[html.index('name="naam"') - 600 : html.index('name="naam"') + 900]
    assert "stuurteken" in field
    assert "Jan de Vries" not in client.get("/chauffeurs").get_data(as_text=True)


def test_an_import_refuses_a_control_character_at_its_cell(client, planner):
    login(client, planner)
    token = csrf_from(client.get("/klanten/import").get_data(as_text=True))
    raw = f"naam;debiteurnummer\nTer{VT}Horst;10023\nDe Eendracht;20045\n".encode()
    data = {"bestand": (io.BytesIO(raw), "klanten.csv"), "csrf_token": token}
    uploaded = client.post("/klanten/import", data=data, content_type="multipart/form-data")
    preview = client.get(uploaded.headers["Location"]).get_data(as_text=True)
    assert "Bevat een onzichtbaar stuurteken (U+000B)" in preview
    assert "1 met fouten" in " ".join(re.sub(r"<[^>]+>", " ", preview).split())


def test_a_committed_billing_batch_with_a_stored_control_character_exports(
    app, client, carrier, planner, driver
):
    billed(
        app,
        carrier,
        driver,
        datetime(2025, 3, 3, 9, 15, tzinfo=AMS),
        {"hoeveelheid": 3.0, "eenheid": "ton"},
        naam=f"Mest{VT}laden\x01 Enter",
    )
    login(client, planner)
    first, _page = export_and_download(client, "xlsx")
    assert first.status_code == 200
    sheet = load_workbook(io.BytesIO(first.data)).active
    assert sheet["A2"].value == "Mest laden Enter"
    html = client.get("/facturatie?van=2025-03-01&tot=2025-03-31").get_data(as_text=True)
    for link in re.findall(r'href="(/facturatie/exports/[0-9a-f-]+\.(?:csv|xlsx))"', html):
        again = client.get(link)
        assert again.status_code == 200
        if link.endswith(".csv"):
            assert "Mest laden Enter" in again.data.decode("utf-8-sig")


def test_a_payroll_batch_keeps_exporting_a_name_stored_with_a_control_character(
    app, client, carrier, planner
):
    from sqlalchemy import select

    from portal.drivers.models import Driver
    from portal.extensions import db

    driver = create_driver(app, carrier, naam="Jan de Vries")
    record_weeks(app, carrier, driver)
    set_payroll_number(app, carrier, driver, "00123")
    approve(app, carrier, driver, "2026-W47", planner)

    def spoil():
        db.session.scalar(select(Driver).where(Driver.id == driver.id)).naam = f"Jan{VT}de Vries"

    in_carrier(app, carrier.id, spoil)
    login(client, planner)
    assert export(client, fmt="xlsx").status_code == 303
    ((export_id, _, _),) = batches(app, carrier)
    sheet = load_workbook(io.BytesIO(download(client, export_id, "xlsx"))).active
    assert "Jan de Vries" in [cell.value for cell in sheet[2]]
    text = download(client, export_id, "csv").decode("utf-8-sig")
    assert "Jan de Vries" in [
        cell for row in csv.reader(io.StringIO(text), delimiter=";") for cell in row
    ]


def test_the_writer_cleans_text_and_never_writes_a_formula():
    assert plain_text.clean(f"a{VT}b\x00c\td\ne\ud800") == "a bc\td\ne"
    assert spreadsheets.safe_text(f"=1+1{VT}") == "'=1+1 "
    book = spreadsheets.new_book()
    spreadsheets.append(book.active, [f'=HYPERLINK("x"){VT}', 3, None])
    sheet = load_workbook(io.BytesIO(spreadsheets.save(book))).active
    assert sheet["A1"].data_type == "s" and sheet["A1"].value == '=HYPERLINK("x") '
    assert sheet["B1"].value == 3


def test_every_export_writes_through_the_one_writer():
    """No module but portal/spreadsheets.py makes a CSV writer or an openpyxl workbook."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "portal"
    pattern = re.compile(r"csv\.writer\(|csv\.DictWriter\(|Workbook\(|book\.save\(")
    writers = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if path.name != "spreadsheets.py" and pattern.search(path.read_text())
    ]
    assert writers == []
