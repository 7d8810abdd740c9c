"""Import of customers with their places from CSV or XLSX: upload, preview of what each row
does with errors at the cell, import of the valid rows, re-import without duplicates."""

from __future__ import annotations

import csv
import html
import io
import re
import zipfile

import pytest
from factories import create_carrier, create_user, csrf_from, in_carrier, login
from openpyxl import Workbook, load_workbook

from portal.customers import csv_import

HEADER = (
    "naam;debiteurnummer;btw_nummer;factuur_email;locatie_naam;soort;adres;postcode;stad;"
    "locatie_lat;locatie_lng;telefoon"
)
TWO_CUSTOMERS = "\n".join(
    [
        HEADER,
        "Maatschap Ter Horst;10023;nl 123456789 b01;facturen@terhorst.nl;Erf Enter;beide;"
        "Dorpsstraat 12;7468ab;Enter;52,2936;6,5714;0547 123456",
        "Maatschap Ter Horst;10023;NL123456789B01;;Weiland Rijssen;Laden;Haarweg 4;;Rijssen;;;",
        "Mengvoeder De Eendracht;20045;;;Fabriek;lossen;Industrieweg 5;;Nijverdal;;;",
        "Mengvoeder De Eendracht;20045;;;Silo;;;;Hellendoorn;;;",
    ]
)
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def text_of(response) -> str:
    body = re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))
    return " ".join(html.unescape(body).split())


def upload(client, raw: bytes | str, filename: str = "klanten.csv", csrf: bool = True):
    """POST the file as a browser does."""
    raw = raw.encode() if isinstance(raw, str) else raw
    data = {"bestand": (io.BytesIO(raw), filename)}
    if csrf:
        data["csrf_token"] = csrf_from(client.get("/klanten/import").get_data(as_text=True))
    return client.post("/klanten/import", data=data, content_type="multipart/form-data")


def token_of(response) -> str:
    assert response.status_code == 303, text_of(response)
    match = re.search(r"/klanten/import/([A-Za-z0-9_-]{32})$", response.headers["Location"])
    assert match, response.headers["Location"]
    return match.group(1)


def preview(client, raw, filename: str = "klanten.csv") -> str:
    return text_of(client.get(f"/klanten/import/{token_of(upload(client, raw, filename))}"))


def run_import(client, token: str):
    page = client.get(f"/klanten/import/{token}").get_data(as_text=True)
    return client.post(f"/klanten/import/{token}", data={"csrf_token": csrf_from(page)})


def imported(client, raw, filename: str = "klanten.csv") -> str:
    """Upload, import, and the page the import answers with."""
    response = run_import(client, token_of(upload(client, raw, filename)))
    assert response.status_code == 303
    return text_of(client.get(response.headers["Location"]))


def customers_of(app, carrier) -> dict[str, dict]:
    """The carrier's customers by name, with their places by name."""
    from portal.customers import service

    def read():
        found = service.all_customers(carrier_id=carrier.id)
        places = service.places_by_customer(
            carrier_id=carrier.id, customer_ids={c.id for c in found}
        )
        return {
            c.naam: {
                "debiteurnummer": c.debiteurnummer,
                "btw_nummer": c.btw_nummer,
                "factuur_email": c.factuur_email,
                "places": {
                    p.naam: {
                        "soort": p.soort,
                        "postcode": p.postcode,
                        "stad": p.stad,
                        "land": p.land,
                        "lat": p.locatie_lat,
                        "lng": p.locatie_lng,
                        "telefoon": p.telefoon,
                        "opmerkingen": p.opmerkingen,
                    }
                    for p in places[c.id]
                },
            }
            for c in found
        }

    return in_carrier(app, carrier.id, read)


def xlsx(rows: list[list]) -> bytes:
    book = Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


@pytest.fixture
def browser(client, planner):
    login(client, planner)
    return client


# --- the form and the example files ----------------------------------------------------


