"""The planning board in Chromium: create, drag, move by keyboard, cancel, live refresh.

The board tests use a carrier of their own on the shared live server, so the seeded
carrier's tasks (which tests/e2e/test_portal.py counts) stay as they are.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from factories import (
    PASSWORD,
    Ref,
    create_carrier,
    create_driver,
    create_task,
    create_user,
    create_vehicle,
    in_carrier,
)
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.e2e

AMS = ZoneInfo("Europe/Amsterdam")
SHOTS = Path(os.environ.get("RIJPLAN_E2E_SHOTS", "/tmp/e2e-shots"))


def today() -> date:
    return datetime.now(AMS).date()


def at(clock: str) -> datetime:
    return datetime.combine(today(), time.fromisoformat(clock), tzinfo=AMS).astimezone(UTC)


@dataclass
class Board:
    url: str
    app: object
    carrier: Ref
    planner: Ref
    anna: Ref
    bram: Ref


@pytest.fixture(scope="module")
def board(live_server) -> Board:
    app = live_server.app
    carrier = create_carrier(app, "Bord Transport BV")
    planner = create_user(app, carrier, "planner")
    anna = create_driver(app, carrier, "Anna Jansen")
    bram = create_driver(app, carrier, "Bram de Boer")
    for naam in ("Chris Smit", "Dirk Visser", "Eva de Wit", "Fenna Mulder", "Gert Bos"):
        create_driver(app, carrier, naam)
    truck = create_vehicle(app, carrier, "BX-12-AB")
    # A realistic day for the screenshots.
    create_task(app, carrier, anna, naam="Mest laden Enter", stad="Enter", gepland_op=at("06:30"),
                vehicle_id=truck.id, vdm_nummer="2611240815", agr_verplicht=True,
                require_photos=True, min_fotos=1, max_fotos=3)  # fmt: skip
    create_task(app, carrier, anna, naam="Mest lossen Markelo", type="mest_lossen",
                stad="Markelo", gepland_op=at("09:00"), vehicle_id=truck.id,
                vdm_nummer="2611240815", require_location=True, status="gestart")  # fmt: skip
    create_task(app, carrier, bram, naam="Biggen naar Deurne", type="vee_transport",
                stad="Deurne", gepland_op=at("05:45"), required_desinfectie=True,
                require_signature=True, status="afgerond")  # fmt: skip
    create_task(app, carrier, None, naam="Voer leveren Epe", type="voer_leveren", stad="Epe",
                gepland_op=at("13:00"), kooiaap=True, require_document_scan=True)  # fmt: skip
    create_task(app, carrier, None, naam="Koelvracht Venlo", type="koel_transport",
                stad="Venlo", gepland_op=at("15:30"), required_temperatuur=4.0,
                status="geannuleerd")  # fmt: skip
    return Board(live_server.url, app, carrier, planner, anna, bram)


def sign_in(page: Page, board: Board) -> None:
    page.goto(f"{board.url}/login")
    page.get_by_label("E-mailadres").fill(board.planner.email)
    page.get_by_label("Wachtwoord").fill(PASSWORD)
    page.get_by_role("button", name="Aanmelden", exact=True).click()
    expect(page.get_by_role("heading", name="Taken", level=1)).to_be_visible()
    # The heading shows before the deferred scripts have run; a key pressed then would
    # follow a link as a plain page instead of opening htmx's dialog.
    page.wait_for_load_state("load")


def lane(page: Page, title: str):
    return page.locator("section.lane").filter(has=page.get_by_role("heading", name=title, level=3))


def card(page: Page, naam: str):
    return page.locator("article.card").filter(has=page.get_by_role("link", name=naam))


@pytest.fixture
def console_errors(page):
    errors: list[str] = []
    # A 422 (errors at the fields) or 409/412 (a message) is an answer the page shows, not a
    # fault; Chromium still logs it as a failed resource.
    expected = re.compile(r"Failed to load resource: .* status of (422|409|412)\b")

    def on_console(message) -> None:
        if message.type == "error" and not expected.search(message.text):
            errors.append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    return errors


def test_planner_creates_a_task_and_sees_it_in_the_right_lane(page, board, shot, console_errors):
    sign_in(page, board)
    page.get_by_role("link", name="Nieuwe taak").click()
    expect(page.get_by_role("heading", name="Nieuwe taak", level=1)).to_be_visible()

    page.get_by_label("Soort").select_option(label="Mest laden")
    page.get_by_label("Naam").fill("Mest laden Hengelo")
    page.get_by_label("Plaats", exact=True).fill("Hengelo")
    page.get_by_label("VDM-nummer").fill("VDM-9001")
    expect(page.get_by_label("Datum")).to_have_value(today().isoformat())
    page.get_by_role("button", name="Taak aanmaken").click()
    # The time is missing: the error sits at the field, the rest of the input stays.
    error = page.locator("#gepland_tijd-error")
    expect(error).to_have_text("Kies ook een tijd.")
    expect(page.get_by_label("Naam")).to_have_value("Mest laden Hengelo")
    expect(page.get_by_label("Tijd")).to_have_attribute("aria-invalid", "true")
    # caret="initial": Playwright's caret hiding leaves style="" on every input, which
    # htmx's next swap would copy (a CSP report that no real browser makes).
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "board-10-form-error.png"), full_page=True, caret="initial")

    page.get_by_label("Tijd").fill("11:15")
    page.get_by_label("Chauffeur").select_option(label="Bram de Boer")
    page.get_by_label("Kooiaap nodig").check()
    page.get_by_role("button", name="Taak aanmaken").click()

    expect(page).to_have_url(f"{board.url}/taken?datum={today().isoformat()}")
    expect(page.get_by_role("status").first).to_contain_text("is aangemaakt")
    created = lane(page, "Bram de Boer").locator("article.card", has_text="Mest laden Hengelo")
    expect(created).to_have_count(1)
    expect(created).to_contain_text("11:15")
    expect(created).to_contain_text("Kooiaap")
    expect(created).to_contain_text("VDM VDM-9001")
    expect(lane(page, "Anna Jansen").get_by_text("Mest laden Hengelo")).to_have_count(0)
    assert console_errors == []


def test_dragging_a_card_to_another_lane_keeps_it_there(page, board, shot, console_errors):
    create_task(board.app, board.carrier, board.anna, naam="Sleep mij Goor", stad="Goor",
                gepland_op=at("10:00"))  # fmt: skip
    sign_in(page, board)
    source = card(page, "Sleep mij Goor")
    expect(lane(page, "Anna Jansen").get_by_text("Sleep mij Goor")).to_be_visible()
    shot(page, "board-01-day-1366")

    with page.expect_response(lambda r: "/verplaats" in r.url) as moved:
        source.drag_to(lane(page, "Bram de Boer"))
    assert moved.value.status == 200
    assert moved.value.request.headers.get("x-csrftoken")  # from hx-headers on <main>

    expect(page.locator("#board-message")).to_contain_text("verplaatst: Bram de Boer")
    target = lane(page, "Bram de Boer").locator("article.card", has_text="Sleep mij Goor")
    expect(target).to_have_count(1)
    page.reload()
    expect(lane(page, "Bram de Boer").get_by_text("Sleep mij Goor")).to_have_count(1)
    expect(lane(page, "Anna Jansen").get_by_text("Sleep mij Goor")).to_have_count(0)
    assert console_errors == []


def test_dragging_to_the_next_day(page, board):
    create_task(board.app, board.carrier, board.anna, naam="Morgen beter Delden",
                gepland_op=at("08:45"))  # fmt: skip
    sign_in(page, board)
    with page.expect_response(lambda r: "/verplaats" in r.url) as moved:
        card(page, "Morgen beter Delden").drag_to(page.get_by_role("link", name="Volgende dag"))
    assert moved.value.status == 200
    expect(page.locator("#board-message")).to_contain_text("Morgen beter Delden")
    expect(card(page, "Morgen beter Delden")).to_have_count(0)
    page.get_by_role("link", name="Volgende dag").click()
    moved_card = lane(page, "Anna Jansen").locator("article.card", has_text="Morgen beter Delden")
    expect(moved_card).to_contain_text("08:45")


def test_moving_a_card_with_the_keyboard(page, board, shot, console_errors):
    create_task(board.app, board.carrier, board.anna, naam="Toetsenbord Borne",
                gepland_op=at("12:00"))  # fmt: skip
    sign_in(page, board)
    move = card(page, "Toetsenbord Borne").get_by_role("link", name="Verplaats")
    move.focus()
    page.keyboard.press("Enter")

    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("heading")).to_have_text("Verplaats “Toetsenbord Borne”")
    shot(page, "board-20-move-dialog")
    dialog.get_by_label("Chauffeur").focus()
    dialog.get_by_label("Chauffeur").select_option(label="Bram de Boer")
    dialog.get_by_label("Tijd").fill("16:30")
    dialog.get_by_label("Tijd").press("Enter")  # submits the form

    expect(dialog).to_be_hidden()
    expect(page.locator("#board-message")).to_contain_text("Toetsenbord Borne")
    moved = lane(page, "Bram de Boer").locator("article.card", has_text="Toetsenbord Borne")
    expect(moved).to_contain_text("16:30")
    # The keyboard user goes on where the task went: the focus is on the moved card.
    expect(moved.locator(".card-title a")).to_be_focused()
    page.keyboard.press("Tab")
    expect(moved.get_by_role("button").first).to_be_focused()
    assert console_errors == []


def test_cancelling_asks_for_confirmation_first(page, board, shot, console_errors):
    create_task(board.app, board.carrier, board.bram, naam="Annuleer Rijssen",
                gepland_op=at("14:00"))  # fmt: skip
    sign_in(page, board)
    target = card(page, "Annuleer Rijssen")
    target.get_by_role("button", name="Annuleren…").click()

    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_role("heading")).to_have_text("Taak “Annuleer Rijssen” annuleren?")
    shot(page, "board-21-cancel-dialog")
    dialog.get_by_role("button", name="Nee, terug").click()
    expect(dialog).to_be_hidden()
    expect(target.locator(".status")).to_have_text("Gepland")

    target.get_by_role("button", name="Annuleren…").click()
    page.get_by_role("dialog").get_by_role("button", name="Ja, annuleer de taak").click()

    expect(page.get_by_role("dialog")).to_be_hidden()
    expect(page.locator("#board-message")).to_contain_text("is geannuleerd")
    expect(card(page, "Annuleer Rijssen").locator(".status")).to_have_text("Geannuleerd")
    expect(card(page, "Annuleer Rijssen").locator("[data-move]")).to_have_count(0)
    assert console_errors == []


def test_a_refresh_keeps_the_scrolled_board_in_place(page, board, shot):
    page.set_viewport_size({"width": 1366, "height": 700})
    sign_in(page, board)
    lanes = page.locator("#lanes")
    lanes.evaluate("el => { el.scrollLeft = 400; }")
    page.evaluate("window.scrollTo(0, 120)")
    before = (lanes.evaluate("el => el.scrollLeft"), page.evaluate("window.scrollY"))
    assert before[0] > 0 and before[1] > 0
    page.evaluate("window.__notReloaded = true")
    # htmx's afterSettle for the board, after the board's own handler has restored the
    # scroll (the response arriving is not enough: the swap and settle come after it).
    page.evaluate("""window.__boardSettled = new Promise(done =>
        document.addEventListener("htmx:afterSettle", e => {
            if (document.getElementById("board").contains(e.target)) done(true);
        }))""")

    with page.expect_response(lambda r: r.url.endswith("/taken")
                              and r.request.headers.get("hx-request") == "true"):  # fmt: skip
        page.evaluate("htmx.trigger(document.body, 'tasksChanged')")
    assert page.evaluate("window.__boardSettled") is True

    assert page.evaluate("window.__notReloaded") is True
    assert (page.locator("#lanes").evaluate("el => el.scrollLeft"),
            page.evaluate("window.scrollY")) == before  # fmt: skip


def test_review_screenshots(page, board, shot):
    """The board as a planner sees it, wide and on a phone, by driver and by status."""
    sign_in(page, board)
    page.set_viewport_size({"width": 1366, "height": 900})
    shot(page, "board-02-day-1366")
    page.get_by_role("link", name="Per status").click()
    expect(page.locator("#col-gestart")).to_be_visible()
    shot(page, "board-03-status-1366")
    page.set_viewport_size({"width": 420, "height": 900})
    shot(page, "board-04-status-420")
    page.get_by_role("link", name="Per chauffeur").click()
    expect(page.locator("#board")).to_be_visible()
    shot(page, "board-05-day-420")
    page.locator("#board").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "board-05b-day-420-top.png"))
    card(page, "Mest laden Enter").get_by_role("link", name="Verplaats").click()
    expect(page.get_by_role("dialog")).to_be_visible()
    page.screenshot(path=str(SHOTS / "board-22-move-dialog-420.png"))
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_be_hidden()
    page.set_viewport_size({"width": 1366, "height": 900})
    card(page, "Mest laden Enter").get_by_role("link", name="Bewerken").click()
    expect(page.get_by_role("heading", name="Taak bewerken")).to_be_visible()
    shot(page, "board-11-form-1366")
    page.set_viewport_size({"width": 420, "height": 900})
    shot(page, "board-12-form-420")
    page.goto(f"{board.url}/taken?q=bestaat-niet")
    expect(page.get_by_text("Geen taken gevonden met deze filters.")).to_be_visible()
    shot(page, "board-06-empty-420")
    assert re.search(r"q=bestaat-niet", page.url)


def test_the_poll_waits_while_a_dialog_is_open(page, board):
    page.clock.install()
    sign_in(page, board)
    # Count the board's requests on <body>: expect() waits for it without evaluating script
    # (the page's CSP forbids eval, which wait_for_function would need).
    page.evaluate(
        "document.body.dataset.polls = 0; document.addEventListener('htmx:beforeRequest', e => {"
        " if (e.target.id === 'board') document.body.dataset.polls++; });"
    )
    polls = page.locator("body")
    page.clock.run_for("00:21")
    expect(polls).to_have_attribute("data-polls", "1")

    card(page, "Mest laden Enter").get_by_role("link", name="Verplaats").click()
    expect(page.get_by_role("dialog")).to_be_visible()
    page.clock.run_for("01:00")
    assert page.evaluate("document.body.dataset.polls") == "1"  # three polls skipped

    page.get_by_role("dialog").get_by_role("button", name="Sluiten").click()
    expect(page.get_by_role("dialog")).to_be_hidden()
    expect(polls).to_have_attribute("data-polls", "2")  # caught up at once


def test_a_change_while_a_poll_is_on_its_way_still_shows_at_once(page, board):
    """A slow poll in flight must not swallow the refresh a change asks for (it used to be
    queued behind the poll and lost when the poll's answer replaced the board)."""
    page.clock.install()
    sign_in(page, board)
    page.evaluate(
        "document.body.dataset.polls = 0; document.addEventListener('htmx:beforeRequest', e => {"
        " if (e.target.id === 'board') document.body.dataset.polls++; });"
    )
    held = []

    def hold_first_poll(route) -> None:
        if not held and route.request.headers.get("hx-request"):
            held.append(route)  # never answered: a poll stuck on a slow network
            return
        route.continue_()

    page.route(re.compile(r"/taken(\?.*)?$"), hold_first_poll)
    try:
        page.clock.run_for("00:21")
        expect(page.locator("body")).to_have_attribute("data-polls", "1")
        assert held, "the poll was not sent"
        create_task(board.app, board.carrier, board.bram, naam="Stro halen Lochem",
                    stad="Lochem", gepland_op=at("11:15"))  # fmt: skip
        page.evaluate("document.body.dispatchEvent(new Event('tasksChanged'))")
        expect(page.locator("body")).to_have_attribute("data-polls", "2")
        expect(card(page, "Stro halen Lochem")).to_be_visible()
    finally:
        page.unroute_all(behavior="ignoreErrors")


def test_a_status_button_by_keyboard_keeps_the_place_on_the_board(page, board, console_errors):
    create_task(board.app, board.carrier, board.anna, naam="Start mij Haaksbergen",
                gepland_op=at("07:10"))  # fmt: skip
    sign_in(page, board)
    target = card(page, "Start mij Haaksbergen")
    target.get_by_role("button", name="Starten").focus()
    with page.expect_response(lambda r: r.url.endswith("/status")) as answer:
        page.keyboard.press("Enter")
    assert answer.value.status == 200

    expect(target.locator(".status")).to_have_text("Gestart")
    expect(target.get_by_role("button", name="Afronden")).to_be_visible()
    # The pressed button is gone; focus stays on the same card, not at the top of the page.
    expect(target.get_by_role("link", name="Start mij Haaksbergen")).to_be_focused()
    assert console_errors == []


def test_searching_narrows_the_board_and_the_refresh_keeps_the_filter(page, board):
    sign_in(page, board)
    page.evaluate("window.__notReloaded = true")
    page.get_by_label("Zoeken").fill("markelo")

    expect(page).to_have_url(f"{board.url}/taken?q=markelo")  # the tidy URL, pushed
    expect(page.locator("#board article.card")).to_have_count(1)
    expect(card(page, "Mest lossen Markelo")).to_be_visible()
    with page.expect_response(lambda r: "q=markelo" in r.url):
        page.evaluate("htmx.trigger(document.body, 'tasksChanged')")
    expect(page.locator("#board article.card")).to_have_count(1)
    assert page.evaluate("window.__notReloaded") is True


# --- planning warnings and moving with a vehicle (issue 10, point 3) ------------------------


def livestock_approved(board, vehicle: Ref) -> None:
    """The vehicle has the capability livestock transport needs (an NVWA approval)."""
    from portal.extensions import db
    from portal.fleet.models import VehicleCapability

    def add():
        db.session.add(
            VehicleCapability(
                transporteur_id=board.carrier.id,
                vehicle_id=vehicle.id,
                code="vee",
                parameters={"nvwa_nummer": "NL-12345"},
            )
        )

    in_carrier(board.app, board.carrier.id, add)


def test_a_double_booked_vehicle_warns_on_both_cards(page, board, shot, console_errors):
    hanna = create_driver(board.app, board.carrier, "Hanna Kok")
    ivo = create_driver(board.app, board.carrier, "Ivo Bakker")
    truck = create_vehicle(board.app, board.carrier, "VZH-56-E")
    livestock_approved(board, truck)  # the double booking alone: no capability is missing
    create_task(board.app, board.carrier, hanna, naam="Vee Hengelo", type="vee_transport",
                stad="Hengelo", gepland_op=at("10:00"), vehicle_id=truck.id)  # fmt: skip
    create_task(board.app, board.carrier, ivo, naam="Vee Haaksbergen", type="vee_transport",
                stad="Haaksbergen", gepland_op=at("11:00"), vehicle_id=truck.id,
                vdm_nummer="VDM-12")  # fmt: skip
    sign_in(page, board)
    page.set_viewport_size({"width": 1366, "height": 900})

    first, second = card(page, "Vee Hengelo"), card(page, "Vee Haaksbergen")
    expect(first.locator(".warn-badge")).to_have_text("⚠ 1 waarschuwing")
    expect(first).to_contain_text("Voertuig VZH-56-E dubbel geboekt: ook “Vee Haaksbergen” om")
    expect(first).to_contain_text("bij Ivo Bakker")
    expect(second.locator(".warn-badge")).to_have_text("⚠ 2 waarschuwingen")
    expect(second).to_contain_text("VDM-nummer VDM-12 heeft niet de verwachte vorm")
    title = first.locator(".warn-badge").get_attribute("title")
    assert title.startswith("Voertuig VZH-56-E dubbel geboekt: ook “Vee Haaksbergen”")
    lane(page, "Hanna Kok").scroll_into_view_if_needed()
    shot(page, "board-30-warnings-nl")
    page.set_viewport_size({"width": 420, "height": 900})
    first.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "board-30b-warnings-nl-420.png"))
    page.set_viewport_size({"width": 1366, "height": 900})

    page.get_by_role("button", name="English").click()
    try:
        expect(first).to_contain_text("Vehicle VZH-56-E double-booked: also “Vee Haaksbergen”")
        expect(second.locator(".warn-badge")).to_have_text("⚠ 2 warnings")
        expect(second).to_contain_text("does not have the expected format: 10 digits")
        lane(page, "Hanna Kok").scroll_into_view_if_needed()
        shot(page, "board-31-warnings-en")
    finally:
        page.get_by_role("button", name="Nederlands").click()  # the planner's language again
    expect(page.get_by_role("heading", name="Taken", level=1)).to_be_visible()
    assert console_errors == []


