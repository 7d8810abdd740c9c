"""Reviewing a driver's week in a real browser: the planner sees the payable hours and what is
off, corrects an activity with a reason, the driver answers the correction in the app (the
API), and only then does the planner approve the week."""

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
REASON = "Vertrek was 06:30 volgens de tachograaf"
COMMENT = "Klopt, ik stond tot half zeven bij de poort te wachten"
# The form saved without a reason answers 422, which Chromium logs: expected, not a fault.
EXPECTED = re.compile(r"Failed to load resource: .* status of 422\b")


def test_a_correction_waits_for_the_driver_and_the_week_is_approved_after_the_answer(
    page, live_server, planner, shot
):
    errors: list[str] = []
    page.on(
        "console",
        lambda m: (
            errors.append(m.text) if m.type == "error" and not EXPECTED.search(m.text) else None
        ),
    )
    page.on("pageerror", lambda e: errors.append(str(e)))
    base = f"{live_server.url}/api/v1"
    driver = create_driver(live_server.app, live_server.carrier, "Karin Smit")

    # Last week's Tuesday, on the carrier's clock.
    week = IsoWeek.of(datetime.now(AMS).date()).shifted(-1)
    tuesday = week.monday + timedelta(days=1)

    def moment(clock: str) -> datetime:
        hour, minute = (int(part) for part in clock.split(":"))
        return datetime(tuesday.year, tuesday.month, tuesday.day, hour, minute, tzinfo=AMS)

    def at(clock: str) -> str:
        return moment(clock).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")

    def local(clock: str) -> str:
        """What a datetime-local field holds: the carrier's wall clock."""
        return moment(clock).strftime("%Y-%m-%dT%H:%M")

    # 1. The driver's phone records the day: seven hours of driving on end, then loading.
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
    for soort, begin, end in [("rijden", "06:00", "13:00"), ("laden", "13:00", "14:00")]:
        added = api.post(
            f"{base}/werkdagen/{day['id']}/activiteiten",
            headers={**auth, "Idempotency-Key": f"{soort}-{begin}"},
            data={"soort": soort, "begin": at(begin), "einde": at(end)},
        )
        assert added.status == 201, added.text()
    ended = api.patch(
        f"{base}/werkdagen/{day['id']}",
        headers={**auth, "If-Match": started.headers["etag"]},
        data={"beeindigd_op": at("14:00")},
    )
    assert ended.status == 200, ended.text()

    # 2. The planner's week page: the payable hours, and the warning about the missing break.
    sign_in(page, live_server, planner)
    week_url = f"{live_server.url}/uren/{driver.user_token}/{week.label}"
    page.goto(week_url)
    expect(page.get_by_role("heading", name=re.compile("Karin Smit"))).to_be_visible()
    expect(page.get_by_role("heading", name="Te betalen uren")).to_be_visible()
    payable = page.locator("table.hours-payable")
    paid_tuesday = payable.locator(f'tr[data-day="{tuesday.isoformat()}"] [data-col="gewerkt"]')
    expect(paid_tuesday).to_have_text("8:00")
    expect(page.locator("#aandachtspunten")).to_contain_text(
        "langer dan 6 uur achter elkaar gewerkt zonder pauze"
    )
    expect(page.locator("#correcties")).to_contain_text("Geen correcties.")
    expect(page.get_by_role("link", name="Week goedkeuren")).to_be_visible()

    # The planner corrects the driving: without a reason first, refused at the reason field.
    driving = page.locator('article.workday tr[data-soort="rijden"]')
    driving.get_by_role("link", name="Wijzigen").click()
    expect(page.get_by_role("heading", name="Activiteit van Karin Smit wijzigen")).to_be_visible()
    begin = page.get_by_label("Begin", exact=True)
    expect(begin).to_have_value(local("06:00"))
    begin.fill(local("06:30"))
    page.get_by_role("button", name="Opslaan").click()
    reason = page.get_by_label("Reden van de correctie")
    expect(page.locator("#reden-error")).to_have_text("Geef een reden op.")
    expect(reason).to_have_attribute("aria-invalid", "true")
    expect(reason).to_have_attribute("aria-describedby", "reden-error")
    expect(begin).to_have_value(local("06:30"))  # nothing typed is lost
    page.evaluate("document.activeElement && document.activeElement.blur()")
    shot(page, "review-02-correction-form-error")

    reason.fill(REASON)
    page.get_by_role("button", name="Opslaan").click()
    expect(page).to_have_url(week_url)
    expect(page.get_by_role("status").filter(has_text="gecorrigeerd")).to_have_text(
        "De activiteit is gecorrigeerd; de chauffeur ziet de correctie in de app."
    )
    correction = page.locator("#correcties li.correction")
    expect(correction).to_have_count(1)
    expect(correction).to_have_attribute("data-reactie", "open")
    expect(correction).to_contain_text("06:00\u201313:00")
    expect(correction).to_contain_text("06:30\u201313:00")
    expect(correction).to_contain_text(REASON)
    expect(correction).to_contain_text("Wacht op de chauffeur")
    expect(page.locator("#wacht-op-chauffeur")).to_have_text("Wacht op de chauffeur: 1 correctie")
    expect(page.get_by_role("link", name="Week goedkeuren")).to_have_count(0)
    expect(paid_tuesday).to_have_text("7:30")
    expect(page.locator("#week-status")).to_have_text("Nog niet goedgekeurd")
    shot(page, "review-01-week-waiting")

    # 3. The driver's app shows the correction, as it was and as it became, with the reason.
    driver_week = f"{base}/users/{driver.user_token}/weken/{week.label}"
    seen = api.get(driver_week, headers=auth)
    assert seen.ok, seen.text()
    assert seen.json()["status"] == "open"
    (change,) = seen.json()["correcties"]
    assert change["oud"]["begin"] == at("06:00")
    assert change["nieuw"]["begin"] == at("06:30")
    assert change["oud"]["einde"] == change["nieuw"]["einde"] == at("13:00")
    assert change["reden"] == REASON
    assert change["door"] and change["reactie"] is None
    answered = api.post(
        f"{driver_week}/correcties/{change['id']}/reactie",
        headers=auth,
        data={"reactie": "opmerking", "tekst": COMMENT},
    )
    assert answered.ok, answered.text()
    assert answered.json()["reactie"] == "opmerking"

    # 4. The planner sees the comment and approves the week.
    page.reload()
    expect(correction).to_have_attribute("data-reactie", "opmerking")
    expect(correction).to_contain_text("Opmerking van de chauffeur")
    expect(correction).to_contain_text(COMMENT)
    expect(page.locator("#wacht-op-chauffeur")).to_have_count(0)
    page.get_by_role("link", name="Week goedkeuren").click()
    page.get_by_role("button", name="Ja, keur de week goed").click()
    expect(page.locator("#week-status")).to_have_text("Goedgekeurd")
    expect(correction).to_contain_text(COMMENT)
    expect(correction).to_contain_text(REASON)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    shot(page, "review-03-week-approved")

    approved = api.get(driver_week, headers=auth)
    assert approved.ok, approved.text()
    assert approved.json()["status"] == "goedgekeurd"
    (kept,) = approved.json()["correcties"]
    assert kept["reden"] == REASON
    assert kept["reactie"] == "opmerking" and kept["reactie_tekst"] == COMMENT
    assert errors == []
