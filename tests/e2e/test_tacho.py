"""A planner uploads tachograph files in the portal (several at once, a progress bar each),
finds them in the list by kind, downloads one through a link made for an inspector, and
uploading the same file again says it was already there."""

from __future__ import annotations

import re
import uuid
from datetime import date

import pytest
from playwright.sync_api import expect
from tacho.samples import card_file, vu_file_2

from e2e.test_portal import sign_in

pytestmark = pytest.mark.e2e


def test_a_planner_uploads_finds_and_hands_out_a_tachograph_file(
    page, live_server, planner, shot, tmp_path
):
    errors: list[str] = []
    # The refused file's request answers 422 on purpose; the browser logs that as an error.
    refused = "the server responded with a status of 422"
    page.on(
        "console",
        lambda m: errors.append(m.text) if m.type == "error" and refused not in m.text else None,
    )
    page.on("pageerror", lambda e: errors.append(str(e)))
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    number = f"NB{uuid.uuid4().int % 10**12:012d}00"
    card = card_file(card_number=number, first_day=date(2026, 10, 1), days=28)
    vu = vu_file_2(vin="YS2R4X2000" + number[-7:], kenteken="VZH56E", days=5)
    card_name, vu_name = f"C_{number}.DDD", f"M_VZH56E_{number[-6:]}.V1B"
    (tmp_path / card_name).write_bytes(card)
    (tmp_path / vu_name).write_bytes(vu)
    (tmp_path / "foto.DDD").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))

    sign_in(page, live_server, planner)
    page.goto(f"{live_server.url}/tachograaf")
    expect(page.get_by_role("heading", name="Tachograaf", level=1)).to_be_visible()

    # Three files at once: each gets its own progress bar and outcome.
    page.get_by_label("Tachograafbestanden").set_input_files(
        [tmp_path / card_name, tmp_path / vu_name, tmp_path / "foto.DDD"]
    )
    page.get_by_role("button", name="Uploaden").click()
    outcomes = page.locator("#tacho-upload-results li.tacho-outcome")
    expect(outcomes.filter(has_text=card_name)).to_contain_text("Geüpload als Bestuurderskaart.")
    expect(outcomes.filter(has_text=vu_name)).to_contain_text("Geüpload als Voertuigeenheid.")
    expect(outcomes.filter(has_text="foto.DDD")).to_contain_text("Geen tachograafbestand")
    expect(outcomes.filter(has_text="foto.DDD")).to_have_class(re.compile("tacho-outcome-fout"))
    expect(page.locator("#tacho-upload-results progress")).to_have_count(3)  # one per file
    expect(outcomes.last).to_contain_text("Klaar: 2 geüpload, 0 al eerder geüpload, 1 geweigerd.")
    # Each file went on its own to the JSON route of one file, none to the page's form.
    uploads = [url for url in posted if "/tachograaf/upload" in url]
    assert uploads == [f"{live_server.url}/tachograaf/upload.json"] * 3

    # The list refreshed by itself: the files are there with their kind.
    card_row = page.locator("#tacho-results tbody tr", has_text=card_name)
    expect(card_row).to_have_count(1)
    expect(card_row.locator(".tacho-kind")).to_have_text("Bestuurderskaart")
    expect(card_row).to_contain_text("1 okt 2026")
    vu_row = page.locator("#tacho-results tbody tr", has_text=vu_name)
    expect(vu_row.locator(".tacho-kind")).to_have_text("Voertuigeenheid")
    shot(page, "tacho-01-uploaded")

    # Filtering by kind narrows the list.
    page.get_by_label("Soort").select_option("voertuigeenheid")
    expect(page.locator("#tacho-results tbody tr", has_text=card_name)).to_have_count(0)
    expect(page.locator("#tacho-results tbody tr", has_text=vu_name)).to_have_count(1)
    page.get_by_label("Soort").select_option("")
    expect(card_row).to_have_count(1)

    # The download button gives the very bytes.
    href = card_row.get_by_role("link", name="Downloaden").get_attribute("href")
    downloaded = page.request.get(f"{live_server.url}{href}")
    assert downloaded.ok
    assert downloaded.body() == card

    # A link for an inspector, valid for an hour, works without signing in.
    card_row.get_by_role("link", name=card_name).click()
    expect(page.get_by_role("heading", name=card_name)).to_be_visible()
    expect(page.get_by_text(number, exact=True)).to_be_visible()
    page.get_by_label("Geldig").select_option(label="1 uur")
    page.get_by_role("button", name="Downloadlink maken").click()
    expect(page.get_by_text(re.compile(r"Geldig tot \d+ \w+ \d{4} \d\d:\d\d\."))).to_be_visible()
    link = page.locator("#shared-url").input_value()
    assert link.startswith(f"{live_server.url}/bestanden/")
    shot(page, "tacho-02-download-link")
    anonymous = page.context.browser.new_context()
    try:
        fetched = anonymous.request.get(link)
        assert fetched.ok
        assert fetched.body() == card
        tampered = anonymous.request.get(link.replace("exp=", "exp=9"))
        assert tampered.status == 403
    finally:
        anonymous.close()

    # The same file again: already there, and the list still has it once.
    page.goto(f"{live_server.url}/tachograaf")
    page.get_by_label("Tachograafbestanden").set_input_files(tmp_path / card_name)
    page.get_by_role("button", name="Uploaden").click()
    again = page.locator("#tacho-upload-results li.tacho-outcome", has_text=card_name)
    expect(again).to_contain_text("al eerder geüpload")
    expect(again).to_have_class(re.compile("tacho-outcome-dubbel"))
    expect(page.locator("#tacho-results tbody tr", has_text=card_name)).to_have_count(1)
    shot(page, "tacho-03-already-there")
    assert errors == []