def test_dropping_a_card_with_a_vehicle_asks_whether_it_goes_along(
    page, board, shot, console_errors
):
    trailer = create_vehicle(board.app, board.carrier, "OT-48-KX")
    create_task(board.app, board.carrier, board.anna, naam="Tank Lochem", stad="Lochem",
                gepland_op=at("20:00"), vehicle_id=trailer.id)  # fmt: skip
    sign_in(page, board)
    # Both lanes on the screen: the board of this module gathers the cards of every test
    # before it, and a drag that has to scroll the page on its way is no drop (Chromium).
    page.set_viewport_size({"width": 1366, "height": 2000})
    lane(page, "Anna Jansen").scroll_into_view_if_needed()

    card(page, "Tank Lochem").drag_to(lane(page, "Bram de Boer"))

    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("heading")).to_have_text("“Tank Lochem” naar Bram de Boer")
    expect(dialog).to_contain_text("Gaat voertuig OT-48-KX mee naar Bram de Boer?")
    expect(lane(page, "Anna Jansen").get_by_role("link", name="Tank Lochem")).to_have_count(1)
    shot(page, "board-32-drop-asks-vehicle")
    with page.expect_response(
        lambda r: "/verplaats" in r.url and r.request.method == "POST"
    ) as moved:
        dialog.get_by_role("button", name="Nee, zonder voertuig").click()
    assert moved.value.status == 200

    expect(dialog).to_be_hidden()
    # (by its title: another card's warning may name it)
    target = (
        lane(page, "Bram de Boer")
        .locator("article.card")
        .filter(has=page.get_by_role("link", name="Tank Lochem"))
    )
    expect(target).to_have_count(1)
    expect(target).not_to_contain_text("OT-48-KX")
    assert console_errors == []


