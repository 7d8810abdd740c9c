"""CSV import of tasks: upload, preview with errors at the cell, import, error report."""

from __future__ import annotations

import csv
import html
import io
import json
import re
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from factories import (
    create_carrier,
    create_driver,
    create_user,
    create_vehicle,
    csrf_from,
    in_carrier,
    login,
)

from portal.tasks import csv_import
from portal.tasks.schemas import TaskCreate

HEADER = (
    "naam;type;gepland_op;chauffeur;kenteken;hoeveelheid;land;require_photos;min_fotos;max_fotos"
)


def text_of(response) -> str:
    body = re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))
    return " ".join(html.unescape(body).split())


def upload(client, raw: bytes, filename: str = "taken.csv", csrf: bool = True):
    """POST the file as a browser does. The multipart body is built here: the test client
    would spool a large one to a temporary file it never closes."""
    boundary = "rijplan-test-boundary"
    parts = []
    if csrf:
        token = csrf_from(client.get("/taken/import").get_data(as_text=True))
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n'
            f"{token}\r\n".encode()
        )
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="bestand"; '
        f'filename="{filename}"\r\nContent-Type: text/csv\r\n\r\n'.encode()
        + raw
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return client.post(
        "/taken/import",
        data=b"".join(parts),
        content_type=f"multipart/form-data; boundary={boundary}",
    )


def token_of(response) -> str:
    assert response.status_code == 303, response.get_data(as_text=True)
    match = re.search(r"/taken/import/([A-Za-z0-9_-]{32})$", response.headers["Location"])
    assert match, response.headers["Location"]
    return match.group(1)


def run_import(client, token: str):
    page = client.get(f"/taken/import/{token}").get_data(as_text=True)
    return client.post(f"/taken/import/{token}", data={"csrf_token": csrf_from(page)})


def tasks_of(app, carrier) -> list[dict]:
    from portal.tasks import service

    return in_carrier(
        app,
        carrier.id,
        lambda: service.list_tasks(carrier_id=carrier.id, filters=service.TaskFilters()).tasks,
        lambda tasks: [
            {
                "naam": t.naam,
                "type": t.type,
                "gepland_op": t.gepland_op,
                "chauffeur_id": t.chauffeur_id,
                "vehicle_id": t.vehicle_id,
                "hoeveelheid": t.hoeveelheid,
                "require_photos": t.require_photos,
                "stad": t.stad,
                "opmerkingen": t.opmerkingen,
            }
            for t in tasks
        ],
    )


PLACES = (
    {"naam": "Erf Enter", "soort": "laden", "adres": "Hengelosestraat 12", "postcode": "7468 AB",
     "stad": "Enter", "locatie_lat": 52.2936, "locatie_lng": 6.5714},
    {"naam": "Mestverwerking", "soort": "lossen", "adres": "Zutphenseweg 51", "stad": "Deventer"},
    {"naam": "Boerderij", "soort": "beide", "adres": "Veldweg 1", "stad": "Markelo"},
)  # fmt: skip


def customer(
    app, carrier, naam="Maatschap Ter Horst", debiteurnummer=None, places=PLACES, actief=True
) -> dict:
    """A customer with places (by default a loading, an unloading and a two-way one); their
    ids by name, the customer's as "klant"."""
    from portal.audit.service import SYSTEM
    from portal.customers import service

    def make():
        data = {"naam": naam, "debiteurnummer": debiteurnummer}
        made = service.create_customer(carrier_id=carrier.id, data=data, actor=SYSTEM)
        ids = {"klant": made.id}
        for place in places:
            ids[place["naam"]] = service.add_place(
                carrier_id=carrier.id, customer_id=made.id, data=place, actor=SYSTEM
            ).id
        if not actief:
            service.set_active(
                carrier_id=carrier.id, customer_id=made.id, actief=False, actor=SYSTEM
            )
        return ids

    return in_carrier(app, carrier.id, make)