def test_a_planner_uploads_a_real_card_and_reads_its_days_findings_and_time_left(
    page, live_server, shot, tmp_path
):
    """The real anonymised card (tests/fixtures/tachograph), uploaded as a planner would:
    its days with the download day ending at the download, the driver's 28 days and
    findings; a card read today gives the time left, on the overview and the board; the
    pages in Dutch and in English."""
    from datetime import UTC, datetime, timedelta

    from factories import create_driver, create_user
    from tacho.real_card import NAME, real_file

    from portal.tacho.ddd.build import card_file, changes_from_timeline

    planner = create_user(live_server.app, live_server.carrier, "planner")
    fixture = create_driver(live_server.app, live_server.carrier, "Fixture Een")
    create_driver(live_server.app, live_server.carrier, "Recent Rijder")
    (tmp_path / NAME).write_bytes(real_file())
    # A card read a minute ago: a weekly rest, then 3 h of driving up to now.
    now = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(minutes=1)
    timeline = [(now - timedelta(hours=50), "rust"), (now - timedelta(hours=3), "rijden")]
    fresh_name = f"C_{now:%Y%m%d_%H%M}_R_RIJDER.DDD"
    (tmp_path / fresh_name).write_bytes(
        card_file(
            kaartnummer="NB00000077777700", achternaam="Rijder", voornamen="Recent",
            dagen=changes_from_timeline(timeline, until=now), download_time=now,
        )
    )  # fmt: skip

    sign_in(page, live_server, planner)

    def upload(path, driver_name):
        page.goto(f"{live_server.url}/tachograaf")
        page.get_by_label("Koppel aan chauffeur").select_option(label=driver_name)
        page.get_by_label("Tachograafbestanden").set_input_files([path])
        page.get_by_role("button", name="Uploaden").click()
        outcome = page.locator("#tacho-upload-results li.tacho-outcome", has_text=path.name)
        expect(outcome).to_contain_text("Geüpload als Bestuurderskaart.")

    upload(tmp_path / NAME, "Fixture Een")
    upload(tmp_path / fresh_name, "Recent Rijder")

    # The file's days: the download day runs until the download at 11:30 UTC.
    page.locator("#tacho-results tbody tr", has_text=NAME).get_by_role("link", name=NAME).click()
    days = page.locator(".tacho-days-table tbody tr")
    expect(days.first).to_contain_text("12 sep 2025")
    expect(days.first).to_contain_text("tot 11:30 UTC")
    shot(page, "tacho-real-01-file")

    # The driver's 28 days up to the download, with the bars and the findings.
    page.goto(f"{live_server.url}/rijtijden/chauffeurs/{fixture.id}?tot=2025-09-13")
    expect(page.get_by_role("heading", name="Fixture Een", level=1)).to_be_visible()
    expect(page.locator("#dag-2025-09-12")).to_be_visible()
    expect(page.get_by_role("heading", name="Overtredingen in deze 28 dagen")).to_be_visible()
    shot(page, "tacho-real-02-driver")
    page.locator("#dag-2025-09-12").get_by_role("link").first.click()
    # The last change, a drive from 11:26, ends at the download, not at midnight.
    expect(page.locator("table.rt-changes tbody tr").last).to_contain_text("11:26\u201311:30")
    shot(page, "tacho-real-03-day")

    # 5 September: the card went to a truck whose tachograph's clock was 8 minutes behind.
    # The day says so, and keeps the changes in the order the card recorded them.
    page.goto(f"{live_server.url}/rijtijden/chauffeurs/{fixture.id}/dagen/2025-09-05")
    note = page.get_by_role("note").filter(has_text="Opmerking bij de gegevens")
    expect(note).to_contain_text("Klok van een andere voertuigeenheid 8 min achter")
    expect(page.locator("table.rt-totals tr", has_text="Rijden")).to_contain_text("5 u 41")
    step = page.locator("table.rt-changes tr.rt-clock-step")
    expect(step).to_have_count(1)
    expect(step.locator("xpath=preceding-sibling::tr[1]")).to_contain_text("15:01")
    expect(step.locator("xpath=following-sibling::tr[1]")).to_contain_text("14:53\u201314:54")
    shot(page, "tacho-real-03b-clock-behind")

    # The time left now: the overview and the board's lane.
    page.goto(f"{live_server.url}/rijtijden")
    row = page.locator("tr", has_text="Recent Rijder")
    expect(row).to_contain_text("1 u 30")  # 4 h 30 of driving before a break, 3 h driven
    shot(page, "tacho-real-04-remaining")
    page.goto(f"{live_server.url}/taken")
    lane = page.locator("section.lane", has_text="Recent Rijder")
    expect(lane.locator("a.lane-budget")).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"]  # the lanes scroll, the page does not
    shot(page, "tacho-real-05-board")

    # In English.
    page.locator("button[name=taal][value=en]").click()
    page.goto(f"{live_server.url}/rijtijden")
    expect(page.get_by_role("heading", name="Remaining driving time", level=1)).to_be_visible()
    page.goto(f"{live_server.url}/rijtijden/chauffeurs/{fixture.id}?tot=2025-09-13")
    expect(page.get_by_role("heading", name="Infringements in these 28 days")).to_be_visible()
    shot(page, "tacho-real-06-driver-en")
    page.goto(f"{live_server.url}/rijtijden/chauffeurs/{fixture.id}/dagen/2025-09-05")
    note = page.get_by_role("note").filter(has_text="Data note")
    expect(note).to_contain_text("Clock of another vehicle unit behind by 8 min")
    shot(page, "tacho-real-07-clock-behind-en")
