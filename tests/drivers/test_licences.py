"""A driver's driving licence categories: ticked in the driver form with their expiry dates,
shown on the driver's page, carried by the API, refused at the field when a licence cannot
hold them; and what the planner reads (licences_of: a CE licence also covers C, C1, BE)."""

from __future__ import annotations

import re
from datetime import date

import pytest
from factories import bearer, create_driver, csrf_from, in_carrier, login

from portal.audit.service import SYSTEM
from portal.drivers import licences, service
from portal.errors import ValidationFailed

API = "/api/v1"


@pytest.fixture
def signed_in(client, planner):
    login(client, planner)
    return client


def text(response) -> str:
    return re.sub(r"\s+", " ", response.get_data(as_text=True))


def edit(client, driver, categories=(), headers=None, **fields):
    path = f"/chauffeurs/{driver.id}/bewerken"
    data = {
        "csrf_token": csrf_from(client.get(path, headers=headers).get_data(as_text=True)),
        "naam": driver.naam,
        "email": driver.email or "",
        "telefoon": "",
        "taal": "nl",
        "rijbewijs_categorieen": list(categories),
        **fields,
    }
    return client.post(path, data=data, headers=headers)


def held(app, driver, on=None):
    return in_carrier(
        app,
        driver.carrier_id,
        lambda: service.licences_of(carrier_id=driver.carrier_id, driver_ids={driver.id}, on=on),
        lambda found: found[driver.id],
    )


# --- the rules ---------------------------------------------------------------------------


def test_a_ce_licence_covers_c_c1_and_be_but_not_t():
    ce = licences.covered(["B", "C", "CE"])
    assert {"CE", "C", "C1", "C1E", "BE", "B"} <= ce
    assert not licences.may_drive(ce, "T")
    assert licences.may_drive(licences.covered(["C"]), "C")
    assert not licences.may_drive(licences.covered(["C"]), "CE")
    assert licences.may_drive(licences.covered(["T"]), "T")
    assert not licences.may_drive(licences.covered(["T", "B"]), "C")
    assert not licences.may_drive(licences.covered(["CE", "C", "B", "T"]), "unknown")
    assert licences.covered([]) == frozenset()


def test_a_category_without_the_one_it_is_issued_on_is_refused():
    with pytest.raises(ValidationFailed) as caught:
        licences.check_licences({"CE": None, "B": None})
    assert [(e["code"], e["params"]) for e in caught.value.errors] == [
        ("rijbewijs_vereist", {"categorie": "CE", "vereist": "C"})
    ]
    with pytest.raises(ValidationFailed) as caught:
        licences.check_licences({"X": None})
    assert caught.value.errors[0]["code"] == "rijbewijs_categorie_onbekend"


# --- the service ---------------------------------------------------------------------------


def test_licences_of_says_what_each_driver_may_drive_on_a_day(app, carrier):
    jan = create_driver(app, carrier, naam="Jan")
    piet = create_driver(app, carrier, naam="Piet")

    def setup():
        service.set_licences(
            carrier_id=carrier.id,
            driver_id=jan.id,
            categorieen={"B": None, "C": date(2030, 1, 1), "CE": date(2027, 3, 1), "T": None},
            actor=SYSTEM,
        )

    in_carrier(app, carrier.id, setup)
    assert held(app, jan) >= {"B", "C", "CE", "T", "C1", "BE"}
    assert "CE" in held(app, jan, on=date(2027, 3, 1))  # valid through its expiry day
    on_later = held(app, jan, on=date(2027, 3, 2))
    assert "CE" not in on_later and {"C", "C1", "T"} <= on_later
    assert held(app, piet) == frozenset()  # none recorded: nothing is taken as held


def test_another_carriers_driver_is_not_answered(app, carrier, other_carrier):
    stranger = create_driver(app, other_carrier, naam="Elders")
    found = in_carrier(
        app,
        carrier.id,
        lambda: service.licences_of(carrier_id=carrier.id, driver_ids={stranger.id}),
    )
    assert found == {stranger.id: frozenset()}
    with pytest.raises(Exception) as caught:
        in_carrier(
            app,
            carrier.id,
            lambda: service.set_licences(
                carrier_id=carrier.id, driver_id=stranger.id, categorieen={"B": None}, actor=SYSTEM
            ),
        )
    assert type(caught.value).__name__ == "NotFound"


