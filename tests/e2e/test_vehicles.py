"""A vehicle from the portal to the cab and back: the planner adds it and prints its QR
sticker, the driver's app scans the sticker to start a session, and the planner sees who
drives what."""

from __future__ import annotations

import re

import pytest
from factories import PASSWORD, create_driver
from playwright.sync_api import expect

from e2e.test_portal import sign_in

pytestmark = pytest.mark.e2e


def test_a_planner_adds_a_vehicle_the_driver_scans_its_sticker_and_the_planner_sees_it(
    page, live_server, planner, shot
):
    driver = create_driver(live_server.app, live_server.carrier, "Gerrit Dijkstra")
    base = f"{live_server.url}/api/v1"
    sign_in(page, live_server, planner)

    # The planner adds the vehicle; the plate is typed loosely and stored as painted.
    page.goto(f"{live_server.url}/voertuigen")
    page.get_by_role("link", name="Voertuig toevoegen").first.click()
    page.get_by_label("Kenteken").fill("vs707k")
    page.get_by_label("Soort").select_option("opleggertrekker")
    page.get_by_label("Omschrijving").fill("DAF XF 480 met mesttank")
    page.get_by_label("Capaciteit").fill("30,5")
    page.get_by_label("Eenheid").select_option("m3")
    page.get_by_role("button", name="Voertuig toevoegen").click()
    expect(page.locator("h1 .plate")).to_have_text("VS-707-K")
    expect(page.locator(".flash")).to_contain_text("Voertuig VS-707-K is toegevoegd")
    expect(page.get_by_text("30,5 m³")).to_be_visible()
    shot(page, "vehicles-01-added")

    # The list finds it by its plate without dashes, refreshed by htmx as the planner types.
    page.goto(f"{live_server.url}/voertuigen")
    page.get_by_placeholder("Zoek op kenteken, vlootnummer of omschrijving").fill("vs707")
    expect(page.locator("#vehicle-results")).to_contain_text("1 voertuig gevonden")
    expect(page).to_have_url(re.compile(r"/voertuigen\?q=vs707"))
    page.locator("#vehicle-results").get_by_text("VS-707-K").click()

    # Its QR sticker, ready to print; the sticker's payload is what the app will scan.
    page.get_by_role("link", name="QR-sticker afdrukken").click()
    sticker = page.locator("figure.sticker")
    expect(sticker).to_have_count(1)
    expect(sticker.locator(".sticker-plate")).to_have_text("VS-707-K")
    expect(sticker.locator("svg")).to_be_visible()
    payload = sticker.get_attribute("data-qr-payload")
    assert payload and payload.startswith("RPV1.")
    shot(page, "vehicles-02-sticker")

    # The driver's app signs in, starts a session and scans the sticker: it is active.
    api = page.request
    signed_in = api.post(
        f"{base}/auth/token",
        data={"grant_type": "password", "username": driver.email, "password": PASSWORD},
    )
    assert signed_in.ok, signed_in.text()
    auth = {"Authorization": f"Bearer {signed_in.json()['access_token']}"}
    started = api.post(f"{base}/vehicle_sessions", data={}, headers=auth)
    assert started.status == 201, started.text()
    assert started.json()["status"] == "pending"
    scanned = api.post(
        f"{base}/vehicle_sessions/{started.json()['id']}/validate",
        data={"qr": payload},
        headers=auth,
    )
    assert scanned.status == 200, scanned.text()
    assert scanned.json()["status"] == "active" and scanned.json()["kenteken"] == "VS-707-K"

    # The planner sees who drives what.
    page.goto(f"{live_server.url}/voertuigen")
    page.get_by_role("link", name="Wie rijdt wat").click()
    row = page.locator("#current-sessions tbody tr", has_text="VS-707-K")
    expect(row).to_contain_text("Gerrit Dijkstra")
    shot(page, "vehicles-03-who-drives-what")

    # While driving, starting another session is refused with a clear problem.
    again = api.post(f"{base}/vehicle_sessions", data={}, headers=auth)
    assert again.status == 409 and again.json()["reden"] == "driver_busy"
