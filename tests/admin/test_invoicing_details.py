"""The carrier's invoicing details on the admin settings page (/beheer/instellingen): VAT and
KvK number, IBAN, invoice e-mail and payment term, checked, stored compact and audited, and
what an e-invoice still needs of them."""

from __future__ import annotations

import json

import pytest
from factories import create_user, csrf_from, in_carrier, login
from sqlalchemy import select

from portal.accounts import invoicing
from portal.accounts.service import get_carrier
from portal.audit.models import AuditEntry
from portal.extensions import db

PAGE = "/beheer/instellingen"
DETAILS = ("btw_nummer", "kvk_nummer", "iban", "factuur_email", "betaaltermijn_dagen")


@pytest.fixture
def admin(app, carrier):
    return create_user(app, carrier, "admin", email="els@example.nl")


@pytest.fixture
def as_admin(client, admin):
    login(client, admin)
    return client


def stored(app, carrier) -> dict:
    return in_carrier(
        app,
        carrier.id,
        lambda: get_carrier(carrier_id=carrier.id),
        lambda c: {name: getattr(c, name) for name in ("naam", *DETAILS)},
    )


def audit_changes(app, carrier) -> list[dict]:
    return in_carrier(
        app,
        carrier.id,
        lambda: list(
            db.session.scalars(
                select(AuditEntry.changes).where(
                    AuditEntry.transporteur_id == carrier.id,
                    AuditEntry.action == "settings_updated",
                )
            )
        ),
        lambda rows: [json.loads(row) for row in rows],
    )


def settings_form(client, **changes):
    data = {
        "csrf_token": csrf_from(client.get(PAGE).get_data(as_text=True)),
        "naam": "Van der Berg Agrotransport",
        "tijdzone": "Europe/Amsterdam",
        "thuisbasis_straat": "Hengelosestraat 12",
        "thuisbasis_postcode": "7511 JE",
        "thuisbasis_plaats": "Enschede",
        "thuisbasis_land": "NL",
        "thuisbasis_lat": "",
        "thuisbasis_lng": "",
        "btw_nummer": "",
        "kvk_nummer": "",
        "iban": "",
        "factuur_email": "",
        "betaaltermijn_dagen": "30",
    }
    return client.post(PAGE, data={**data, **changes})


VALID = {
    "btw_nummer": " nl 1234.56.789.b01 ",
    "kvk_nummer": "1234 5678",
    "iban": "nl91 abna 0417 1643 00",
    "factuur_email": "facturen@vdberg.example.nl",
    "betaaltermijn_dagen": "14",
}


def needs(html: str) -> str:
    start = html.index('id="e-invoice-needs"')
    return html[start : html.index("</div>", start)]


# --- saving ---------------------------------------------------------------------------


def test_valid_invoicing_details_are_stored_compact_and_audited(app, as_admin, carrier):
    response = settings_form(as_admin, **VALID)
    assert response.status_code == 303
    assert stored(app, carrier) == {
        "naam": "Van der Berg Agrotransport",
        "btw_nummer": "NL123456789B01",
        "kvk_nummer": "12345678",
        "iban": "NL91ABNA0417164300",
        "factuur_email": "facturen@vdberg.example.nl",
        "betaaltermijn_dagen": 14,
    }
    (changes,) = audit_changes(app, carrier)
    assert changes["btw_nummer"] == [None, "NL123456789B01"]
    assert changes["iban"] == [None, "NL91ABNA0417164300"]
    assert changes["betaaltermijn_dagen"] == [30, 14]
    html = as_admin.get(PAGE).get_data(as_text=True)
    assert 'value="NL123456789B01"' in html and 'value="12345678"' in html
    assert 'value="NL91 ABNA 0417 1643 00"' in html  # compact in the database, grouped here
    assert "Btw-nummer: — → NL123456789B01" in html  # in the history


