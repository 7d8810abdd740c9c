"""Roles in the browser: an author's first sign-in lands where an author works, the menu shows
only what the role may open, a forbidden page explains itself; on a 420 px phone the menu is
one button on one line and the hours table keeps its Werktijd column in view."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from factories import create_driver, create_user, in_carrier
from playwright.sync_api import expect

from e2e.test_portal import sign_in
from portal.audit.service import SYSTEM
from portal.hours.totals import IsoWeek

pytestmark = pytest.mark.e2e
AMS = ZoneInfo("Europe/Amsterdam")
PHONE = {"width": 420, "height": 860}


def test_an_authors_first_sign_in_lands_on_the_questionnaires(page, live_server, shot):
    author = create_user(live_server.app, live_server.carrier, "author")
    sign_in(page, live_server, author)
    expect(page).to_have_url(f"{live_server.url}/vragenlijsten")
    expect(page.get_by_role("heading", name="Geen toegang")).to_have_count(0)
    sections = page.locator(".nav-sections .nav-section a")
    expect(sections).to_have_text(["Vragenlijsten", "Antwoorden"])
    shot(page, "roles-author-landing-nl-desktop")

    page.get_by_role("link", name="Antwoorden", exact=True).first.click()
    expect(page).to_have_url(f"{live_server.url}/antwoorden")
    expect(page.locator("h1").first).not_to_have_text("Geen toegang")

    # A page for planners explains itself and leads back to where an author works.
    page.goto(f"{live_server.url}/taken")
    expect(page.get_by_role("heading", name="Geen toegang")).to_be_visible()
    expect(page.get_by_text("Deze pagina is voor planners.")).to_be_visible()
    shot(page, "roles-author-forbidden-nl-desktop")
    page.get_by_role("link", name="Naar Vragenlijsten").click()
    expect(page).to_have_url(f"{live_server.url}/vragenlijsten")


def test_an_author_sees_the_forbidden_page_in_english(browser, live_server, shot):
    author = create_user(live_server.app, live_server.carrier, "author")
    context = browser.new_context(locale="en-GB", viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/login")
        page.get_by_label("Email address").fill(author.email)
        page.get_by_label("Password").fill(live_server.password)
        page.get_by_role("button", name="Sign in", exact=True).click()
        expect(page).to_have_url(f"{live_server.url}/vragenlijsten")
        shot(page, "roles-author-landing-en-desktop")
        page.goto(f"{live_server.url}/facturatie")
        expect(page.get_by_text("This page is for planners.")).to_be_visible()
        expect(page.get_by_role("link", name="Go to Questionnaires")).to_be_visible()
        shot(page, "roles-author-forbidden-en-desktop")
    finally:
        context.close()


def _seed_hours(live_server, naam: str):
    """A driver with a recorded day last week: the overview has a row."""
    from portal.hours import service as hours
    from portal.hours.days import activities

    driver = create_driver(live_server.app, live_server.carrier, naam)
    week = IsoWeek.of(datetime.now(AMS).date()).shifted(-1)
    tuesday = week.monday + timedelta(days=1)
    start = datetime(tuesday.year, tuesday.month, tuesday.day, 6, 0, tzinfo=AMS).astimezone(UTC)
    carrier_id = live_server.carrier.id

    def record():
        day = hours.start_work_day(
            carrier_id=carrier_id,
            driver_id=driver.id,
            actor=SYSTEM,
            gestart_op=start,
            beeindigd_op=start + timedelta(hours=9),
        )
        for soort, begin, length in (("rijden", 0, 3), ("laden", 3, 1), ("rijden", 4, 4)):
            activities.add_activity(
                carrier_id=carrier_id,
                work_day_id=day.id,
                actor=SYSTEM,
                data={
                    "soort": soort,
                    "begin": start + timedelta(hours=begin),
                    "einde": start + timedelta(hours=begin + length),
                },
            )

    in_carrier(live_server.app, carrier_id, record)
    return week


@pytest.mark.parametrize("lang", ["nl", "en"])
def test_on_a_phone_the_menu_is_one_button_and_the_hours_keep_their_werktijd(
    browser, live_server, planner, shot, lang
):
    naam = f"Ruud van Telefoon {lang.upper()}"
    week = _seed_hours(live_server, naam)
    context = browser.new_context(locale="nl-NL", viewport=PHONE)
    page = context.new_page()
    try:
        sign_in(page, live_server, planner)
        expect(page).to_have_url(f"{live_server.url}/taken")
        if lang == "en":
            page.locator("#language-form button").click()
            expect(page.locator("html")).to_have_attribute("lang", "en")
        bar = page.locator(".topbar nav")
        # Measured once the page (its stylesheet included) has loaded: on a busy machine the
        # URL changes before the styles apply, and an unstyled bar is two rows tall.
        page.wait_for_load_state("load")
        # One line: the bar is as tall as one button row, and nothing scrolls sideways.
        height = bar.bounding_box()["height"]
        assert height < 64, height
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        expect(page.locator(".nav-sections .nav-section").first).to_be_hidden()
        menu = page.locator("details.nav-menu summary")
        expect(menu).to_be_visible()
        shot(page, f"roles-phone-menu-closed-{lang}")

        # The keyboard opens the menu and follows a link in it.
        menu.focus()
        page.keyboard.press("Enter")
        hours_label = "Uren" if lang == "nl" else "Hours"
        link = page.locator("details.nav-menu").get_by_role("link", name=hours_label, exact=True)
        expect(link).to_be_visible()
        shot(page, f"roles-phone-menu-open-{lang}")
        link.focus()
        page.keyboard.press("Enter")
        expect(page).to_have_url(f"{live_server.url}/uren")

        page.goto(f"{live_server.url}/uren?week={week.label}")
        werktijd = page.locator('.hours-table thead th[data-soort="werktijd"]')
        expect(werktijd).to_be_visible()
        expect(werktijd).to_have_text("Werktijd" if lang == "nl" else "Working time")
        box = werktijd.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
        row = page.locator(".hours-table tbody tr", has_text=naam)
        cell = row.locator('td[data-soort="werktijd"]')
        expect(cell).to_have_text("8:00")
        cell_box = cell.bounding_box()
        assert cell_box["x"] + cell_box["width"] <= PHONE["width"], cell_box
        shot(page, f"roles-phone-hours-{lang}")
    finally:
        context.close()
