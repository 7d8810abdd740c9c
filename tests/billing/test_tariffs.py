"""Tariffs as a planner keeps them: the carrier's default and a customer's own per activity,
each from a day on; amounts typed the Dutch way, exact, refused at the field when wrong."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal as D

import pytest
from factories import create_user, csrf_from, in_carrier, login

from portal.audit.service import SYSTEM
from portal.billing import tariffs


@pytest.fixture
def farmer(app, carrier):
    from portal.customers import service as customers

    return in_carrier(
        app,
        carrier.id,
        lambda: customers.create_customer(
            carrier_id=carrier.id, data={"naam": "Maatschap Kamphuis"}, actor=SYSTEM
        ),
        lambda c: c.id,
    )


@pytest.fixture
def as_planner(app, client, carrier):
    login(client, create_user(app, carrier, "planner"))
    return client


def add(app, carrier, **fields):
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
    return in_carrier(
        app,
        carrier.id,
        lambda: tariffs.create_tariff(carrier_id=carrier.id, data=data, actor=SYSTEM),
        lambda t: t.id,
    )


def holding(app, carrier, klant_id, day):
    return in_carrier(
        app,
        carrier.id,
        lambda: tariffs.holding(
            carrier_id=carrier.id, activity_type="mest_laden", klant_id=klant_id, dag=day
        ),
    )


def test_the_customers_tariff_valid_on_the_day_holds_and_amounts_stay_exact(app, carrier, farmer):
    add(app, carrier, prijs=D("5.125"))
    add(app, carrier, klant_id=farmer, prijs=D("4.35"), minimum=D("75.50"))
    add(app, carrier, klant_id=farmer, prijs=D("4.6"), geldig_vanaf=date(2026, 12, 1))
    assert holding(app, carrier, farmer, date(2026, 11, 30)).prijs == D("4.35")
    assert holding(app, carrier, farmer, date(2026, 11, 30)).minimum == D("75.50")
    assert holding(app, carrier, farmer, date(2026, 12, 1)).prijs == D("4.6")
    assert holding(app, carrier, None, date(2026, 12, 1)).prijs == D("5.125")
    assert holding(app, carrier, None, date(2025, 12, 31)) is None


def test_one_tariff_per_owner_activity_and_day(app, carrier, farmer):
    from portal.errors import Conflict

    add(app, carrier)
    add(app, carrier, klant_id=farmer)  # the customer's own may start the same day
    with pytest.raises(Conflict):
        add(app, carrier, prijs=D("9"))


@pytest.mark.parametrize(
    "fields, field, code",
    [
        ({"prijs": D("-1")}, "prijs", "out_of_range"),
        ({"prijs": D("4.12345")}, "prijs", "too_many_decimals"),
        ({"minimum": D("10.005")}, "minimum", "too_many_decimals"),
        ({"btw_procent": D("121")}, "btw_procent", "out_of_range"),
        ({"eenheid": ""}, "eenheid", "required"),
        ({"grondslag": "per_dag"}, "grondslag", "unknown"),
    ],
)
def test_bad_amounts_are_refused_at_their_field(app, carrier, fields, field, code):
    from portal.errors import ValidationFailed

    with pytest.raises(ValidationFailed) as refused:
        add(app, carrier, **fields)
    assert (refused.value.errors[0]["field"], refused.value.errors[0]["code"]) == (field, code)


def form_token(client, path="/facturatie/tarieven/nieuw") -> str:
    return csrf_from(client.get(path).get_data(as_text=True))


def test_a_planner_adds_a_tariff_typed_the_dutch_way(app, as_planner, carrier, farmer):
    response = as_planner.post(
        "/facturatie/tarieven/nieuw",
        data={
            "csrf_token": form_token(as_planner),
            "klant_id": str(farmer),
            "activity_type": "mest_laden",
            "geldig_vanaf": "2026-11-01",
            "grondslag": "eenheid",
            "eenheid": "ton",
            "prijs": "4,35",
            "minimum": "1.250,00",
            "wachttijd_vrij_minuten": "30",
            "wachttijd_per_uur": "55",
            "weekend_toeslag_procent": "25",
            "btw_procent": "21",
        },
    )
    assert response.status_code == 303, response.get_data(as_text=True)
    page = re.sub(r"\s+", " ", as_planner.get("/facturatie/tarieven").get_data(as_text=True))
    assert "Maatschap Kamphuis" in page
    assert "€ 4,35 per ton" in page
    assert "€ 1.250,00" in page
    assert "wachten na 30 min: € 55,00 per uur" in page and "weekend +25%" in page
    rule = holding(app, carrier, farmer, date(2026, 11, 2))
    assert (rule.prijs, rule.minimum) == (D("4.35"), D("1250.00"))


def test_a_refused_tariff_keeps_what_was_typed_and_names_the_field(as_planner):
    response = as_planner.post(
        "/facturatie/tarieven/nieuw",
        data={
            "csrf_token": form_token(as_planner),
            "activity_type": "mest_laden",
            "geldig_vanaf": "2026-11-01",
            "grondslag": "eenheid",
            "eenheid": "ton",
            "prijs": "vier",
        },
    )
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "Vul een bedrag in, bijvoorbeeld 4,35." in page
    assert 'value="vier"' in page
    assert 'id="prijs-error"' in page


def test_the_same_day_twice_is_told_at_the_day(app, as_planner, carrier):
    add(app, carrier, geldig_vanaf=date(2026, 11, 1))
    response = as_planner.post(
        "/facturatie/tarieven/nieuw",
        data={
            "csrf_token": form_token(as_planner),
            "activity_type": "mest_laden",
            "geldig_vanaf": "2026-11-01",
            "grondslag": "vracht",
            "prijs": "85",
        },
    )
    assert response.status_code == 422
    assert "Er is al een tarief voor deze klant en activiteit vanaf die dag." in response.get_data(
        as_text=True
    )


def test_edit_and_delete_after_confirmation(app, as_planner, carrier):
    tariff_id = add(app, carrier)
    path = f"/facturatie/tarieven/{tariff_id}"
    assert 'value="4,35"' in as_planner.get(path).get_data(as_text=True)
    changed = as_planner.post(
        path,
        data={
            "csrf_token": form_token(as_planner, path),
            "activity_type": "mest_laden",
            "geldig_vanaf": "2026-01-01",
            "grondslag": "eenheid",
            "eenheid": "ton",
            "prijs": "4,50",
            "btw_procent": "21",
        },
    )
    assert changed.status_code == 303
    assert holding(app, carrier, None, date(2026, 2, 1)).prijs == D("4.50")
    assert "verwijderen?" in as_planner.get(f"{path}/verwijderen").get_data(as_text=True)
    gone = as_planner.post(f"{path}/verwijderen", data={"csrf_token": form_token(as_planner, path)})
    assert gone.status_code == 303
    assert holding(app, carrier, None, date(2026, 2, 1)) is None


def test_an_empty_list_says_where_to_begin(as_planner):
    assert "Nog geen tarieven." in as_planner.get("/facturatie/tarieven").get_data(as_text=True)


def test_another_carriers_tariff_is_404(app, as_planner, other_carrier):
    foreign = add(app, other_carrier)
    assert as_planner.get(f"/facturatie/tarieven/{foreign}").status_code == 404


def test_a_unit_longer_than_its_column_is_an_error_at_the_field(as_planner):
    response = as_planner.post(
        "/facturatie/tarieven/nieuw",
        data={
            "csrf_token": form_token(as_planner),
            "klant_id": "",
            "activity_type": "mest_laden",
            "geldig_vanaf": "2026-11-01",
            "grondslag": "eenheid",
            "eenheid": "kubieke meter drijfmest",
            "prijs": "4,35",
            "btw_procent": "21",
        },
    )
    assert response.status_code == 422
    assert re.search(
        r'id="eenheid-error"[^>]*>Hoogstens 20 tekens\.<', response.get_data(as_text=True)
    )


def test_a_tariff_of_a_type_the_list_does_not_name_can_be_edited(app, as_planner, carrier):
    tariff_id = add(app, carrier, activity_type="kalveren_halen", grondslag="vracht", eenheid=None)
    page = as_planner.get(f"/facturatie/tarieven/{tariff_id}").get_data(as_text=True)
    assert re.search(
        r'<option[^>]*selected[^>]*value="kalveren_halen"|<option[^>]*value="kalveren_halen"[^>]*selected',
        page,
    )
    response = as_planner.post(
        f"/facturatie/tarieven/{tariff_id}",
        data={
            "csrf_token": form_token(as_planner, f"/facturatie/tarieven/{tariff_id}"),
            "klant_id": "",
            "activity_type": "kalveren_halen",
            "geldig_vanaf": "2026-01-01",
            "grondslag": "vracht",
            "eenheid": "",
            "prijs": "95",
            "btw_procent": "21",
        },
    )
    assert response.status_code == 303, response.get_data(as_text=True)


# --- per hour: rounding and minimum; VAT category ----------------------------------------


def stored(app, carrier, tariff_id):
    return in_carrier(
        app,
        carrier.id,
        lambda: tariffs.get_tariff(carrier_id=carrier.id, tariff_id=tariff_id),
        lambda t: {
            name: getattr(t, name)
            for name in (
                "afronding_minuten",
                "minimum_minuten",
                "btw_categorie",
                "btw_vrijstellingsreden",
                "btw_procent",
            )
        },
    )


@pytest.mark.parametrize(
    "fields, errors",
    [
        ({"afronding_minuten": 7}, {("afronding_minuten", "not_allowed")}),
        ({"afronding_minuten": 0}, {("afronding_minuten", "not_allowed")}),
        ({"minimum_minuten": -5}, {("minimum_minuten", "out_of_range")}),
        ({"minimum_minuten": 1441}, {("minimum_minuten", "out_of_range")}),
        ({"btw_categorie": "X"}, {("btw_categorie", "unknown")}),
        ({"btw_categorie": "S", "btw_procent": D("0")}, {("btw_procent", "vat_rate_category")}),
        (
            {"btw_categorie": "Z", "btw_procent": D("9")},
            {("btw_procent", "vat_rate_category"), ("btw_vrijstellingsreden", "required")},
        ),
        (
            {"btw_categorie": "AE", "btw_procent": D("21")},
            {("btw_procent", "vat_rate_category"), ("btw_vrijstellingsreden", "required")},
        ),
        (
            {"btw_categorie": "E", "btw_procent": D("0"), "btw_vrijstellingsreden": " "},
            {("btw_vrijstellingsreden", "required")},
        ),
    ],
)
def test_hours_and_vat_rules_are_refused_at_their_field(app, carrier, fields, errors):
    from portal.errors import ValidationFailed

    with pytest.raises(ValidationFailed) as refused:
        add(app, carrier, grondslag="uur", eenheid=None, **fields)
    assert {(e["field"], e["code"]) for e in refused.value.errors} == errors


def test_the_rounding_is_an_hourly_tariffs_and_a_text_goes_with_z_e_ae_o_only(app, carrier):
    hourly = add(
        app, carrier, grondslag="uur", eenheid=None, afronding_minuten=15, minimum_minuten=60
    )
    assert stored(app, carrier, hourly)["afronding_minuten"] == 15
    assert stored(app, carrier, hourly)["minimum_minuten"] == 60
    per_ton = add(
        app,
        carrier,
        activity_type="voer_leveren",
        afronding_minuten=15,
        minimum_minuten=60,
        btw_categorie="Z",
        btw_procent=D("0"),
        btw_vrijstellingsreden=" Uitvoer, MRN op de CMR ",
    )
    assert stored(app, carrier, per_ton) == {
        "afronding_minuten": 1,
        "minimum_minuten": 0,
        "btw_categorie": "Z",
        # Z's evidence: the invoice prints it as the line's note (BR-Z-10: no reason there)
        "btw_vrijstellingsreden": "Uitvoer, MRN op de CMR",
        "btw_procent": D("0.00"),
    }
    standard = add(
        app, carrier, activity_type="koel_transport", btw_vrijstellingsreden="not with S"
    )
    assert stored(app, carrier, standard)["btw_vrijstellingsreden"] is None  # BR-S-10
    reverse = add(
        app,
        carrier,
        activity_type="vee_transport",
        btw_categorie="AE",
        btw_procent=D("0"),
        btw_vrijstellingsreden=" Btw verlegd ",
    )
    assert stored(app, carrier, reverse)["btw_vrijstellingsreden"] == "Btw verlegd"


def hourly_form(**fields) -> dict:
    return {
        "klant_id": "",
        "activity_type": "koel_transport",
        "geldig_vanaf": "2026-11-01",
        "grondslag": "uur",
        "prijs": "92,50",
        "afronding_minuten": "15",
        "minimum_minuten": "60",
        "btw_categorie": "S",
        "btw_procent": "21",
        **fields,
    }


def test_a_planner_sets_an_hourly_tariffs_rounding_and_sees_it_listed(app, as_planner, carrier):
    response = as_planner.post(
        "/facturatie/tarieven/nieuw", data={"csrf_token": form_token(as_planner), **hourly_form()}
    )
    assert response.status_code == 303, response.get_data(as_text=True)
    page = re.sub(r"\s+", " ", as_planner.get("/facturatie/tarieven").get_data(as_text=True))
    assert "€ 92,50 per uur" in page
    assert "per kwartier naar boven, minimaal 60 min" in page
    rule = in_carrier(
        app,
        carrier.id,
        lambda: tariffs.holding(
            carrier_id=carrier.id,
            activity_type="koel_transport",
            klant_id=None,
            dag=date(2026, 11, 2),
        ),
    )
    assert (rule.afronding_minuten, rule.minimum_minuten) == (15, 60)
    edit = as_planner.get(f"/facturatie/tarieven/{rule.id}").get_data(as_text=True)
    assert re.search(
        r'<option[^>]*selected[^>]*value="15"|<option[^>]*value="15"[^>]*selected', edit
    )
    assert 'name="minimum_minuten"' in edit and 'value="60"' in edit


@pytest.mark.parametrize(
    "fields, field, text",
    [
        (
            {"afronding_minuten": "7"},
            "afronding_minuten",
            "Kies hoe de tijd wordt afgerond uit de lijst.",
        ),
        ({"minimum_minuten": "een uur"}, "minimum_minuten", "Ongeldig getal."),
        ({"minimum_minuten": "2000"}, "minimum_minuten", "Tussen 0 en 1440 minuten."),
        ({"btw_categorie": "AE"}, "btw_procent", "Bij Btw verlegd (AE) is de btw 0%."),
        (
            {"btw_categorie": "AE", "btw_procent": "0"},
            "btw_vrijstellingsreden",
            "Vul de reden in: die staat bij Btw verlegd (AE) op de factuur.",
        ),
        (
            {"btw_categorie": "S", "btw_procent": "0"},
            "btw_procent",
            "Bij het standaardtarief is de btw meer dan 0%.",
        ),
        ({"btw_categorie": "Q"}, "btw_categorie", "Kies een btw-categorie uit de lijst."),
        ({"activity_type": "bestaat_niet"}, "activity_type", "Kies een activiteit uit de lijst."),
    ],
)
def test_a_wrong_rounding_or_vat_is_told_at_its_field(as_planner, fields, field, text):
    response = as_planner.post(
        "/facturatie/tarieven/nieuw",
        data={"csrf_token": form_token(as_planner), **hourly_form(**fields)},
    )
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert re.search(rf'id="{field}-error"[^>]*>{re.escape(text)}<', page), page[-4000:]


def test_a_reverse_charged_tariff_is_saved_with_its_reason_and_listed(app, as_planner, carrier):
    response = as_planner.post(
        "/facturatie/tarieven/nieuw",
        data={
            "csrf_token": form_token(as_planner),
            **hourly_form(
                btw_categorie="AE", btw_procent="0", btw_vrijstellingsreden="Btw verlegd"
            ),
        },
    )
    assert response.status_code == 303, response.get_data(as_text=True)
    page = re.sub(r"\s+", " ", as_planner.get("/facturatie/tarieven").get_data(as_text=True))
    assert "0% <br><small" in page.replace("0%<br>", "0% <br>") and "Btw verlegd (AE)" in page


def test_every_problem_of_the_form_is_told_at_once(as_planner):
    response = as_planner.post(
        "/facturatie/tarieven/nieuw",
        data={
            "csrf_token": form_token(as_planner),
            **hourly_form(geldig_vanaf="", btw_categorie="AE", btw_vrijstellingsreden=""),
        },
    )
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    for field in ("geldig_vanaf", "btw_procent", "btw_vrijstellingsreden"):
        assert f'id="{field}-error"' in page, field