def routes_of(app, carrier) -> dict[str, dict]:
    """The carrier's tasks by name, with their customer and route."""
    from portal.tasks import service

    fields = ("klant_id", "laadlocatie_id", "loslocatie_id", "laad_naam", "laad_adres",
              "laad_postcode", "laad_stad", "laad_lat", "los_naam", "los_adres", "los_stad",
              "adres", "stad")  # fmt: skip
    return in_carrier(
        app,
        carrier.id,
        lambda: service.list_tasks(carrier_id=carrier.id, filters=service.TaskFilters()).tasks,
        lambda tasks: {t.naam: {f: getattr(t, f) for f in fields} for t in tasks},
    )


def test_every_task_field_has_a_way_to_be_read():
    # The columns come from the API's TaskCreate: a new field there is a new column here.
    # Ids are named instead: the vehicle by its plate, the customer and places by name.
    ids = {"vehicle_id", "klant_id", "laadlocatie_id", "loslocatie_id"}
    assert set(csv_import.FIELD_COLUMNS) == set(TaskCreate.model_fields) - ids
    assert ids <= set(csv_import.LOOKUP_FIELDS)
    assert set(csv_import.LOOKUP_FIELDS.values()) == set(csv_import.LOOKUP_COLUMNS)
    for name in ("klant", "laadplaats", "losplaats", "laad_adres", "los_stad", "los_lng"):
        assert name in csv_import.COLUMN_ORDER and name in csv_import.COLUMN_HELP
    assert csv_import.KINDS["gepland_op"] == "datetime"
    assert csv_import.KINDS["hoeveelheid"] == "float"
    assert csv_import.KINDS["min_fotos"] == "int"
    assert csv_import.KINDS["kooiaap"] == "bool"
    assert csv_import.KINDS["naam"] == "text"


def test_the_form_describes_the_columns_and_offers_an_example(client, planner):
    login(client, planner)
    page = text_of(client.get("/taken/import"))
    assert "Taken importeren" in page
    for column in ("naam verplicht", "type verplicht", "gepland_op", "chauffeur", "kenteken"):
        assert column in page
    for column in ("klant Debiteurnummer of naam", "laadplaats Naam van een laadplaats"):
        assert column in page
    assert "los_stad Plaats van het losadres" in page
    example = client.get("/taken/import/voorbeeld.csv")
    assert example.status_code == 200
    assert example.mimetype == "text/csv"
    assert "attachment" in example.headers["Content-Disposition"]
    text = example.get_data().decode("utf-8")
    assert text.startswith("\ufeffnaam;type;gepland_op;chauffeur;kenteken;klant;laadplaats;")


def test_the_example_file_imports_cleanly(app, client, carrier, planner):
    create_driver(app, carrier, "Jan de Vries")
    create_driver(app, carrier, "Sanne Kuipers", email="sanne@voorbeeld.nl")
    create_vehicle(app, carrier, "BX-12-AB")
    create_vehicle(app, carrier, "VT-123-X")
    customer(app, carrier, debiteurnummer="10023")
    customer(app, carrier, "Varkenshouderij Jansen", places=({"naam": "Stal", "stad": "Rijssen"},))
    login(client, planner)
    token = token_of(upload(client, client.get("/taken/import/voorbeeld.csv").get_data()))
    page = text_of(client.get(f"/taken/import/{token}"))
    assert "2 rijen" in page and "2 goed" in page and "0 met fouten" in page
    assert "overgeslagen" not in page  # every column is known
    assert "Route: Erf Enter → Mestverwerking" in page
    assert "Route: Stal → Slachterij Deurne" in page


GOOD_AND_BAD = "\n".join(
    [
        HEADER,
        "Mest laden Enter;mest_laden;2026-11-23 07:30;Jan de Vries;bx-12-ab;32,5;nl;ja;1;3",
        "Voer Epe;Voer leveren;23-11-2026 09:00;;;;;nee;;",
        ";mest_laden;morgen;Onbekende Chauffeur;ZZ-99-ZZ;veel;Nederland;misschien;5;2",
        "Te veel foto's;mest_laden;;;;;;1;4;2",
        "Fout type;Mest Laden!;2026-11-23T07:30:00+01:00;;;-3;;;;",
    ]
).encode()