def test_the_customers_page_offers_the_import(browser):
    page = browser.get("/klanten").get_data(as_text=True)
    assert 'href="/klanten/import"' in page and "Importeren" in page
    assert "importeer ze uit een CSV- of Excel-bestand" in page  # the empty state


def test_the_form_describes_the_columns_and_offers_both_example_files(browser):
    page = text_of(browser.get("/klanten/import"))
    assert "Klanten importeren" in page and "naam verplicht" in page
    for column in ("debiteurnummer", "locatie_naam", "soort", "locatie_lat", "openingstijden"):
        assert column in page

    example = browser.get("/klanten/import/voorbeeld.csv")
    assert example.mimetype == "text/csv" and "attachment" in example.headers["Content-Disposition"]
    text = example.get_data().decode("utf-8")
    assert text.startswith(
        "\ufeffnaam;debiteurnummer;btw_nummer;factuur_email;factuur_adres;factuur_postcode;"
        "factuur_plaats;factuur_land;kvk_nummer;gln;peppol_id;btw_categorie;"
    )

    workbook = browser.get("/klanten/import/voorbeeld.xlsx")
    assert workbook.mimetype == XLSX
    sheet = load_workbook(io.BytesIO(workbook.get_data()), read_only=True).worksheets[0]
    rows = [list(r) for r in sheet.iter_rows(values_only=True)]
    assert rows[0] == list(csv_import.COLUMN_ORDER)
    assert rows[1][:2] == ["Maatschap Ter Horst", "10023"]  # text, so Excel keeps it as typed


@pytest.mark.parametrize(
    ("path", "name"), [("voorbeeld.csv", "x.csv"), ("voorbeeld.xlsx", "x.xlsx")]
)
def test_each_example_file_imports_cleanly(app, browser, carrier, path, name):
    raw = browser.get(f"/klanten/import/{path}").get_data()
    page = preview(browser, raw, name)
    assert "3 rijen" in page and "2 nieuwe klanten" in page and "3 locaties erbij" in page
    assert "0 met fouten" in page and "overgeslagen" not in page
    imported(browser, raw, name)
    found = customers_of(app, carrier)
    assert set(found) == {"Maatschap Ter Horst", "Mengvoederfabriek De Eendracht"}
    assert set(found["Maatschap Ter Horst"]["places"]) == {"Erf Enter", "Weiland Rijssen"}


# --- importing -------------------------------------------------------------------------


def test_two_customers_with_their_places_are_previewed_then_imported(app, browser, carrier):
    token = token_of(upload(browser, TWO_CUSTOMERS))
    page = text_of(browser.get(f"/klanten/import/{token}"))

    assert "4 rijen" in page and "2 nieuwe klanten" in page and "4 locaties erbij" in page
    assert "2 ✓ Nieuwe klant met locatie" in page
    assert "3 ✓ Nieuwe locatie bij de nieuwe klant van rij 2" in page
    assert "Er is nog niets opgeslagen" in page
    assert customers_of(app, carrier) == {}  # the preview writes nothing

    response = run_import(browser, token)

    assert response.headers["Location"].endswith(f"/klanten/import/{token}")
    done = text_of(browser.get(response.headers["Location"]))
    assert "Geïmporteerd: 2 nieuwe klanten en 4 locaties." in done
    assert "Dit bestand is geïmporteerd." in done and "Nieuwe klant" in done
    found = customers_of(app, carrier)
    ter_horst = found["Maatschap Ter Horst"]
    assert ter_horst["debiteurnummer"] == "10023"
    assert ter_horst["btw_nummer"] == "NL123456789B01"
    assert ter_horst["factuur_email"] == "facturen@terhorst.nl"
    erf = ter_horst["places"]["Erf Enter"]
    assert (erf["postcode"], erf["lat"], erf["lng"]) == ("7468 AB", 52.2936, 6.5714)
    assert ter_horst["places"]["Weiland Rijssen"]["soort"] == "laden"
    eendracht = found["Mengvoeder De Eendracht"]["places"]
    assert eendracht["Fabriek"]["soort"] == "lossen"
    assert eendracht["Silo"]["soort"] == "beide" and eendracht["Silo"]["land"] == "NL"
    listing = text_of(browser.get("/klanten"))
    assert "Maatschap Ter Horst" in listing and "Mengvoeder De Eendracht" in listing


