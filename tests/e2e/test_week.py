"""The planner's week in Chromium: open it, drag a task to another day and driver, move one
with the keyboard dialog, print it on one A4 landscape page. Screenshots at 1920 px and in
print emulation go to RIJPLAN_E2E_SHOTS (/tmp/e2e-shots).

A carrier of its own on the shared live server, and a fixed week (1-7 March 2027)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from factories import PASSWORD, Ref, create_carrier, create_driver, create_task, create_user
from playwright.sync_api import Page, expect
from tacho.test_planning import tired_driver

pytestmark = pytest.mark.e2e

AMS = ZoneInfo("Europe/Amsterdam")
MONDAY = date(2027, 3, 1)
WEEK = f"/taken?weergave=week&van={MONDAY.isoformat()}"


def at(day: int, clock: str) -> datetime:
    moment = datetime.combine(MONDAY + timedelta(days=day), time.fromisoformat(clock), tzinfo=AMS)
    return moment.astimezone(UTC)


@dataclass
class Week:
    url: str
    app: object
    carrier: Ref
    planner: Ref
    anna: Ref
    bram: Ref


@pytest.fixture(scope="module")
def week(live_server) -> Week:
    app = live_server.app
    carrier = create_carrier(app, "Week Transport BV")
    planner = create_user(app, carrier, "planner")
    anna = create_driver(app, carrier, "Anna Jansen")
    bram = create_driver(app, carrier, "Bram de Boer")
    others = [create_driver(app, carrier, n) for n in ("Chris Smit", "Dirk Visser", "Eva de Wit")]
    plan = [
        (anna, 0, "06:30", 120, "Mest laden Enter", "mest_laden"),
        (anna, 0, "09:00", 90, "Mest lossen Markelo", "mest_lossen"),
        (anna, 1, "07:00", None, "Voer Epe", "voer_leveren"),
        (anna, 3, "22:00", 240, "Nachtrit Venlo", "koel_transport"),
        (bram, 0, "05:45", 60, "Biggen Deurne", "vee_transport"),
        (bram, 2, "08:00", 180, "Mest Hengelo", "mest_laden"),
        (bram, 2, "09:30", 60, "Dubbel Hengelo", "mest_laden"),
        (bram, 4, "13:00", None, "Kuikens Barneveld", "vee_transport"),
        (None, 1, "10:00", 60, "Voer Lochem", "voer_leveren"),
        (None, 4, "15:30", None, "Koelvracht Venlo", "koel_transport"),
    ]
    for n, driver in enumerate(others):
        for day in range(5):
            plan.append(
                (
                    driver,
                    day,
                    f"{7 + (n + day) % 4:02d}:15",
                    150,
                    f"Rit {driver.naam.split()[0]} {day + 1}",
                    "mest_laden",
                )
            )
    for driver, day, clock, minutes, naam, kind in plan:
        create_task(
            app,
            carrier,
            driver,
            naam=naam,
            type=kind,
            stad=naam.split()[-1],
            gepland_op=at(day, clock),
            duur_min=minutes,
        )
    # A driver whose card shows 8 h 45 of driving since a weekly rest: the lane's figures.
    tired, _now = tired_driver(app, carrier)
    create_task(
        app,
        carrier,
        tired,
        naam="Mest Rijssen",
        stad="Rijssen",
        gepland_op=at(0, "11:00"),
        duur_min=120,
    )
    return Week(live_server.url, app, carrier, planner, anna, bram)


@pytest.fixture
def wide(browser):
    context = browser.new_context(locale="nl-NL", viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def console_errors(wide):
    errors: list[str] = []
    expected = re.compile(r"Failed to load resource: .* status of (422|409|412)\b")
    wide.on(
        "console",
        lambda m: m.type == "error" and not expected.search(m.text) and errors.append(m.text),
    )
    wide.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    return errors


def sign_in(page: Page, week: Week) -> None:
    page.goto(f"{week.url}/login")
    page.get_by_label("E-mailadres").fill(week.planner.email)
    page.get_by_label("Wachtwoord").fill(PASSWORD)
    page.get_by_role("button", name="Aanmelden", exact=True).click()
    expect(page.get_by_role("heading", name="Taken", level=1)).to_be_visible()
    page.goto(f"{week.url}{WEEK}")
    page.wait_for_load_state("load")


def lane(page: Page, title: str):
    return page.locator("section.wk-lane").filter(
        has=page.get_by_role("heading", name=title, level=3)
    )


def card(page: Page, naam: str):
    return page.locator("article.wk-card").filter(
        has=page.get_by_role("link", name=naam, exact=True)
    )


def test_a_planner_drags_moves_by_keyboard_and_prints_the_week(wide, week, shot, console_errors):
    page = wide
    create_task(
        week.app,
        week.carrier,
        week.anna,
        naam="Sleep Goor",
        stad="Goor",
        gepland_op=at(0, "12:00"),
        duur_min=60,
    )
    create_task(
        week.app,
        week.carrier,
        week.anna,
        naam="Toets Borne",
        stad="Borne",
        gepland_op=at(1, "14:00"),
        duur_min=45,
    )
    sign_in(page, week)
    expect(page.get_by_role("heading", name=re.compile("1 mrt \u2013 7 mrt 2027"))).to_be_visible()
    expect(lane(page, "Anna Jansen").get_by_role("link", name="Sleep Goor")).to_be_visible()
    expect(card(page, "Voer Epe")).to_have_class(re.compile("wk-estimated"))
    expect(card(page, "Dubbel Hengelo")).to_have_class(re.compile("wk-warned"))
    expect(lane(page, "Piet Vos").locator(".wk-budget")).to_contain_text("1 u 15")
    shot(page, "week-01-1920")

    # Drag: from Anna's Monday to Bram's Wednesday; the time of day stays.
    wednesday = lane(page, "Bram de Boer").locator('.wk-cell[data-week-date="2027-03-03"]')
    box = wednesday.bounding_box()
    with page.expect_response(lambda r: "/verplaats" in r.url) as moved:
        card(page, "Sleep Goor").drag_to(
            lane(page, "Bram de Boer").locator(".wk-track"),
            target_position={
                "x": box["x"]
                - lane(page, "Bram de Boer").locator(".wk-track").bounding_box()["x"]
                + box["width"] / 2,
                "y": 4,
            },
        )
    assert moved.value.status == 200
    expect(page.locator("#board-message")).to_contain_text("verplaatst: Bram de Boer")
    dropped = lane(page, "Bram de Boer").locator("article.wk-card", has_text="Sleep Goor")
    expect(dropped).to_have_count(1)
    expect(dropped).to_have_attribute("data-day", "2")
    expect(dropped).to_contain_text("12:00\u201313:00")

    # The keyboard: the card's "Verplaats" opens the day board's dialog.
    toets = card(page, "Toets Borne")
    toets.get_by_role("link", name="Toets Borne").focus()
    page.keyboard.press("Tab")
    expect(toets.get_by_role("link", name="Verplaats")).to_be_focused()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Chauffeur").select_option(label="Bram de Boer")
    dialog.get_by_label("Datum").fill("2027-03-05")
    shot(page, "week-02-move-dialog")
    dialog.get_by_label("Tijd").fill("16:30")
    dialog.get_by_label("Tijd").press("Enter")
    expect(dialog).to_be_hidden()
    moved_card = lane(page, "Bram de Boer").locator("article.wk-card", has_text="Toets Borne")
    expect(moved_card).to_have_attribute("data-day", "4")
    expect(moved_card).to_contain_text("16:30\u201317:15")
    expect(moved_card.locator(".card-title a")).to_be_focused()

    # Print: A4 landscape, the week on one page.
    page.emulate_media(media="print")
    expect(page.locator("#board-filters")).to_be_hidden()
    page.set_viewport_size({"width": 1123, "height": 794})  # A4 landscape at 96 dpi
    shot(page, "week-03-print")
    pdf = page.pdf(prefer_css_page_size=True, print_background=True)
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 1
    page.emulate_media(media="screen")
    assert console_errors == []


def test_the_week_without_tasks_says_so(wide, week):
    sign_in(wide, week)
    wide.goto(f"{week.url}/taken?weergave=week&van=2030-01-07")
    expect(wide.get_by_text("Er staan geen taken in deze periode.")).to_be_visible()
    wide.get_by_role("link", name=re.compile("Volgende week")).click()
    expect(wide).to_have_url(re.compile(r"van=2030-01-14"))


def test_a_fortnight_prints_a_page_per_week(wide, week, shot):
    sign_in(wide, week)
    wide.goto(f"{week.url}{WEEK}&dagen=14")
    expect(wide.locator("#lanes .wk-cell[data-week-date='2027-03-14']").first).to_be_attached()
    wide.emulate_media(media="print")
    wide.set_viewport_size({"width": 1123, "height": 794})
    shot(wide, "week-04-print-fortnight")
    pdf = wide.pdf(prefer_css_page_size=True, print_background=True)
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 2
