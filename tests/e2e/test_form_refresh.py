"""Forms that refresh themselves while they are filled in (the task form's warnings and route,
the builder) never move what is under the pointer, and never lose a submit.

The refresh answers are held back (route interception) until the planner has pressed the
mouse button, so they land in the middle of the click, as on a slow line."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

import pytest
from factories import (
    PASSWORD,
    create_carrier,
    create_driver,
    create_task,
    create_user,
    create_vehicle,
    in_carrier,
)
from playwright.sync_api import Page, expect

from e2e.test_builder import Held

pytestmark = pytest.mark.e2e

AMS = ZoneInfo("Europe/Amsterdam")


def today() -> date:
    return datetime.now(AMS).date()


def at(clock: str) -> datetime:
    return datetime.combine(today(), time.fromisoformat(clock), tzinfo=AMS).astimezone(UTC)


@pytest.fixture(scope="module")
def planning(live_server):
    """A carrier of its own whose driver is busy all morning: a task planned in the morning
    draws a list of double bookings above the form's button."""
    app = live_server.app
    carrier = create_carrier(app, "Klik Transport BV")
    planner = create_user(app, carrier, "planner")
    anna = create_driver(app, carrier, "Anna Klik")
    truck = create_vehicle(app, carrier, "BX-77-KL")
    for hour in range(6, 11):
        create_task(app, carrier, anna, naam=f"Mest laden {hour} uur", stad="Enter",
                    gepland_op=at(f"{hour:02d}:00"), vehicle_id=truck.id)  # fmt: skip
    add_customer(app, carrier, "Maatschap Hofstede", "Stal Markelo")
    return planner


def add_customer(app, carrier, naam: str, place: str) -> None:
    from portal.audit.service import SYSTEM
    from portal.customers import service

    def make():
        customer = service.create_customer(carrier_id=carrier.id, data={"naam": naam}, actor=SYSTEM)
        where = {"naam": place, "adres": "Stalweg 1", "stad": "Markelo"}
        service.add_place(carrier_id=carrier.id, customer_id=customer.id, data=where, actor=SYSTEM)

    in_carrier(app, carrier.id, make)


def sign_in(page: Page, url: str, user) -> None:
    page.goto(f"{url}/login")
    page.get_by_label("E-mailadres").fill(user.email)
    page.get_by_label("Wachtwoord").fill(PASSWORD)
    page.get_by_role("button", name="Aanmelden", exact=True).click()
    expect(page.get_by_role("heading", name="Taken", level=1)).to_be_visible()


def scroll_to_the_end(page: Page) -> None:
    """Scroll with the mouse wheel, as a planner does, until the page ends."""
    page.mouse.move(40, 400)
    last = -1
    while page.evaluate("scrollY") != last:
        last = page.evaluate("scrollY")
        page.mouse.wheel(0, 600)
        page.wait_for_function(
            "last => scrollY !== last || "
            "scrollY + innerHeight >= document.documentElement.scrollHeight - 1",
            arg=last,
        )


def test_the_first_click_creates_the_task_while_a_refresh_lands(page, live_server, planning):
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    sign_in(page, live_server.url, planning)
    page.goto(f"{live_server.url}/taken/nieuw")
    page.wait_for_load_state("load")
    held = Held(page, "**/taken/nieuw/controle")

    page.get_by_label("Naam").fill("Mest laden Rijssen")
    page.get_by_label("Tijd").fill("07:30")
    page.get_by_label("Verwachte duur (minuten)").fill("240")
    page.get_by_label("Chauffeur").select_option(label="Anna Klik")
    page.get_by_label("Voertuig").select_option(label="BX-77-KL")
    warnings = page.locator("#task-warnings")
    expect(warnings).to_have_class(re.compile(r"\bhtmx-request\b"))  # asked, answer held back
    expect(warnings).to_be_empty()
    scroll_to_the_end(page)

    button = page.get_by_role("button", name="Taak aanmaken")
    box = button.bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= 800  # on screen
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    held.release()  # the refresh lands while the button is held down
    expect(warnings).to_contain_text("Chauffeur dubbel geboekt")
    moved = button.bounding_box()
    page.mouse.up()

    expect(page.get_by_role("status").first).to_contain_text(
        "Taak “Mest laden Rijssen” is aangemaakt."
    )
    assert moved and abs(moved["y"] - box["y"]) < 1, (box, moved)
    assert errors == []