def test_the_keyboard_move_asks_about_the_vehicle_too(page, board, console_errors):
    SHOTS.mkdir(parents=True, exist_ok=True)
    cart = create_vehicle(board.app, board.carrier, "BX-34-CD")
    create_task(board.app, board.carrier, board.anna, naam="Voer Rekken", type="voer_leveren",
                gepland_op=at("18:30"), vehicle_id=cart.id)  # fmt: skip
    sign_in(page, board)
    move = card(page, "Voer Rekken").get_by_role("link", name="Verplaats")
    move.focus()
    page.keyboard.press("Enter")

    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_role("group", name="Gaat voertuig BX-34-CD mee")).to_be_visible()
    expect(dialog.get_by_label("Ja, het voertuig gaat mee")).to_be_checked()
    page.screenshot(path=str(SHOTS / "board-21-move-dialog-vehicle.png"), caret="initial")
    dialog.get_by_label("Chauffeur").select_option(label="Bram de Boer")
    # Submitted with a click (no keyboard focus ring then): the focus still finds the card.
    dialog.get_by_role("button", name="Verplaatsen").click()

    expect(dialog).to_be_hidden()
    moved = (
        lane(page, "Bram de Boer")
        .locator("article.card")
        .filter(has=page.get_by_role("link", name="Voer Rekken"))
    )
    expect(moved).to_contain_text("BX-34-CD")
    expect(moved.locator(".card-title a")).to_be_focused()
    assert console_errors == []


