"""A driver's contract hours and payroll number: typed in the driver form the Dutch way,
shown on the driver's page and in its history, carried by the API, refused when they cannot
be (0 to 60 hours a week in whole minutes, a payroll number of at most 30 characters)."""

from __future__ import annotations

import re
from decimal import Decimal as D

import pytest
from factories import bearer, create_driver, csrf_from, in_carrier, login

from portal.audit.service import SYSTEM
from portal.drivers import service
from portal.errors import ValidationFailed

API = "/api/v1"


@pytest.fixture
def signed_in(client, planner):
    login(client, planner)
    return client


def text(response) -> str:
    return re.sub(r"\s+", " ", response.get_data(as_text=True))


def saved(app, driver) -> tuple:
    row = in_carrier(
        app,
        driver.carrier_id,
        lambda: service.get_driver(carrier_id=driver.carrier_id, driver_id=driver.id),
        lambda d: (d.contracturen, d.personeelsnummer),
    )
    return row


def edit(client, driver, **fields):
    path = f"/chauffeurs/{driver.id}/bewerken"
    data = {
        "csrf_token": csrf_from(client.get(path).get_data(as_text=True)),
        "naam": driver.naam,
        "email": driver.email or "",
        "telefoon": "",
        "taal": "nl",
        **fields,
    }
    return client.post(path, data=data)


def test_a_planner_gives_a_driver_contract_hours_and_a_payroll_number(
    app, signed_in, driver, api_key, client
):
    response = edit(signed_in, driver, contracturen="32,5", personeelsnummer=" P-0042 ")
    assert response.status_code == 303, text(response)
    assert saved(app, driver) == (D("32.50"), "P-0042")
    page = text(signed_in.get(f"/chauffeurs/{driver.id}"))
    assert "Contracturen per week</dt> <dd>32,5 uur</dd>" in page
    assert "P-0042" in page
    assert "Contracturen per week: 32,5 uur" in re.sub(r"<[^>]+>", "", page)  # history
    form = signed_in.get(f"/chauffeurs/{driver.id}/bewerken").get_data(as_text=True)
    assert re.search(r'name="contracturen"[^>]*value="32,5"', form)

    listed = client.get(
        f"{API}/transporteurs/{driver.carrier_id}/chauffeurs", headers=bearer(api_key.key)
    ).get_json()
    assert [(d["contracturen"], d["personeelsnummer"]) for d in listed] == [("32.50", "P-0042")]


def test_left_empty_the_pay_rules_hold(app, signed_in, driver, api_key, client):
    edit(signed_in, driver, contracturen="36", personeelsnummer="7")
    response = edit(signed_in, driver, contracturen="", personeelsnummer="")
    assert response.status_code == 303
    assert saved(app, driver) == (None, None)
    assert "Volgens de loonregels" in text(signed_in.get(f"/chauffeurs/{driver.id}"))
    (listed,) = client.get(
        f"{API}/transporteurs/{driver.carrier_id}/chauffeurs", headers=bearer(api_key.key)
    ).get_json()
    assert (listed["contracturen"], listed["personeelsnummer"]) == (None, None)


@pytest.mark.parametrize("typed", ["61", "-1", "32,33", "veel"])
def test_impossible_contract_hours_are_refused_at_the_field(app, signed_in, driver, typed):
    response = edit(signed_in, driver, contracturen=typed)
    assert response.status_code == 422
    page = text(response)
    assert re.search(r'id="contracturen-error"[^>]*>Vul 0 tot 60 uur per week in', page)
    assert re.search(rf'name="contracturen"[^>]*value="{re.escape(typed)}"', page)
    assert saved(app, driver) == (None, None)


def test_a_payroll_number_over_30_characters_is_refused(app, signed_in, driver):
    response = edit(signed_in, driver, personeelsnummer="X" * 31)
    assert response.status_code == 422
    assert re.search(r'id="personeelsnummer-error"[^>]*>Hoogstens 30 tekens\.', text(response))


def test_a_new_driver_comes_with_contract_hours(app, signed_in, carrier):
    page = signed_in.get("/chauffeurs/nieuw").get_data(as_text=True)
    response = signed_in.post(
        "/chauffeurs/nieuw",
        data={
            "csrf_token": csrf_from(page),
            "naam": "Sanne Kuipers",
            "taal": "nl",
            "contracturen": "24",
            "personeelsnummer": "1001",
        },
    )
    assert response.status_code == 303
    assert "Contracturen per week</dt> <dd>24 uur</dd>" in text(
        signed_in.get(response.headers["Location"])
    )


def test_the_service_checks_what_other_callers_send(app, carrier):
    def make(**fields):
        return in_carrier(
            app,
            carrier.id,
            lambda: service.create_driver(
                carrier_id=carrier.id, naam="Piet", actor=SYSTEM, **fields
            ),
            lambda d: d.contracturen,
        )

    assert make(contracturen="38.75") == D("38.75")
    for wrong in ("60.5", "10.01", "NaN", "abc"):
        with pytest.raises(ValidationFailed) as refused:
            make(contracturen=wrong)
        assert refused.value.errors[0]["code"] == "contracturen_ongeldig"


def test_an_update_without_them_keeps_them(app, carrier):
    driver = create_driver(app, carrier, "Henk")

    def update(**fields):
        return in_carrier(
            app,
            carrier.id,
            lambda: service.update_driver(
                carrier_id=carrier.id,
                driver_id=driver.id,
                naam="Henk",
                email=driver.email,
                telefoon=None,
                taal="nl",
                actor=SYSTEM,
                **fields,
            ),
            lambda d: (d.contracturen, d.personeelsnummer),
        )

    assert update(contracturen=D(32), personeelsnummer="9") == (D("32.00"), "9")
    assert update() == (D("32.00"), "9")


def test_the_driver_reads_its_own_contract_hours(app, client, driver):
    from factories import driver_token

    in_carrier(
        app,
        driver.carrier_id,
        lambda: service.update_driver(
            carrier_id=driver.carrier_id,
            driver_id=driver.id,
            naam=driver.naam,
            email=driver.email,
            telefoon=None,
            taal=None,
            contracturen=D("38"),
            actor=SYSTEM,
        ),
    )
    profile = client.get(
        f"{API}/users/{driver.user_token}", headers=bearer(driver_token(client, driver))
    ).get_json()
    assert (profile["contracturen"], profile["personeelsnummer"]) == ("38.00", None)