def test_the_first_click_creates_the_task_while_the_route_refresh_lands(
    page, live_server, planning
):
    """The route (customer, loading and unloading place) is redrawn above the button when
    the customer changes; that answer lands while the button is held."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    sign_in(page, live_server.url, planning)
    page.goto(f"{live_server.url}/taken/nieuw")
    page.wait_for_load_state("load")
    page.get_by_label("Naam").fill("Mest laden Markelo")
    page.get_by_label("Tijd").fill("22:00")
    held = Held(page, "**/taken/formulier/route")
    page.get_by_label("Klant", exact=True).select_option(label="Maatschap Hofstede")
    held.wait(page)
    scroll_to_the_end(page)

    button = page.get_by_role("button", name="Taak aanmaken")
    box = button.bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= 800
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    held.release()
    expect(page.get_by_label("Laadplaats")).to_contain_text("Stal Markelo")  # the answer is in
    moved = button.bounding_box()
    page.mouse.up()

    expect(page.get_by_role("status").first).to_contain_text(
        "Taak “Mest laden Markelo” is aangemaakt."
    )
    assert moved and abs(moved["y"] - box["y"]) < 1, (box, moved)
    assert errors == []


def test_the_builders_add_button_takes_the_first_click_while_a_save_lands(page, live_server):
    """The author mends the questions' ids and goes for "Toevoegen" below: the answer to the
    typing (its problems gone from the cards and the summary above) lands while the button is
    held."""
    author = create_user(live_server.app, live_server.carrier, "author")
    sign_in_as_author = live_server.url
    page.goto(f"{sign_in_as_author}/login")
    page.get_by_label("E-mailadres").fill(author.email)
    page.get_by_label("Wachtwoord").fill(PASSWORD)
    page.get_by_role("button", name="Aanmelden", exact=True).click()
    page.goto(f"{live_server.url}/vragenlijsten/nieuw")
    page.get_by_label("Titel").fill("Klik lossen")
    page.get_by_label("Activiteit").fill("klik_lossen")
    page.get_by_role("button", name="Aanmaken").click()
    expect(page).to_have_url(re.compile(r"/vragenlijsten/klik-lossen/concept$"))
    page.wait_for_load_state("load")
    add = page.locator("#add-q")
    for _ in range(3):
        before = page.locator("#editor .q-item").count()
        add.locator("select").select_option("text")
        add.get_by_role("button", name="Toevoegen").click()
        expect(page.locator("#editor .q-item")).to_have_count(before + 1)
    summary = page.locator("#problem-summary")
    for index in range(3):  # ids that are no ids: a problem each, listed above
        page.locator(f"#q-{index}-id").fill(f"vraag {index}")
        page.locator(f"#q-{index}-id").blur()
        page.wait_for_function("() => !document.querySelector('.htmx-request')")
    expect(summary).not_to_contain_text("Geen problemen")

    held = Held(page, "**/concept/vraag")
    for index in range(3):
        page.locator(f"#q-{index}-id").fill(f"vraag_{index}")
    page.locator("#q-2-id").blur()
    held.wait(page)
    scroll_to_the_end(page)
    button = add.get_by_role("button", name="Toevoegen")
    box = button.bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= 800
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    held.release()
    expect(summary).to_contain_text("Geen problemen")
    moved = button.bounding_box()
    page.mouse.up()

    expect(page.locator("#editor .q-item")).to_have_count(4)
    assert moved and abs(moved["y"] - box["y"]) < 1, (box, moved)