def test_an_xlsx_file_imports_as_its_csv_does(app, browser, carrier):
    rows = [line.split(";") for line in TWO_CUSTOMERS.split("\n")]
    # Excel gives numbers as numbers: a debtor number and coordinates read as typed.
    rows[1][1], rows[1][9], rows[1][10] = 10023, 52.2936, 6.5714
    rows[2][1] = 10023.0
    raw = xlsx([[cell if cell != "" else None for cell in row] for row in rows])

    page = preview(browser, raw, "klanten.xlsx")

    assert "4 rijen" in page and "2 nieuwe klanten" in page and "4 locaties erbij" in page
    imported(browser, raw, "klanten.xlsx")
    found = customers_of(app, carrier)
    assert found["Maatschap Ter Horst"]["debiteurnummer"] == "10023"
    erf = found["Maatschap Ter Horst"]["places"]["Erf Enter"]
    assert (erf["lat"], erf["lng"]) == (52.2936, 6.5714)
    assert set(found["Mengvoeder De Eendracht"]["places"]) == {"Fabriek", "Silo"}


def test_a_row_with_only_customer_columns_is_a_customer_without_places(app, browser, carrier):
    page = preview(browser, "naam;debiteurnummer;btw_nummer\nLoonbedrijf Smit;30001;DE123456789\n")
    assert "Nieuwe klant zonder locatie" in page and "0 locaties erbij" in page
    imported(browser, "naam;debiteurnummer;btw_nummer\nLoonbedrijf Smit;30001;DE123456789\n")
    found = customers_of(app, carrier)
    assert found == {
        "Loonbedrijf Smit": {
            "debiteurnummer": "30001",
            "btw_nummer": "DE123456789",
            "factuur_email": None,
            "places": {},
        }
    }


def test_the_import_is_recorded_in_the_customers_history(app, browser, carrier, planner):
    imported(browser, "naam;locatie_naam\nBoer Jansen;Erf\n")
    from portal.customers import service

    entries = in_carrier(
        app,
        carrier.id,
        lambda: service.history(
            carrier_id=carrier.id, customer_id=service.all_customers(carrier_id=carrier.id)[0].id
        ),
        lambda rows: [(e.action, e.actor_type, e.actor_id) for e in rows],
    )
    assert entries == [("created", "user", planner.id), ("place_added", "user", planner.id)]


# --- errors ----------------------------------------------------------------------------

WITH_ERRORS = "\n".join(
    [
        "naam;debiteurnummer;btw_nummer;factuur_email;locatie_naam;soort;land;locatie_lat;locatie_lng",
        "Goede Klant;1;;;Erf;;;;",
        "Foute Klant;2;NL12345;geen-mail;Erf;;;;",
        "Foute Klant;2;;;Stal;;;;",
        "Klant Drie;3;;;Erf;misschien;Nederland;52,1;",
        "Klant Drie;3;;;Weiland;;;veel;5",
        ";4;;;;;;;",
        "Klant Vijf;5;;;;;;;",
        f"{'x' * 201};6;;;;;;;",
    ]
)


NOT_ISO = "\n".join(
    [
        "naam;debiteurnummer;factuur_adres;factuur_postcode;factuur_plaats;factuur_land;"
        "locatie_naam;land",
        "Canarias Agro;7;Calle 1;35001;Las Palmas;IC;;",  # Babel knows IC; ISO 3166 does not
        "Ceuta Transportes;8;;;;;Muelle;EA",
        "Goede Klant;9;Dorpsstraat 1;7468 AB;Enter;NL;Erf;NL",
    ]
)


