"""A driver's day recorded through the API shows on the planner's week page as a timeline with
the right totals; the overview sums it; approving the week locks it for the app."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from factories import PASSWORD, create_driver
from playwright.sync_api import expect

from e2e.test_portal import sign_in
from portal.hours.totals import IsoWeek

pytestmark = pytest.mark.e2e
AMS = ZoneInfo("Europe/Amsterdam")


def test_a_day_from_the_app_shows_on_the_week_page_and_in_the_overview(
    page, live_server, planner, shot
):
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    base = f"{live_server.url}/api/v1"
    driver = create_driver(live_server.app, live_server.carrier, "Sanne Bos")

    # Last week's Tuesday, on the carrier's clock.
    week = IsoWeek.of(datetime.now(AMS).date()).shifted(-1)
    tuesday = week.monday + timedelta(days=1)

    def at(clock: str) -> str:
        hour, minute = (int(part) for part in clock.split(":"))
        moment = datetime(tuesday.year, tuesday.month, tuesday.day, hour, minute, tzinfo=AMS)
        return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")

    # The driver's phone signs in and records the day as it goes.
    api = page.request
    signed_in = api.post(
        f"{base}/auth/token",
        data={"grant_type": "password", "username": driver.email, "password": PASSWORD},
    )
    assert signed_in.ok, signed_in.text()
    auth = {"Authorization": f"Bearer {signed_in.json()['access_token']}"}
    started = api.post(
        f"{base}/users/{driver.user_token}/werkdagen",
        headers=auth,
        data={"gestart_op": at("06:00")},
    )
    assert started.status == 201, started.text()
    day = started.json()
    steps = [
        ("rijden", "06:00", "08:00"),
        ("laden", "08:00", "08:45"),
        ("rijden", "08:45", "10:15"),
        ("pauze", "10:15", "10:45"),
        ("lossen", "10:45", "11:30"),
    ]
    for soort, begin, end in steps:
        added = api.post(
            f"{base}/werkdagen/{day['id']}/activiteiten",
            headers={**auth, "Idempotency-Key": f"{soort}-{begin}"},
            data={"soort": soort, "begin": at(begin), "einde": at(end)},
        )
        assert added.status == 201, added.text()
    last = api.post(
        f"{base}/werkdagen/{day['id']}/activiteiten",
        headers=auth,
        data={"soort": "rijden", "begin": at("11:30")},
    )
    assert last.status == 201 and last.json()["lopend"] is True
    ended = api.patch(
        f"{base}/werkdagen/{day['id']}",
        headers={**auth, "If-Match": started.headers["etag"]},
        data={"beeindigd_op": at("15:30")},
    )
    assert ended.status == 200, ended.text()
    assert ended.json()["activiteiten"][-1]["einde"] == at("15:30")

    # The planner's week page: the timeline with a bar per activity, and the totals.
    sign_in(page, live_server, planner)
    page.goto(f"{live_server.url}/uren/{driver.user_token}/{week.label}")
    expect(page.get_by_role("heading", name=re.compile("Sanne Bos"))).to_be_visible()
    chart = page.locator("svg.timeline-chart")
    expect(chart).to_be_visible()
    assert chart.bounding_box()["width"] > 700
    row = chart.locator(f'g.tl-row[data-day="{tuesday.isoformat()}"]')
    expect(row.locator("g.tl-bar")).to_have_count(6)
    expect(row.locator("g.tl-bar-rijden")).to_have_count(3)
    expect(row.locator("text.tl-total")).to_have_text("9:00")
    assert "Laden · 08:00\u201308:45 (0:45)" in row.locator("g.tl-bar-laden title").text_content()
    week_row = page.locator('tr[data-day="week"]')
    expect(week_row.locator('[data-soort="rijden"]')).to_have_text("7:30")
    expect(week_row.locator('[data-soort="werktijd"]')).to_have_text("9:00")
    expect(week_row.locator('[data-soort="totaal"]')).to_have_text("9:30")
    shot(page, "hours-01-week")

    # The overview sums it with everyone else's.
    page.goto(f"{live_server.url}/uren?week={week.label}")
    mine = page.locator(f"#uren-{driver.id}")
    expect(mine.locator('[data-soort="werktijd"]')).to_have_text("9:00")
    expect(mine.locator('[data-soort="laden"]')).to_have_text("0:45")
    shot(page, "hours-02-overview")

    # Approving the week locks it for the app.
    mine.get_by_role("link", name="Sanne Bos").click()
    page.get_by_role("link", name="Week goedkeuren").click()
    page.get_by_role("button", name="Ja, keur de week goed").click()
    expect(page.locator("#week-status")).to_have_text("Goedgekeurd")
    refused = api.patch(
        f"{base}/werkdagen/{day['id']}", headers=auth, data={"opmerking": "Toch nog iets"}
    )
    assert refused.status == 409
    assert refused.json()["week"] == week.label
    assert errors == []


def test_a_one_day_night_trip_on_the_week_page_and_in_the_overview_in_both_languages(
    page, live_server, planner, shot
):
    """A shift from 15:00 to 03:30 the next morning, recorded in the app, is a one-day trip
    (CAO art. 40 lid 3a): the week page shows its hours between 21:00 and 05:00 with the
    night-trip surcharge (art. 37), the overtime rule the week was computed with, and the
    meeruren column; the overview's payable view has a night-trip column; in Dutch and in
    English."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    base = f"{live_server.url}/api/v1"
    driver = create_driver(live_server.app, live_server.carrier, "Ruud Nacht")
    week = IsoWeek.of(datetime.now(AMS).date()).shifted(-1)
    tuesday = week.monday + timedelta(days=1)
    wednesday = tuesday + timedelta(days=1)

    def at(day, clock: str) -> str:
        hour, minute = (int(part) for part in clock.split(":"))
        moment = datetime(day.year, day.month, day.day, hour, minute, tzinfo=AMS)
        return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")

    api = page.request
    signed_in = api.post(
        f"{base}/auth/token",
        data={"grant_type": "password", "username": driver.email, "password": PASSWORD},
    )
    auth = {"Authorization": f"Bearer {signed_in.json()['access_token']}"}
    started = api.post(
        f"{base}/users/{driver.user_token}/werkdagen",
        headers=auth,
        data={"gestart_op": at(tuesday, "15:00")},
    )
    assert started.status == 201, started.text()
    day = started.json()
    steps = [
        ("rijden", at(tuesday, "15:00"), at(tuesday, "19:00")),
        ("pauze", at(tuesday, "19:00"), at(tuesday, "19:30")),
        ("rijden", at(tuesday, "19:30"), at(wednesday, "03:30")),
    ]
    for soort, begin, end in steps:
        added = api.post(
            f"{base}/werkdagen/{day['id']}/activiteiten",
            headers={**auth, "Idempotency-Key": f"{soort}-{begin}"},
            data={"soort": soort, "begin": begin, "einde": end},
        )
        assert added.status == 201, added.text()
    ended = api.patch(
        f"{base}/werkdagen/{day['id']}",
        headers={**auth, "If-Match": started.headers["etag"]},
        data={"beeindigd_op": at(wednesday, "03:30")},
    )
    assert ended.status == 200, ended.text()

    sign_in(page, live_server, planner)
    page.goto(f"{live_server.url}/uren/{driver.user_token}/{week.label}")
    payable = page.locator("table.hours-payable")
    expect(payable.get_by_role("columnheader", name="Nachtrit +19%")).to_be_visible()
    expect(payable.get_by_role("columnheader", name="Meeruren")).to_be_visible()

    def night(day: str):
        return payable.locator(f'tr[data-day="{day}"] [data-col="nachttoeslag"]')

    expect(night(tuesday.isoformat())).to_have_text("3:00")
    expect(night(wednesday.isoformat())).to_have_text("3:30")
    expect(night("week")).to_have_text("6:30")
    expect(page.locator("#overuren-regel")).to_have_text(
        "Overuren: boven de contracturen (hoogstens 40 uur) op maandag tot en met vrijdag."
    )
    page.locator("#te-betalen").scroll_into_view_if_needed()
    shot(page, "hours-03-night-trip-nl")

    page.goto(f"{live_server.url}/uren?week={week.label}&weergave=betaald")
    mine = page.locator(f"#uren-{driver.id}")
    expect(mine.locator('[data-col="nachttoeslag_min"]')).to_have_text("6:30")
    expect(mine.locator('[data-col="gewerkt_min"]')).to_have_text("12:00")
    shot(page, "hours-04-payable-overview-nl")

    page.get_by_role("button", name="English").click()
    expect(mine.locator('[data-col="nachttoeslag_min"]')).to_have_text("6:30")
    expect(page.get_by_role("columnheader", name="Night trip")).to_be_visible()
    shot(page, "hours-05-payable-overview-en")
    page.goto(f"{live_server.url}/uren/{driver.user_token}/{week.label}")
    expect(payable.get_by_role("columnheader", name="Night trip +19%")).to_be_visible()
    expect(payable.get_by_role("columnheader", name="Extra hours")).to_be_visible()
    expect(page.locator("#overuren-regel")).to_have_text(
        "Overtime: above the contract hours (at most 40) on Monday to Friday."
    )
    page.locator("#te-betalen").scroll_into_view_if_needed()
    shot(page, "hours-06-night-trip-en")
    page.get_by_role("button", name="Nederlands").click()  # the planner's language again
    assert errors == []