def test_the_task_form_warns_while_the_planner_fills_it_in(page, board, console_errors):
    sign_in(page, board)
    page.get_by_role("link", name="Nieuwe taak").click()
    page.wait_for_load_state("load")  # htmx listens for the form's changes only from here
    page.get_by_label("Naam").fill("Mest laden Rijssen")
    page.get_by_label("Chauffeur").select_option(label="Anna Jansen")
    warnings = page.locator("#task-warnings")
    expect(warnings).to_be_empty()

    # 06:45 falls within Anna's "Mest laden Enter" (06:30, an hour): the form says so at once.
    with page.expect_response(lambda r: r.url.endswith("/taken/nieuw/controle")):
        page.get_by_label("Tijd").fill("06:45")
        page.get_by_label("Tijd").blur()
    expect(warnings).to_contain_text("Chauffeur dubbel geboekt: ook “Mest laden Enter” om")
    page.get_by_label("VDM-nummer").fill("12-34")
    page.get_by_label("VDM-nummer").blur()
    expect(warnings).to_contain_text("VDM-nummer 12-34 heeft niet de verwachte vorm")
    expect(page.get_by_label("Naam")).to_have_value("Mest laden Rijssen")  # nothing lost
    warnings.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "board-33-form-warnings.png"), caret="initial")

    page.get_by_label("Tijd").fill("23:00")  # a free hour: only the VDM number is left
    page.get_by_label("Tijd").blur()
    expect(warnings).not_to_contain_text("dubbel geboekt")
    expect(warnings).to_contain_text("VDM-nummer 12-34")
    page.get_by_role("button", name="Taak aanmaken").click()  # a warning never blocks

    expect(page.get_by_role("status").first).to_contain_text("is aangemaakt")
    expect(page.locator(".flash-warning")).to_contain_text("Let op: VDM-nummer 12-34")
    created = card(page, "Mest laden Rijssen")
    expect(created.locator(".warn-badge")).to_be_visible()
    assert console_errors == []