def test_the_preview_shows_every_bad_cell_with_its_message(app, client, carrier, planner):
    create_driver(app, carrier, "Jan de Vries")
    create_vehicle(app, carrier, "BX-12-AB")
    login(client, planner)

    response = client.get(f"/taken/import/{token_of(upload(client, GOOD_AND_BAD))}")

    assert response.status_code == 200
    page = text_of(response)
    assert "5 rijen" in page and "2 goed" in page and "3 met fouten" in page
    body = response.get_data(as_text=True)
    for message in (
        "Verplicht",  # naam empty
        "Geen datum en tijd; schrijf bijvoorbeeld 2026-11-23 07:30 of 23-11-2026 07:30",
        "Geen chauffeur met naam of e-mailadres “Onbekende Chauffeur”",
        "Geen voertuig met kenteken ZZ99ZZ",
        "Geen getal",
        "Geen landcode van twee letters, zoals NL",
        "Verwacht ja of nee",
        "min_fotos is groter dan max_fotos",
        "Alleen kleine letters, cijfers, _ en -, zoals mest_laden",
        "Moet minstens 0 zijn",
    ):
        assert message in page, message
    # Each message sits in the cell it is about, marked as an error cell.
    cell = re.search(r'<td class="cell-error"[^>]*>(.*?)</td>', body, re.S)
    assert cell and "cell-message" in cell.group(1)
    assert re.search(
        r'<td class="cell-error"[^>]*><span class="cell-value">veel</span>'
        r'<span class="cell-message"><span class="visually-hidden">Fout: </span>Geen getal</span>',
        body,
    )
    # TaskCreate's min_fotos > max_fotos rule lands on both cells (of the row whose other
    # values pass: pydantic checks the whole model only after its fields).
    assert page.count("min_fotos is groter dan max_fotos") == 2
    only_errors = text_of(
        client.get(f"/taken/import/{token_of(upload(client, GOOD_AND_BAD))}?alleen=fouten")
    )
    assert "Mest laden Enter" not in only_errors and "Te veel foto's" in only_errors


def test_importing_creates_only_the_good_rows(app, client, carrier, planner):
    jan = create_driver(app, carrier, "Jan de Vries")
    vehicle = create_vehicle(app, carrier, "BX-12-AB")
    login(client, planner)
    token = token_of(upload(client, GOOD_AND_BAD))

    response = run_import(client, token)

    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/taken/import/{token}")
    page = text_of(client.get(response.headers["Location"]))
    assert "2 taken geïmporteerd." in page
    assert "3 rijen met fouten zijn overgeslagen." in page
    tasks = {t["naam"]: t for t in tasks_of(app, carrier)}
    assert set(tasks) == {"Mest laden Enter", "Voer Epe"}
    enter = tasks["Mest laden Enter"]
    assert enter["chauffeur_id"] == jan.id and enter["vehicle_id"] == vehicle.id
    assert enter["hoeveelheid"] == 32.5 and enter["require_photos"] is True
    # 07:30 in Amsterdam in November is 06:30 UTC.
    assert enter["gepland_op"] == datetime(2026, 11, 23, 6, 30, tzinfo=UTC)
    assert tasks["Voer Epe"]["type"] == "voer_leveren"
    assert tasks["Voer Epe"]["chauffeur_id"] is None


def test_importing_twice_creates_nothing_more(app, client, carrier, planner):
    create_driver(app, carrier, "Jan de Vries")
    create_vehicle(app, carrier, "BX-12-AB")
    login(client, planner)
    token = token_of(upload(client, GOOD_AND_BAD))
    run_import(client, token)

    again = run_import(client, token)

    assert again.status_code == 303
    assert "Dit bestand is al geïmporteerd." in text_of(client.get(again.headers["Location"]))
    assert len(tasks_of(app, carrier)) == 2


def test_the_import_is_recorded_in_each_tasks_history(app, client, carrier, planner):
    login(client, planner)
    run_import(client, token_of(upload(client, b"naam,type\nRit A,mest_laden\n")))
    from portal.tasks import service

    entries = in_carrier(
        app,
        carrier.id,
        lambda: service.history(
            carrier_id=carrier.id,
            task_id=service.list_tasks(carrier_id=carrier.id, filters=service.TaskFilters())
            .tasks[0]
            .id,
        ),
        lambda rows: [(e.action, e.actor_type, e.actor_id) for e in rows],
    )
    assert entries == [("created", "user", planner.id)]