def test_a_country_outside_iso_3166_is_refused_at_its_cell(app, browser, carrier):
    page = text_of(browser.get(f"/klanten/import/{token_of(upload(browser, NOT_ISO))}"))

    assert "3 rijen" in page and "1 nieuwe klant" in page and "2 met fouten" in page
    assert page.count("Geen landcode uit ISO 3166: vul bijvoorbeeld NL, DE of BE in.") == 2


def test_errors_are_shown_at_their_row_and_cell_and_nothing_is_written(app, browser, carrier):
    response = browser.get(f"/klanten/import/{token_of(upload(browser, WITH_ERRORS))}")

    page = text_of(response)
    assert "8 rijen" in page and "2 nieuwe klanten" in page and "6 met fouten" in page
    for message in (
        "Een Nederlands btw-nummer is NL, 9 cijfers, B en 2 cijfers",
        "Vul een e-mailadres in, bijvoorbeeld facturen@klant.nl.",
        "De gegevens van deze klant hebben fouten op rij 3",  # row 4 of the same customer
        "Kies laden, lossen of beide",
        "Geen landcode uit ISO 3166: vul bijvoorbeeld NL, DE of BE in.",
        "Vul breedte- en lengtegraad allebei in, of laat ze allebei leeg.",
        "Geen getal",
        "Vul de naam van de klant in.",  # number 4 is no customer in the file nor in Rijplan
        "Te lang: hoogstens 200 tekens",
    ):
        assert message in page, message
    body = response.get_data(as_text=True)
    assert re.search(
        r'<td class="cell-error"[^>]*><span class="cell-value">geen-mail</span>'
        r'<span class="cell-message"><span class="visually-hidden">Fout: </span>'
        r"Vul een e-mailadres",
        body,
    )
    assert customers_of(app, carrier) == {}


def test_only_the_valid_rows_are_imported(app, browser, carrier):
    page = imported(browser, WITH_ERRORS)

    assert "Geïmporteerd: 2 nieuwe klanten en 1 locatie. 6 rijen met fouten zijn overgeslagen." in (
        page
    )
    found = customers_of(app, carrier)
    # Klant Drie's details are fine, but each of its rows has an error: no row, no customer.
    assert {name: set(c["places"]) for name, c in found.items()} == {
        "Goede Klant": {"Erf"},
        "Klant Vijf": set(),
    }


def test_the_error_report_holds_the_bad_rows_with_their_messages(browser):
    token = token_of(upload(browser, WITH_ERRORS, "mijn klanten.csv"))
    report = browser.get(f"/klanten/import/{token}/fouten.csv")
    assert 'filename="mijn-klanten-fouten.csv"' in report.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(report.get_data().decode("utf-8")[1:]), delimiter=";"))
    assert rows[0][-1] == "fouten" and len(rows) == 7
    assert rows[1][:4] == ["Foute Klant", "2", "NL12345", "geen-mail"]
    assert "factuur_email: Vul een e-mailadres in" in rows[1][-1]


def test_a_file_that_is_all_errors_cannot_be_imported(app, browser, carrier):
    token = token_of(upload(browser, "naam;factuur_email\nKlant;fout\n"))
    page = browser.get(f"/klanten/import/{token}").get_data(as_text=True)
    assert re.search(r"<button type=\"submit\" disabled>", page)
    response = run_import(browser, token)
    assert "Er is niets te importeren" in text_of(browser.get(response.headers["Location"]))
    assert customers_of(app, carrier) == {}


def test_a_cell_that_starts_with_an_equals_sign_is_text(app, browser, carrier):
    raw = 'naam;opmerkingen;locatie_naam;telefoon\n"=HYPERLINK(""x"")";=1+1;@Erf;+31 6 1234\n'
    imported(browser, raw)
    customer = customers_of(app, carrier)['=HYPERLINK("x")']
    assert customer["places"]["@Erf"]["telefoon"] == "+31 6 1234"