def test_saving_the_same_details_again_is_no_new_change(app, as_admin, carrier):
    settings_form(as_admin, **VALID)
    assert settings_form(as_admin, **{**VALID, "iban": "NL91ABNA0417164300"}).status_code == 303
    assert len(audit_changes(app, carrier)) == 1


def test_emptied_details_are_removed_and_an_empty_term_is_30_days(app, as_admin, carrier):
    settings_form(as_admin, **VALID)
    empty = {name: "" for name in DETAILS}
    assert settings_form(as_admin, **empty).status_code == 303
    assert stored(app, carrier) == {
        "naam": "Van der Berg Agrotransport",
        "btw_nummer": None,
        "kvk_nummer": None,
        "iban": None,
        "factuur_email": None,
        "betaaltermijn_dagen": 30,
    }


def test_a_foreign_vat_number_and_iban_are_accepted(app, as_admin, carrier):
    response = settings_form(
        as_admin, btw_nummer="be 0123.456.789", iban="BE68 5390 0754 7034", kvk_nummer=""
    )
    assert response.status_code == 303
    details = stored(app, carrier)
    assert (details["btw_nummer"], details["iban"]) == ("BE0123456789", "BE68539007547034")


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"btw_nummer": "NL12345678B01"}, "btw_nummer", "Een Nederlands btw-nummer is NL"),
        ({"btw_nummer": "123456789"}, "btw_nummer", "begin met de landcode"),
        ({"kvk_nummer": "1234567"}, "kvk_nummer", "Een KvK-nummer is 8 cijfers"),
        ({"kvk_nummer": "1234567a"}, "kvk_nummer", "Een KvK-nummer is 8 cijfers"),
        ({"iban": "NL91 ABNA 0417 1643 01"}, "iban", "de controlecijfers passen niet"),
        (
            {"iban": "NL91 ABNA 0417 1643 0"},
            "iban",
            "Een IBAN uit Nederland heeft 18 tekens; dit heeft er 17.",
        ),
        ({"iban": "XY91 ABNA 0417 1643 00"}, "iban", "geen landcode van een land met IBAN"),
        ({"iban": "0417164300"}, "iban", "Een IBAN begint met een landcode"),
        ({"factuur_email": "facturen@vdberg"}, "factuur_email", "Vul een geldig e-mailadres in"),
        ({"factuur_email": "facturen vdberg.nl"}, "factuur_email", "geldig e-mailadres"),
        ({"betaaltermijn_dagen": "0"}, "betaaltermijn_dagen", "1 tot en met 365 dagen"),
        ({"betaaltermijn_dagen": "366"}, "betaaltermijn_dagen", "1 tot en met 365 dagen"),
        ({"betaaltermijn_dagen": "dertig"}, "betaaltermijn_dagen", "Vul een aantal dagen in"),
    ],
)
def test_bad_details_are_shown_at_their_field_keep_the_input_and_store_nothing(
    app, as_admin, carrier, changes, field, message
):
    before = stored(app, carrier)
    response = settings_form(as_admin, **{**VALID, **changes, "naam": "Nieuwe naam"})
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert f'id="{field}-error"' in html and message in html
    assert html.count('class="field-error"') == 1  # only at that field
    assert f'value="{changes[field]}"' in html  # nothing typed is lost
    assert 'value="Nieuwe naam"' in html
    assert stored(app, carrier) == before  # not even the valid fields
    assert audit_changes(app, carrier) == []


# --- who may change them --------------------------------------------------------------


@pytest.mark.parametrize("rol", ["planner", "author"])
def test_only_admins_may_change_the_invoicing_details(app, client, carrier, rol):
    login(client, create_user(app, carrier, rol))
    token = csrf_from(client.get("/", follow_redirects=True).get_data(as_text=True))
    response = client.post(
        PAGE,
        data={
            "csrf_token": token,
            "naam": "Overgenomen",
            "tijdzone": "Europe/Amsterdam",
            "iban": VALID["iban"],
            "kvk_nummer": VALID["kvk_nummer"],
        },
    )
    assert response.status_code == 403
    assert stored(app, carrier)["iban"] is None and stored(app, carrier)["kvk_nummer"] is None