def test_the_error_report_holds_the_bad_rows_with_their_messages(app, client, carrier, planner):
    create_driver(app, carrier, "Jan de Vries")
    create_vehicle(app, carrier, "BX-12-AB")
    login(client, planner)
    token = token_of(upload(client, GOOD_AND_BAD))

    report = client.get(f"/taken/import/{token}/fouten.csv")

    assert report.status_code == 200
    assert report.mimetype == "text/csv"
    assert 'filename="taken-fouten.csv"' in report.headers["Content-Disposition"]
    text = report.get_data().decode("utf-8")
    assert text.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(text[1:]), delimiter=";"))
    assert rows[0] == [*HEADER.split(";"), "fouten"]
    assert [r[0] for r in rows[1:]] == ["", "Te veel foto's", "Fout type"]
    first = rows[1][-1]
    assert "naam: Verplicht" in first
    assert "kenteken: Geen voertuig met kenteken ZZ99ZZ" in first
    assert "hoeveelheid: Geen getal" in first
    # The original cells come back unchanged, so the planner can fix them there.
    assert rows[1][1:5] == ["mest_laden", "morgen", "Onbekende Chauffeur", "ZZ-99-ZZ"]
    # A report uploaded again: its own fouten column is no unknown column.
    fixed = text[1:].replace("Onbekende Chauffeur", "").replace("ZZ-99-ZZ", "")
    again = text_of(client.get(f"/taken/import/{token_of(upload(client, fixed.encode()))}"))
    assert "kent de import niet" not in again


def test_the_error_report_cannot_run_formulas(app, client, carrier, planner):
    login(client, planner)
    raw = (
        b"naam;type;opmerkingen;land\n"
        b'"=HYPERLINK(""http://evil.example"";""klik"")";mest_laden;+31 6 1234;NLD\n'
        b"@SUM(A1);mest_laden;-5;Nederland\n"
    )
    token = token_of(upload(client, raw))

    text = client.get(f"/taken/import/{token}/fouten.csv").get_data().decode("utf-8")

    rows = list(csv.reader(io.StringIO(text[1:]), delimiter=";"))
    assert rows[1][:3] == [
        '\'=HYPERLINK("http://evil.example";"klik")',
        "mest_laden",
        "'+31 6 1234",
    ]
    assert rows[2][:3] == ["'@SUM(A1)", "mest_laden", "'-5"]
    assert all(not cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row)
    # Fixed and uploaded again, the quote the report added is not taken for data.
    fixed = text.replace(";NLD;", ";NL;").replace(";Nederland;", ";NL;")
    run_import(client, token_of(upload(client, fixed.encode())))
    assert sorted((t["naam"], t["opmerkingen"]) for t in tasks_of(app, carrier)) == [
        ('=HYPERLINK("http://evil.example";"klik")', "+31 6 1234"),
        ("@SUM(A1)", "-5"),
    ]


def test_an_ambiguous_driver_name_is_an_error_and_an_email_picks_one(app, client, carrier, planner):
    create_driver(app, carrier, "Jan Jansen", email="jan1@example.nl")
    second = create_driver(app, carrier, "Jan Jansen", email="jan2@example.nl")
    login(client, planner)
    raw = "naam;type;chauffeur\nRit 1;mest_laden;jan jansen\nRit 2;mest_laden;JAN2@example.nl\n"
    token = token_of(upload(client, raw.encode()))

    page = text_of(client.get(f"/taken/import/{token}"))

    assert "2 chauffeurs heten “jan jansen”: gebruik het e-mailadres" in page
    assert "1 goed" in page
    run_import(client, token)
    assert [(t["naam"], t["chauffeur_id"]) for t in tasks_of(app, carrier)] == [
        ("Rit 2", second.id)
    ]


def test_an_unknown_plate_is_an_error_and_a_known_one_matches_however_written(
    app, client, carrier, planner
):
    vehicle = create_vehicle(app, carrier, "BX-12-AB")
    login(client, planner)
    raw = "naam;type;voertuig\nRit 1;mest_laden;bx 12 ab\nRit 2;mest_laden;XX-00-XX\n"
    token = token_of(upload(client, raw.encode()))

    page = text_of(client.get(f"/taken/import/{token}"))

    assert "Geen voertuig met kenteken XX00XX" in page
    run_import(client, token)
    assert [(t["naam"], t["vehicle_id"]) for t in tasks_of(app, carrier)] == [("Rit 1", vehicle.id)]