def test_the_import_preview_warns_about_double_bookings_and_repeats(page, board, shot):
    sign_in(page, board)
    page.goto(f"{board.url}/taken/import")
    day = today().isoformat()
    rows = "\n".join([
        "naam;type;gepland_op;chauffeur;kenteken;vdm_nummer;stad;agr_verplicht",
        f"Mest laden Enter;mest_laden;{day} 06:30;Anna Jansen;BX-12-AB;2611240815;Enter;ja",
        f"Mest Diepenheim;mest_laden;{day} 07:00;Bram de Boer;BX-12-AB;;Diepenheim;ja",
        f"Voer Laren;voer_leveren;{day} 21:00;Gert Bos;;VDM 7;Laren;nee",
        f"Voer Laren;voer_leveren;{day} 21:00;Gert Bos;;VDM 7;Laren;nee",
    ])  # fmt: skip
    page.get_by_label("CSV-bestand").set_input_files(
        files=[{"name": "taken.csv", "mimeType": "text/csv", "buffer": rows.encode()}]
    )
    page.get_by_role("button", name="Bekijk voorbeeld").click()

    expect(page.get_by_role("heading", name="Voorbeeld van de import")).to_be_visible()
    table = page.locator("table.import-table")
    expect(table).to_contain_text("Deze taak bestaat al: “Mest laden Enter”")
    expect(table).to_contain_text("Voertuig BX-12-AB dubbel geboekt: ook “Mest laden Enter”")
    expect(table).to_contain_text("Deze rij staat ook op regel 4 van het bestand.")
    expect(table).to_contain_text("VDM-nummer VDM 7 heeft niet de verwachte vorm")
    expect(page.get_by_role("button", name="4 taken importeren")).to_be_enabled()
    page.set_viewport_size({"width": 1366, "height": 900})
    shot(page, "board-34-import-warnings")
