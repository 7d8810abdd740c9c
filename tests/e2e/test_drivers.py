"""A planner adds a driver and pairs the phone by QR code; the phone signs in with the code,
reports where it is, and the planner sees it on the map page."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from e2e.test_portal import sign_in
from portal.types import iso

pytestmark = pytest.mark.e2e


def test_a_planner_pairs_a_phone_and_sees_where_the_driver_is(page, live_server, planner, shot):
    # The day's track shows today's points: points nine minutes back are today only from
    # ten minutes past midnight in Amsterdam (the map refuses points from the future).
    local = datetime.now(ZoneInfo("Europe/Amsterdam"))
    if local.hour == 0 and local.minute < 10:
        pytest.skip("the day's track needs ten minutes of today in Amsterdam")
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    base = f"{live_server.url}/api/v1"

    # The planner adds the driver.
    sign_in(page, live_server, planner)
    page.goto(f"{live_server.url}/chauffeurs")
    page.get_by_role("link", name="Chauffeur toevoegen").first.click()
    page.get_by_label("Naam").fill("Kees Mulder")
    page.get_by_label("Telefoon").fill("06-98765432")
    page.locator("form.driver-form button[type=submit]").click()
    expect(page.get_by_role("heading", name="Kees Mulder")).to_be_visible()
    expect(page.get_by_text("Chauffeur “Kees Mulder” is toegevoegd.")).to_be_visible()
    driver_page = page.url

    # ... and shows the pairing QR code.
    page.get_by_role("link", name="Telefoon koppelen").first.click()
    page.get_by_role("button", name="Koppelcode maken").click()
    qr = page.locator("svg.qr-code")
    expect(qr).to_be_visible()
    assert qr.bounding_box()["width"] >= 200  # large enough to scan from the screen
    code_text = page.locator("#pairing-code").inner_text()
    assert re.fullmatch(r"[A-Z0-9]{5}-[A-Z0-9]{5}", code_text), code_text
    expect(page.get_by_text(re.compile(r"Geldig tot \d\d:\d\d"))).to_be_visible()
    shot(page, "drivers-01-pairing")

    # The phone exchanges the code (as typed from the screen) for tokens ...
    api = page.request
    paired = api.post(
        f"{base}/auth/token", data={"grant_type": "activation_code", "code": code_text}
    )
    assert paired.ok, paired.text()
    tokens = paired.json()
    auth = {"Authorization": f"Bearer {tokens['access_token']}"}
    profile = api.get(f"{base}/users/{tokens['user_token']}", headers=auth).json()
    assert profile["naam"] == "Kees Mulder"

    # ... and reports where it is: a point caught up from offline, then the current one.
    now = datetime.now(UTC)
    sent = api.put(
        f"{base}/users/{tokens['user_token']}/locatie",
        headers=auth,
        data={
            "punten": [
                {"lat": 52.5012, "lng": 6.4111, "recorded_at": iso(now - timedelta(minutes=9))},
                {
                    "lat": 52.5123,
                    "lng": 6.4222,
                    "recorded_at": iso(now - timedelta(minutes=4)),
                    "accuracy": 6,
                    "speed": 15,
                },
            ]
        },
    )
    assert sent.ok, sent.text()
    assert sent.json()["opgeslagen"] == 2

    # The map page shows it: in the table and as a marker.
    page.goto(f"{live_server.url}/chauffeurs/kaart")
    row = page.locator("#positions tr", has_text="Kees Mulder")
    expect(row).to_contain_text("52.51230, 6.42220")
    expect(row).to_contain_text("4 minuten geleden")
    expect(row).to_contain_text("± 6 m")
    expect(row).to_contain_text("54 km/u")
    expect(page.locator("#driver-map .leaflet-tooltip", has_text="Kees Mulder")).to_be_visible()
    shot(page, "drivers-02-map")

    # The day's track draws both points.
    row.get_by_role("link", name="Vandaag").click()
    expect(page.get_by_text("2 punten")).to_be_visible()
    expect(page.locator("#track-map path.leaflet-interactive").first).to_be_attached()
    shot(page, "drivers-03-track")

    # The pairing is in the driver's history, and the code works only once.
    page.goto(driver_page)
    expect(page.get_by_text("Koppelcode gemaakt")).to_be_visible()
    again = api.post(
        f"{base}/auth/token", data={"grant_type": "activation_code", "code": code_text}
    )
    assert again.status == 400
    assert errors == [], errors  # no script errors, no CSP violations