def test_drivers_and_plates_of_another_carrier_do_not_match(app, client, carrier, planner):
    other = create_carrier(app, "Ander")
    create_driver(app, other, "Sanne Kuipers")
    create_vehicle(app, other, "VT-12-XY")
    login(client, planner)
    raw = b"naam;type;chauffeur;kenteken\nRit;mest_laden;Sanne Kuipers;VT12XY\n"
    page = text_of(client.get(f"/taken/import/{token_of(upload(client, raw))}"))
    assert "Geen chauffeur met naam" in page and "Geen voertuig met kenteken VT12XY" in page


@pytest.mark.parametrize(
    "raw",
    [
        "\ufeffnaam;type;stad;opmerkingen\nCafé rit;mest_laden;Enschedé;a, b\n".encode(),
        "naam;type;stad;opmerkingen\nCafé rit;mest_laden;Enschedé;a, b\n".encode("cp1252"),
        'naam,type,stad,opmerkingen\nCafé rit,mest_laden,Enschedé,"a, b"\n'.encode(),
        '\ufeffnaam,type,stad,opmerkingen\r\nCafé rit,mest_laden,Enschedé,"a, b"\r\n'.encode(),
        b"\xef\xbb\xbf"
        + "naam;type;stad;opmerkingen\nCafé rit;mest_laden;Enschedé;a, b\n".encode("cp1252"),
    ],
    ids=["semicolon-bom", "cp1252", "comma", "comma-bom-crlf", "bom-then-cp1252"],
)
def test_encodings_and_separators(app, client, carrier, planner, raw):
    login(client, planner)
    token = token_of(upload(client, raw))
    assert "1 goed" in text_of(client.get(f"/taken/import/{token}"))
    run_import(client, token)
    assert [(t["naam"], t["stad"]) for t in tasks_of(app, carrier)] == [("Café rit", "Enschedé")]


@pytest.mark.parametrize(
    "value",
    ["2026-11-23 07:30", "23-11-2026 07:30", "2026-11-23T07:30:00+01:00", "2026-11-23T06:30:00Z"],
)
def test_planned_times_in_each_accepted_form(app, client, carrier, planner, value):
    login(client, planner)
    run_import(
        client, token_of(upload(client, f"naam;type;gepland_op\nRit;mest_laden;{value}\n".encode()))
    )
    assert tasks_of(app, carrier)[0]["gepland_op"] == datetime(2026, 11, 23, 6, 30, tzinfo=UTC)


def test_a_time_that_does_not_exist_is_an_error(app, client, carrier, planner):
    login(client, planner)
    raw = b"naam;type;gepland_op\nRit;mest_laden;2026-03-29 02:30\n"
    page = text_of(client.get(f"/taken/import/{token_of(upload(client, raw))}"))
    assert "Deze tijd bestaat niet in tijdzone Europe/Amsterdam (zomertijd)" in page


def test_unknown_columns_are_named_in_a_warning(app, client, carrier, planner):
    login(client, planner)
    # (klantnummer, this test's first unknown column, now names the customer.)
    raw = b"naam;type;referentie;Prijs\nRit;mest_laden;K-1;12\n"
    page = text_of(client.get(f"/taken/import/{token_of(upload(client, raw))}"))
    assert "deze kolommen kent de import niet en worden overgeslagen: referentie, Prijs." in page
    assert "1 goed" in page


def test_a_file_without_the_naam_column_is_refused(client, planner):
    login(client, planner)
    response = upload(client, b"titel;type\nRit;mest_laden\n")
    assert response.status_code == 422
    page = text_of(response)
    assert "De kolom naam ontbreekt." in page
    both = text_of(upload(client, b"omschrijving\nRit\n"))
    assert "De kolom naam, type ontbreekt." in both


def test_an_oversized_file_is_refused(client, planner):
    login(client, planner)
    row = "Rit;mest_laden;" + "x" * 2990 + "\n"
    raw = ("naam;type;opmerkingen\n" + row * 1800).encode()
    assert len(raw) > csv_import.MAX_BYTES
    response = upload(client, raw)
    assert response.status_code == 413
    assert "Het bestand is groter dan 5 MB." in text_of(response)