# --- grouping and re-importing -----------------------------------------------------------


def test_rows_group_by_debtor_number_and_a_different_value_is_an_error(app, browser, carrier):
    raw = "\n".join(
        [
            "naam;debiteurnummer;factuur_email;locatie_naam",
            "Ter Horst;10023;a@terhorst.nl;Erf",
            "ter  horst;10023;;Stal",  # the same name, however written; no e-mail: the same
            ";10023;;Weiland",  # the number alone says which customer
            "Ter Horst;;;Schuur",  # no number: the one this name has elsewhere in the file
            "Jansen;40;b@jansen.nl;Erf",
            "Jansen;40;c@jansen.nl;Stal",
        ]
    )
    page = preview(browser, raw)
    assert "1 nieuwe klant" in page and "4 locaties erbij" in page and "2 met fouten" in page
    assert "Anders dan op rij 6 van dezelfde klant (b@jansen.nl)" in page
    imported(browser, raw)
    found = customers_of(app, carrier)
    assert set(found) == {"Ter Horst"}
    assert set(found["Ter Horst"]["places"]) == {"Erf", "Stal", "Weiland", "Schuur"}


def test_the_same_place_twice_for_one_customer_is_an_error(browser):
    page = preview(browser, "naam;locatie_naam\nBoer;Erf\nboer;erf\n")
    assert "Deze locatie staat al op rij 2 bij dezelfde klant" in page


def test_importing_the_same_file_again_adds_nothing(app, browser, carrier):
    imported(browser, TWO_CUSTOMERS)
    before = customers_of(app, carrier)

    token = token_of(upload(browser, TWO_CUSTOMERS))
    page = browser.get(f"/klanten/import/{token}").get_data(as_text=True)

    text = text_of_html(page)
    assert "0 nieuwe klanten" in text and "0 locaties erbij" in text and "4 bestaan al" in text
    assert "2 = Bestaat al locatie van Maatschap Ter Horst" in text
    assert re.search(r"<button type=\"submit\" disabled>", page)
    run_import(browser, token)
    assert customers_of(app, carrier) == before


def text_of_html(body: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def test_an_existing_customer_gets_only_the_places_it_lacks(app, browser, carrier, make_customer):
    make_customer(
        carrier, "Maatschap Ter Horst", debiteurnummer="10023", places=({"naam": "Erf Enter"},)
    )
    make_customer(carrier, "Boer Zonder Nummer")
    raw = "\n".join(
        [
            "naam;debiteurnummer;locatie_naam;stad",
            "Andere naam in het bestand;10023;erf enter;Enter",
            ";10023;Weiland;Rijssen",
            "boer zonder nummer;;Stal;Markelo",
            "Boer Zonder Nummer;;;",
        ]
    )
    page = preview(browser, raw)
    assert "2 = Bestaat al locatie van Maatschap Ter Horst" in page
    assert "3 ✓ Nieuwe locatie bij bestaande klant Maatschap Ter Horst" in page
    assert "4 ✓ Nieuwe locatie bij bestaande klant Boer Zonder Nummer" in page
    assert "5 = Bestaat al klant Boer Zonder Nummer" in page
    assert "0 nieuwe klanten" in page and "2 locaties erbij" in page

    done = imported(browser, raw)

    assert "Geïmporteerd: 0 nieuwe klanten en 2 locaties." in done
    found = customers_of(app, carrier)
    assert set(found) == {"Maatschap Ter Horst", "Boer Zonder Nummer"}
    assert set(found["Maatschap Ter Horst"]["places"]) == {"Erf Enter", "Weiland"}
    assert set(found["Boer Zonder Nummer"]["places"]) == {"Stal"}


def test_a_name_two_customers_share_needs_the_debtor_number(browser, carrier, make_customer):
    make_customer(carrier, "Jansen", debiteurnummer="1")
    make_customer(carrier, "Jansen", debiteurnummer="2")
    page = preview(browser, "naam;locatie_naam\nJansen;Erf\n")
    assert "2 klanten heten zo: vul het debiteurnummer in." in page


def test_customers_of_another_carrier_are_not_matched(app, browser, carrier, make_customer):
    other = create_carrier(app, "Ander")
    make_customer(other, "Ter Horst", debiteurnummer="10023", places=({"naam": "Erf"},))
    page = preview(browser, "naam;debiteurnummer;locatie_naam\nTer Horst;10023;Erf\n")
    assert "1 nieuwe klant" in page and "Bestaat al" not in page


# --- files ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "\ufeffnaam;stad;locatie_naam\nCafé Zuid;Enschedé;Erf\n".encode(),
        "naam;stad;locatie_naam\nCafé Zuid;Enschedé;Erf\n".encode("cp1252"),
        'naam,stad,locatie_naam\n"Café Zuid",Enschedé,Erf\n'.encode(),
        "\ufeffnaam,stad,locatie_naam\r\nCafé Zuid,Enschedé,Erf\r\n".encode(),
    ],
    ids=["semicolon-bom", "cp1252", "comma", "comma-bom-crlf"],
)
def test_encodings_and_separators(app, browser, carrier, raw):
    imported(browser, raw)
    assert customers_of(app, carrier)["Café Zuid"]["places"]["Erf"]["stad"] == "Enschedé"