# --- the portal ----------------------------------------------------------------------------


def test_a_planner_ticks_a_drivers_categories_with_an_expiry(app, signed_in, driver):
    response = edit(signed_in, driver, ["B", "C", "CE"], geldig_tot_CE="2031-04-01")
    assert response.status_code == 303, text(response)
    assert {"B", "C", "CE"} <= held(app, driver)
    page = text(signed_in.get(f"/chauffeurs/{driver.id}"))
    assert re.search(r"Rijbewijscategorieën</dt> <dd[^>]*>.*CE <small>tot 1 apr\.? 2031", page)
    assert "Rijbewijscategorieën: B, C, CE (tot 2031-04-01)" in re.sub(r"<[^>]+>", "", page)
    form = text(signed_in.get(f"/chauffeurs/{driver.id}/bewerken"))
    assert re.search(r'value="CE" checked', form)
    assert re.search(r'name="geldig_tot_CE" value="2031-04-01"', form)
    assert not re.search(r'value="T" checked', form)

    assert edit(signed_in, driver, ["B", "T"]).status_code == 303
    assert held(app, driver) == licences.covered(["B", "T"])


def test_a_driver_without_categories_shows_them_as_not_recorded(signed_in, driver):
    assert "Niet vastgelegd" in text(signed_in.get(f"/chauffeurs/{driver.id}"))


def test_ce_without_c_is_refused_at_the_field_in_dutch(app, signed_in, driver):
    response = edit(signed_in, driver, ["B", "CE"])
    assert response.status_code == 422
    page = text(response)
    assert re.search(
        r'id="rijbewijs_categorieen-error"[^>]*>CE staat alleen op een rijbewijs met C; '
        r"vink C ook aan\.",
        page,
    )
    assert held(app, driver) == frozenset()


def test_an_expiry_without_its_category_is_refused_at_the_date(app, signed_in, driver):
    response = edit(signed_in, driver, ["B"], geldig_tot_C="2030-01-01")
    assert response.status_code == 422
    assert re.search(
        r'id="geldig_tot_C-error"[^>]*>Vink C aan, of maak de datum leeg\.', text(response)
    )


def test_the_errors_read_in_english(app, signed_in, driver):
    english = {"Accept-Language": "en"}
    response = edit(signed_in, driver, ["B", "CE"], headers=english, geldig_tot_T="2030-01-01")
    assert response.status_code == 422
    page = text(response)
    assert "CE is only on a licence with C; tick C as well." in page
    assert "Tick T, or clear the date." in page
    assert "Driving licence categories" in page


def test_a_new_driver_comes_with_categories(app, signed_in, carrier):
    page = signed_in.get("/chauffeurs/nieuw").get_data(as_text=True)
    response = signed_in.post(
        "/chauffeurs/nieuw",
        data={
            "csrf_token": csrf_from(page),
            "naam": "Sanne Kuipers",
            "taal": "nl",
            "rijbewijs_categorieen": ["B", "T"],
        },
    )
    assert response.status_code == 303


# --- the API -------------------------------------------------------------------------------


def test_the_api_lists_each_drivers_categories(app, signed_in, driver, api_key, client):
    edit(signed_in, driver, ["B", "C", "CE"], geldig_tot_C="2030-05-06")
    listed = client.get(
        f"{API}/transporteurs/{driver.carrier_id}/chauffeurs", headers=bearer(api_key.key)
    ).get_json()
    assert [d["rijbewijs_categorieen"] for d in listed] == [
        [
            {"categorie": "B", "geldig_tot": None},
            {"categorie": "C", "geldig_tot": "2030-05-06"},
            {"categorie": "CE", "geldig_tot": None},
        ]
    ]
    profile = client.get(f"{API}/users/{driver.user_token}", headers=bearer(api_key.key))
    assert [c["categorie"] for c in profile.get_json()["rijbewijs_categorieen"]] == [
        "B",
        "C",
        "CE",
    ]