def test_more_than_five_thousand_rows_is_refused(client, planner):
    login(client, planner)
    raw = ("naam;type\n" + "Rit;mest_laden\n" * 5001).encode()
    response = upload(client, raw)
    assert response.status_code == 413
    assert "meer dan 5000 rijen" in text_of(response)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"", "Het bestand is leeg."),
        (b"naam;type\n", "Het bestand heeft geen rijen onder de kopregel."),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00", "geen"),
        (b"naam;type;Naam\nRit;a;b\n", "De kolommen naam en Naam zeggen hetzelfde"),
    ],
    ids=["empty", "header-only", "binary", "duplicate-column"],
)
def test_files_that_cannot_be_read_are_refused_with_a_reason(client, planner, raw, message):
    login(client, planner)
    response = upload(client, raw)
    assert response.status_code in (413, 422)
    assert message in text_of(response)


def test_no_file_chosen(client, planner):
    login(client, planner)
    token = csrf_from(client.get("/taken/import").get_data(as_text=True))
    response = client.post("/taken/import", data={"csrf_token": token})
    assert response.status_code == 422
    assert "Kies een CSV-bestand om te uploaden." in text_of(response)


def test_another_carriers_token_is_404(app, client, carrier, planner):
    login(client, planner)
    token = token_of(upload(client, b"naam;type\nGeheim;mest_laden\n"))
    other = create_carrier(app, "Ander")
    stranger = app.test_client()
    login(stranger, create_user(app, other, "planner"))
    page = stranger.get("/taken/import").get_data(as_text=True)

    assert stranger.get(f"/taken/import/{token}").status_code == 404
    assert stranger.get(f"/taken/import/{token}/fouten.csv").status_code == 404
    response = stranger.post(f"/taken/import/{token}", data={"csrf_token": csrf_from(page)})
    assert response.status_code == 404
    assert tasks_of(app, other) == [] and tasks_of(app, carrier) == []
    # Unknown and malformed tokens are 404 too.
    assert client.get(f"/taken/import/{'A' * 32}").status_code == 404
    assert client.get("/taken/import/..%2F..%2Fetc%2Fpasswd").status_code == 404


def test_an_expired_upload_is_gone(app, client, planner):
    login(client, planner)
    token = token_of(upload(client, b"naam;type\nRit;mest_laden\n"))
    path = Path(app.instance_path) / "imports" / f"{token}.json"
    record = json.loads(path.read_text())
    record["expires_at"] = time.time() - 1
    path.write_text(json.dumps(record))

    assert client.get(f"/taken/import/{token}").status_code == 404
    assert not path.exists()


def test_csrf_is_required(app, client, carrier, planner):
    login(client, planner)
    assert upload(client, b"naam;type\nRit;mest_laden\n", csrf=False).status_code == 400
    token = token_of(upload(client, b"naam;type\nRit;mest_laden\n"))
    assert client.post(f"/taken/import/{token}").status_code == 400
    assert tasks_of(app, carrier) == []


def test_the_import_is_for_planners(app, client, carrier):
    assert client.get("/taken/import").status_code == 302
    login(client, create_user(app, carrier, "author"))
    assert client.get("/taken/import").status_code == 403
    assert client.get("/taken/import/voorbeeld.csv").status_code == 403


def test_the_stored_upload_holds_the_carrier_and_no_verdict(app, client, carrier, planner):
    login(client, planner)
    token = token_of(upload(client, b"naam;type\nRit;mest_laden\n"))
    record = json.loads((Path(app.instance_path) / "imports" / f"{token}.json").read_text())
    assert record["carrier_id"] == str(carrier.id)
    assert record["parsed"]["rows"] == [["Rit", "mest_laden"]]
    assert record["expires_at"] > time.time()


# --- customers and routes ------------------------------------------------------------------


ROUTES = "\n".join(
    [
        "naam;type;gepland_op;klantnummer;laadlocatie;losplaats;los_stad;laad_adres",
        "Op nummer;mest_laden;2026-11-23 07:30;10023;erf enter;MESTVERWERKING;;",
        "Op naam;mest_laden;2026-11-23 09:30;maatschap  ter horst;Boerderij;;Deurne;",
        "Eigen straat;mest_laden;2026-11-23 11:30;10023;Erf Enter;Boerderij;;Kerkweg 2",
    ]
).encode()