def broken_zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("hello.txt", "no workbook here")
    return out.getvalue()


@pytest.mark.parametrize(
    ("raw", "filename", "message"),
    [
        (b"PK\x03\x04 this is no zip", "klanten.xlsx", "Het Excel-bestand is niet te lezen"),
        (broken_zip(), "klanten.xlsx", "Het Excel-bestand is niet te lezen"),
        (xlsx([["naam"], ["Boer"]])[:400], "klanten.xlsx", "Het Excel-bestand is niet te lezen"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "klanten.xls", "oud (.xls)"),
        (b"", "klanten.csv", "Het bestand is leeg."),
        (b"naam;stad\n", "klanten.csv", "Het bestand heeft geen rijen onder de kopregel."),
        (b"klant_id;stad\n1;Enter\n", "klanten.csv", "De kolom naam ontbreekt."),
        (b"naam;Naam\nA;B\n", "klanten.csv", "De kolommen naam en Naam zeggen hetzelfde"),
        (xlsx([]), "leeg.xlsx", "Het bestand is leeg."),
        (xlsx([["naam", "stad"]]), "kop.xlsx", "Het bestand heeft geen rijen onder de kopregel."),
    ],
    ids=[
        "not-a-zip",
        "zip-without-workbook",
        "truncated-xlsx",
        "old-xls",
        "empty",
        "header-only",
        "no-naam",
        "duplicate-column",
        "empty-xlsx",
        "header-only-xlsx",
    ],
)
def test_files_that_cannot_be_read_are_refused_with_a_reason(browser, raw, filename, message):
    response = upload(browser, raw, filename)
    assert response.status_code in (413, 422)
    page = text_of(response)
    assert message in page and "Klanten importeren" in page


def test_more_rows_than_the_tasks_import_takes_is_refused(browser):
    assert (csv_import.MAX_ROWS, csv_import.MAX_BYTES) == (5000, 5 * 1024 * 1024)
    response = upload(browser, "naam\n" + "Boer\n" * 5001)
    assert response.status_code == 413
    assert "meer dan 5000 rijen" in text_of(response)


def test_no_file_chosen(browser):
    token = csrf_from(browser.get("/klanten/import").get_data(as_text=True))
    response = browser.post("/klanten/import", data={"csrf_token": token})
    assert response.status_code == 422
    assert "Kies een CSV- of Excel-bestand om te uploaden." in text_of(response)


# --- who may, and in which language ----------------------------------------------------