# --- what an e-invoice still needs ----------------------------------------------------


def test_the_still_needed_line_shrinks_as_the_details_are_filled(as_admin):
    html = as_admin.get(PAGE).get_data(as_text=True)
    assert "Facturatiegegevens" in html and "e-facturen (UBL)" in html
    assert needs(html).endswith(
        "Nog nodig voor e-facturen: btw-nummer, KvK-nummer, IBAN, straat, postcode en plaats "
        "van de thuisbasis</p>"
    )
    settings_form(as_admin, btw_nummer=VALID["btw_nummer"])
    line = needs(as_admin.get(PAGE).get_data(as_text=True))
    assert line.endswith("Nog nodig voor e-facturen: KvK-nummer, IBAN</p>")
    settings_form(as_admin, btw_nummer=VALID["btw_nummer"], kvk_nummer=VALID["kvk_nummer"])
    line = needs(as_admin.get(PAGE).get_data(as_text=True))
    assert line.endswith("Nog nodig voor e-facturen: IBAN</p>")
    settings_form(as_admin, **VALID)
    line = needs(as_admin.get(PAGE).get_data(as_text=True))
    assert "Compleet voor e-facturen." in line and "Nog nodig" not in line


def test_a_seller_outside_the_netherlands_needs_no_kvk_number(as_admin):
    settings_form(
        as_admin,
        thuisbasis_land="DE",
        thuisbasis_postcode="48529",
        btw_nummer="DE123456789",
        iban="DE89 3704 0044 0532 0130 00",
    )
    assert "Compleet voor e-facturen." in needs(as_admin.get(PAGE).get_data(as_text=True))


# --- in English -----------------------------------------------------------------------


def test_the_invoicing_details_are_english_on_request(as_admin):
    token = csrf_from(as_admin.get(PAGE).get_data(as_text=True))
    as_admin.post("/taal", data={"taal": "en", "next": "/", "csrf_token": token})
    html = as_admin.get(PAGE).get_data(as_text=True)
    assert "Invoicing details" in html and "Payment term in days" in html
    assert "e-invoices (UBL)" in html
    assert "Still needed for e-invoices: VAT number, Chamber of Commerce (KvK) number, IBAN" in html
    html = settings_form(as_admin, iban="NL91 ABNA 0417 1643 0", kvk_nummer="123").get_data(
        as_text=True
    )
    assert "An IBAN of this country (Netherlands) has 18 characters; this one has 17." in html
    assert "A Chamber of Commerce (KvK) number is 8 digits" in html
    assert "Nog nodig" not in html and "Facturatiegegevens" not in html


# --- the IBAN check -------------------------------------------------------------------


@pytest.mark.parametrize(
    "iban",
    [
        "NL91ABNA0417164300",
        "BE68539007547034",
        "DE89370400440532013000",
        "GB29NWBK60161331926819",
        "FR1420041010050500013M02606",
        "LU280019400644750000",
    ],
)
def test_real_ibans_pass_the_check(iban):
    assert invoicing.iban_problem(iban) is None


@pytest.mark.parametrize(
    ("iban", "problem"),
    [
        ("NL19ABNA0417164300", "check digits do not match"),  # two digits swapped
        ("NL91ABNA0471164300", "check digits do not match"),
        ("DE8937040044053201300", "wrong length for its country"),
        ("QQ91ABNA0417164300", "unknown IBAN country"),
        ("NLXXABNA0417164300", "not an IBAN"),
        ("NL91ABNA04171643é0", "not an IBAN"),
    ],
)
def test_wrong_ibans_say_why(iban, problem):
    assert invoicing.iban_problem(iban) == problem