def test_a_customer_by_number_or_name_and_its_places_give_the_task_its_route(
    app, client, carrier, planner
):
    ids = customer(app, carrier, debiteurnummer="10023")
    customer(app, carrier, "Ander Bedrijf", debiteurnummer="20001")
    login(client, planner)
    token = token_of(upload(client, ROUTES))

    page = text_of(client.get(f"/taken/import/{token}"))

    assert "3 rijen" in page and "3 goed" in page, page
    assert "overgeslagen" not in page  # the aliases are known
    assert page.count("Maatschap Ter Horst") == 3
    assert "Route: Erf Enter → Mestverwerking" in page
    assert "Route: Boerderij → Deurne" in page
    assert run_import(client, token).status_code == 303
    tasks = routes_of(app, carrier)
    by_number = tasks["Op nummer"]
    assert by_number["klant_id"] == ids["klant"]
    assert by_number["laadlocatie_id"] == ids["Erf Enter"]
    assert by_number["loslocatie_id"] == ids["Mestverwerking"]
    # The places' addresses are copied onto the task, the main address from the loading end.
    assert by_number["laad_naam"] == "Erf Enter"
    assert by_number["laad_adres"] == "Hengelosestraat 12"
    assert by_number["laad_postcode"] == "7468 AB" and by_number["laad_lat"] == 52.2936
    assert by_number["los_stad"] == "Deventer" and by_number["los_adres"] == "Zutphenseweg 51"
    assert (by_number["adres"], by_number["stad"]) == ("Hengelosestraat 12", "Enter")
    by_name = tasks["Op naam"]
    assert by_name["klant_id"] == ids["klant"] and by_name["laadlocatie_id"] == ids["Boerderij"]
    assert by_name["loslocatie_id"] is None and by_name["los_stad"] == "Deurne"
    # A cell the file fills wins over the place's.
    own = tasks["Eigen straat"]
    assert own["laad_adres"] == "Kerkweg 2" and own["laad_stad"] == "Enter"
    assert own["loslocatie_id"] == ids["Boerderij"] and own["los_stad"] == "Markelo"


BAD_ROUTES = "\n".join(
    [
        "naam;type;klant;laadplaats;losplaats",
        "Onbekend;mest_laden;Onbekend BV;;",
        "Geen plaats;mest_laden;Maatschap Ter Horst;Nergens;",
        "Verkeerd om;mest_laden;10023;Mestverwerking;Erf Enter",
        "Zonder klant;mest_laden;;Erf Enter;",
        "Slapend;mest_laden;Oude Klant;;",
        "Dubbel;mest_laden;Tweeling;;",
        "Van een ander;mest_laden;Vreemde Klant;;",
    ]
).encode()


def test_unknown_customers_and_places_are_errors_at_their_cells(app, client, carrier, planner):
    customer(app, carrier, debiteurnummer="10023")
    customer(app, carrier, "Oude Klant", places=(), actief=False)
    customer(app, carrier, "Tweeling", places=())
    customer(app, carrier, "tweeling", places=())
    customer(app, create_carrier(app, "Ander"), "Vreemde Klant")
    login(client, planner)
    token = token_of(upload(client, BAD_ROUTES))

    response = client.get(f"/taken/import/{token}")

    page = text_of(response)
    assert "7 rijen" in page and "0 goed" in page and "7 met fouten" in page
    for message in (
        "Geen klant met debiteurnummer of naam “Onbekend BV”",
        "Maatschap Ter Horst heeft geen plaats “Nergens”",
        "“Mestverwerking” is een losplaats, geen laadplaats",
        "“Erf Enter” is een laadplaats, geen losplaats",
        "Een plaats hoort bij een klant: vul ook de kolom klant in",
        "Klant “Oude Klant” is niet actief",
        "2 klanten heten “Tweeling”: gebruik het debiteurnummer",
        "Geen klant met debiteurnummer of naam “Vreemde Klant”",
    ):
        assert message in page, message
    body = response.get_data(as_text=True)
    assert re.search(
        r'<td class="cell-error"[^>]*><span class="cell-value">Nergens</span>'
        r'<span class="cell-message"><span class="visually-hidden">Fout: </span>'
        r"Maatschap Ter Horst heeft geen plaats “Nergens”</span>",
        body,
    )
    assert body.count('class="cell-error"') == 8
    run = run_import(client, token)
    assert "Er zijn geen geldige rijen om te importeren." in text_of(
        client.get(run.headers["Location"])
    )
    assert routes_of(app, carrier) == {}


