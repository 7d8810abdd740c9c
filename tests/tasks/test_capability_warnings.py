"""A task planned on a combination that lacks what its activity type needs is a warning that
names what is missing, on the board's card and in the task form, never a refusal; the card
shows both plates of the combination."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from factories import Ref, create_task, csrf_from, in_carrier, login

from portal.audit.service import SYSTEM
from portal.extensions import db

DAY = date(2026, 12, 7)
BOARD = "/taken?datum=2026-12-07"
MISSING = "mist wat deze activiteit nodig heeft: Mesttank"


def vehicle(app, carrier, kenteken, soort, capability=None):
    from portal.fleet.models import Vehicle, VehicleCapability

    def make():
        row = Vehicle(transporteur_id=carrier.id, kenteken=kenteken, soort=soort)
        db.session.add(row)
        db.session.flush()
        if capability:
            db.session.add(
                VehicleCapability(
                    transporteur_id=carrier.id, vehicle_id=row.id, code=capability, parameters={}
                )
            )
            db.session.flush()
        return row

    return in_carrier(app, carrier.id, make, lambda v: Ref(v.id, carrier.id, naam=kenteken))


@pytest.fixture
def planned(app, carrier, driver):
    tractor = vehicle(app, carrier, "VZH-56-E", "landbouwtrekker")
    tanker = vehicle(app, carrier, "WX-12-BC", "aanhangwagen", capability="mesttank")
    create_task(
        app,
        carrier,
        driver,
        type="mest_laden",
        naam="Mest Enter",
        vehicle_id=tractor.id,
        gepland_op=datetime(2026, 12, 7, 8, tzinfo=UTC),
    )
    return tractor, tanker


def test_a_tractor_without_a_tank_is_warned_and_a_coupled_tanker_clears_it(
    app, client, carrier, planner, planned
):
    from portal.fleet import couplings

    tractor, tanker = planned
    login(client, planner)
    solo = client.get(BOARD).get_data(as_text=True)
    assert "Voertuig VZH-56-E (zonder aanhanger) " + MISSING in solo

    in_carrier(
        app,
        carrier.id,
        lambda: couplings.couple(
            carrier_id=carrier.id, motor_id=tractor.id, towed_id=tanker.id, day=DAY, actor=SYSTEM
        ),
    )
    coupled = client.get(BOARD).get_data(as_text=True)
    assert MISSING not in coupled
    assert 'class="plate plate-towed"' in coupled and "WX-12-BC" in coupled


def test_a_coupled_trailer_without_the_capability_is_named(app, client, carrier, planner, planned):
    from portal.fleet import couplings

    tractor, _ = planned
    cart = vehicle(app, carrier, "WX-13-BC", "aanhangwagen", capability="kipper")
    in_carrier(
        app,
        carrier.id,
        lambda: couplings.couple(
            carrier_id=carrier.id, motor_id=tractor.id, towed_id=cart.id, day=DAY, actor=SYSTEM
        ),
    )
    login(client, planner)
    page = client.get(BOARD).get_data(as_text=True)
    assert "Combinatie VZH-56-E + WX-13-BC " + MISSING in page


def test_the_warning_is_in_english_for_an_english_planner(client, planner, planned):
    login(client, planner)
    token = csrf_from(client.get("/taken").get_data(as_text=True))
    client.post("/taal", data={"taal": "en", "next": "/taken", "csrf_token": token})
    page = client.get(BOARD).get_data(as_text=True)
    assert "Vehicle VZH-56-E (without a trailer) lacks what this activity needs: Manure tank" in (
        page
    )


def test_the_task_form_warns_of_the_missing_tank_and_saves_anyway(
    app, client, carrier, planner, planned
):
    tractor, _ = planned
    login(client, planner)
    page = client.get("/taken/nieuw").get_data(as_text=True)
    data = {
        "csrf_token": csrf_from(page),
        "type": "mest_lossen",
        "naam": "Mest lossen Lochem",
        "land": "NL",
        "gepland_datum": "2026-12-07",
        "gepland_tijd": "14:00",
        "vehicle_id": str(tractor.id),
    }
    checked = client.post("/taken/nieuw/controle", data=data, headers={"HX-Request": "true"})
    assert checked.status_code == 200
    assert "Voertuig VZH-56-E (zonder aanhanger) " + MISSING in checked.get_data(as_text=True)

    saved = client.post("/taken/nieuw", data=data)
    assert saved.status_code == 303  # a warning, never a refusal