def test_the_import_is_for_those_who_may_add_customers(app, client, carrier):
    assert client.get("/klanten/import").status_code == 302  # to the sign-in page
    login(client, create_user(app, carrier, "author"))
    for path in (
        "/klanten/import",
        "/klanten/import/voorbeeld.csv",
        "/klanten/import/voorbeeld.xlsx",
    ):
        assert client.get(path).status_code == 403, path
    assert client.post("/klanten/import", data={}).status_code in (400, 403)


def test_another_carriers_upload_is_404_and_csrf_is_required(app, browser, carrier):
    token = token_of(upload(browser, "naam\nGeheim\n"))
    assert upload(browser, "naam\nBoer\n", csrf=False).status_code == 400
    assert browser.post(f"/klanten/import/{token}").status_code == 400
    stranger = app.test_client()
    login(stranger, create_user(app, create_carrier(app, "Ander"), "planner"))
    page = stranger.get("/klanten/import").get_data(as_text=True)
    assert stranger.get(f"/klanten/import/{token}").status_code == 404
    assert stranger.get(f"/klanten/import/{token}/fouten.csv").status_code == 404
    response = stranger.post(f"/klanten/import/{token}", data={"csrf_token": csrf_from(page)})
    assert response.status_code == 404
    assert browser.get(f"/klanten/import/{'A' * 32}").status_code == 404
    assert customers_of(app, carrier) == {}


def test_importing_twice_from_one_upload_is_refused(app, browser, carrier):
    token = token_of(upload(browser, "naam\nBoer\n"))
    run_import(browser, token)
    again = run_import(browser, token)
    assert "Dit bestand is al geïmporteerd." in text_of(browser.get(again.headers["Location"]))
    assert list(customers_of(app, carrier)) == ["Boer"]


def test_the_english_ui_speaks_english(browser):
    with browser.session_transaction() as session:
        session["taal"] = "en"
    form = text_of(browser.get("/klanten/import"))
    assert "Import customers" in form
    page = preview(browser, "naam;btw_nummer;locatie_naam;locatie_lat\nBoer;NL1;Erf;52\n")
    assert "A Dutch VAT number is NL, 9 digits, B and 2 digits" in page
    assert "Fill in both latitude and longitude, or leave both empty." in page
    assert "1 row" in page and "1 with errors" in page


# --- the service ---------------------------------------------------------------------------


def test_the_service_refuses_what_adding_one_by_one_refuses(app, carrier, make_customer):
    from portal.audit.service import SYSTEM
    from portal.customers import service
    from portal.errors import NotFound, ValidationFailed

    existing = make_customer(carrier, "Ter Horst", debiteurnummer="10023")
    foreign = make_customer(create_carrier(app, "Ander"), "Vreemd")

    def attempt(items):
        def run():
            try:
                service.import_customers(carrier_id=carrier.id, items=items, actor=SYSTEM)
            except (ValidationFailed, NotFound) as refused:
                return [e["code"] for e in getattr(refused, "errors", [{"code": "not_found"}])]
            return "imported"

        return in_carrier(app, carrier.id, run)

    item = service.ImportItem
    assert attempt([item(None, {"naam": "A", "btw_nummer": "NL1"})]) == ["vat_dutch"]
    assert attempt([item(None, {"naam": "A", "debiteurnummer": "10023"})]) == ["duplicate"]
    assert attempt([item(None, {"naam": "A"}, ({"naam": "Erf", "locatie_lat": 52.0},))]) == [
        "coordinates_pair"
    ]
    assert attempt([item(None, {"naam": "A"}, ({"soort": "beide"},))]) == ["required"]
    assert attempt([item(foreign.id, {}, ({"naam": "Erf"},))]) == ["not_found"]
    assert list(customers_of(app, carrier)) == ["Ter Horst"]
    assert attempt([item(existing.id, {}, ({"naam": "Erf", "postcode": "7468ab"},))]) == (
        "imported"
    )
    assert customers_of(app, carrier)["Ter Horst"]["places"]["Erf"]["postcode"] == "7468 AB"