def test_the_english_ui_names_customer_and_place_errors_in_english(app, client, carrier, planner):
    customer(app, carrier, debiteurnummer="10023")
    login(client, planner)
    with client.session_transaction() as session:
        session["taal"] = "en"
    form = text_of(client.get("/taken/import"))
    assert "Debtor number or name of the customer" in form
    raw = "naam;type;klant;laadplaats;losplaats;laad_lat\n"
    raw += "A;mest_laden;Onbekend BV;;;\nB;mest_laden;10023;Mestverwerking;Nergens;52,1\n"
    raw += "C;mest_laden;;Erf Enter;;\nD;mest_laden;10023;Erf Enter;;\n"

    page = text_of(client.get(f"/taken/import/{token_of(upload(client, raw.encode()))}"))

    for message in (
        "No customer with debtor number or name “Onbekend BV”",
        "“Mestverwerking” is an unloading place, not a loading place",
        "Maatschap Ter Horst has no place “Nergens”",
        "laad_lat and laad_lng go together",
        "A place belongs to a customer: fill in the klant column too",
        "Route: Erf Enter → ?",
    ):
        assert message in page, message


def test_a_row_the_service_refuses_shows_its_errors_at_the_cells(
    app, client, carrier, planner, monkeypatch
):
    from portal.errors import ValidationFailed
    from portal.tasks import service

    customer(app, carrier, debiteurnummer="10023")
    login(client, planner)
    with client.session_transaction() as session:
        session["taal"] = "en"
    raw = "naam;type;klant;laadplaats;losplaats\nA;mest_laden;;;\n"
    raw += "B;mest_laden;10023;Erf Enter;Mestverwerking\n"
    token = token_of(upload(client, raw.encode()))

    def refuse(**kwargs):
        # What the service says when the place changed between the check and the write.
        raise ValidationFailed(
            [
                {"field": "laadlocatie_id", "code": "wrong_place_kind", "message": "x", "row": 2},
                {"field": "klant_id", "code": "unknown_customer", "message": "x", "row": 2},
            ]
        )

    monkeypatch.setattr(service, "create_tasks", refuse)
    response = run_import(client, token)

    assert response.status_code == 422
    page = text_of(response)
    assert "The import was stopped" in page or "nothing was imported" in page, page
    assert "This place is not a loading place of the customer" in page
    assert "This customer does not exist or is not active" in page
    body = response.get_data(as_text=True)
    assert body.count('class="cell-error"') == 2
    monkeypatch.undo()
    # Nothing was kept: the upload can be imported once the planner is ready.
    assert routes_of(app, carrier) == {}
    assert run_import(client, token).status_code == 303
    assert set(routes_of(app, carrier)) == {"A", "B"}


def test_the_preview_reads_customers_and_places_in_a_fixed_number_of_queries(
    app, client, carrier, planner, count_queries
):
    for n in range(4):
        customer(app, carrier, f"Klant {n}", debiteurnummer=f"D{n}")
    login(client, planner)

    def rows(count: int) -> bytes:
        lines = ["naam;type;gepland_op;klant;laadplaats;losplaats"]
        lines += [
            f"Rit {n};mest_laden;2026-11-23 07:{n % 60:02d};D{n % 4};Erf Enter;Mestverwerking"
            for n in range(count)
        ]
        return "\n".join(lines).encode()

    few_token = token_of(upload(client, rows(2)))
    many_token = token_of(upload(client, rows(40)))
    client.get(f"/taken/import/{few_token}")  # warm up
    with count_queries() as few:
        assert "2 goed" in text_of(client.get(f"/taken/import/{few_token}"))
    with count_queries() as many:
        assert "40 goed" in text_of(client.get(f"/taken/import/{many_token}"))
    assert many.count == few.count, "\n".join([*few.statements, "-----", *many.statements])
