"""A planner couples a manure tanker to a farm tractor on the tractor's page, and the day
board's card shows the combination's two plates, with a warning where the combination lacks
what the activity needs."""

from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo

import pytest
from factories import Ref, create_driver, create_task, in_carrier
from playwright.sync_api import expect

from e2e.conftest import SHOTS
from e2e.test_portal import sign_in
from portal.extensions import db

pytestmark = pytest.mark.e2e
AMSTERDAM = ZoneInfo("Europe/Amsterdam")


def _vehicle(app, carrier, kenteken, soort, capability=None) -> Ref:
    from portal.fleet.models import Vehicle, VehicleCapability

    def make():
        row = Vehicle(transporteur_id=carrier.id, kenteken=kenteken, soort=soort)
        db.session.add(row)
        db.session.flush()
        if capability:
            db.session.add(
                VehicleCapability(
                    transporteur_id=carrier.id,
                    vehicle_id=row.id,
                    code=capability,
                    parameters={"volume_m3": 18.0},
                )
            )
        return row

    return in_carrier(app, carrier.id, make, lambda v: Ref(v.id, carrier.id, naam=kenteken))


def test_a_planner_couples_a_tanker_and_the_board_shows_the_combination(
    page, live_server, planner, shot
):
    app, carrier = live_server.app, live_server.carrier
    tractor = _vehicle(app, carrier, "VZH-56-E", "landbouwtrekker")
    _vehicle(app, carrier, "WX-12-BC", "aanhangwagen", capability="mesttank")
    driver = create_driver(app, carrier, "Hendrik Wolters")
    today = datetime.now(AMSTERDAM).date()
    for hour, naam, kind in ((7, "Mest rijden Haaksbergen", "mest_laden"),
                             (11, "Kalveren ophalen Neede", "vee_transport")):  # fmt: skip
        create_task(
            app,
            carrier,
            driver,
            naam=naam,
            type=kind,
            stad=naam.split()[-1],
            vehicle_id=tractor.id,
            gepland_op=datetime.combine(today, time(hour), tzinfo=AMSTERDAM),
        )
    sign_in(page, live_server, planner)
    page.set_viewport_size({"width": 1440, "height": 900})

    page.goto(f"{live_server.url}/voertuigen/{tractor.id}")
    page.get_by_role("link", name="Koppelen…").click()
    page.get_by_label("Koppelen aan").select_option(label="WX-12-BC")
    page.get_by_role("button", name="Koppelen", exact=True).click()
    expect(page.locator(".flash")).to_contain_text("VZH-56-E en WX-12-BC zijn gekoppeld")
    expect(page.locator("#couplings .coupling-current")).to_contain_text("WX-12-BC")
    page.locator("#couplings summary").click()
    shot(page, "couplings-01-vehicle-page")

    page.goto(f"{live_server.url}/taken")
    card = page.locator("article.card", has_text="Mest rijden Haaksbergen")
    expect(card.locator(".plate-towed")).to_have_text("WX-12-BC")
    expect(card.locator(".warn-badge")).to_have_count(0)
    lacking = page.locator("article.card", has_text="Kalveren ophalen Neede")
    expect(lacking.locator(".card-warnings")).to_contain_text(
        "Combinatie VZH-56-E + WX-12-BC mist wat deze activiteit nodig heeft: "
        "Veevervoer (NVWA-erkend)"
    )
    card.scroll_into_view_if_needed()
    shot(page, "couplings-02-board")
    card.screenshot(path=str(SHOTS / "couplings-03-card.png"))
    lacking.screenshot(path=str(SHOTS / "couplings-04-card-warning.png"))
