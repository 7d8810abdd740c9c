"""An author builds a questionnaire in the browser, tries it in the live preview, publishes it,
and it reaches the API and a new task's vragenpad; the driver's app answers it and the planner
reads the answers."""

from __future__ import annotations

import contextlib
import re

import pytest
from factories import (
    PASSWORD,
    create_api_key,
    create_carrier,
    create_driver,
    create_user,
    png_bytes,
)
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from e2e.test_portal import sign_in

pytestmark = pytest.mark.e2e


def add(page: Page, qtype: str, into: str = "q") -> None:
    """Add a question of a type at the end of the questionnaire or of group card `into`."""
    form = page.locator(f"#add-{into}")
    before = page.locator("#editor .q-item").count()
    form.locator("select").select_option(qtype)
    form.get_by_role("button", name="Toevoegen").click()
    expect(page.locator("#editor .q-item")).to_have_count(before + 1)


def saved(page: Page) -> None:
    """Wait until every edit has reached the server (htmx requests done)."""
    page.wait_for_function("() => !document.querySelector('.htmx-request')")
    page.wait_for_timeout(150)
    page.wait_for_function("() => !document.querySelector('.htmx-request')")


def type_into(page: Page, selector: str, text: str) -> None:
    field = page.locator(selector)
    field.fill(text)
    field.blur()
    saved(page)


def test_an_author_builds_previews_and_publishes_a_questionnaire(page, live_server, shot):
    app = live_server.app
    # A carrier of its own: the task it plans must not show on the other tests' boards.
    carrier = create_carrier(app, "Kuikenhandel Barneveld")
    author = create_user(app, carrier, "author")
    planner = create_user(app, carrier, "planner")
    key = create_api_key(app, carrier, "TMS kuikens")
    driver = create_driver(app, carrier, "Gerrit Kuiken")
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    sign_in(page, live_server, author)
    page.goto(f"{live_server.url}/vragenlijsten")
    shot(page, "builder-00-list")
    page.get_by_role("link", name="Nieuwe vragenlijst").first.click()
    page.get_by_label("Titel").fill("Kuikens laden")
    expect(page.get_by_label("Vragenlijst-id")).to_have_value("kuikens-laden")  # suggested
    page.get_by_label("Activiteit").fill("kuikens_laden")
    page.get_by_role("button", name="Aanmaken").click()
    expect(page).to_have_url(re.compile(r"/vragenlijsten/kuikens-laden/concept$"))
    expect(page.locator("#preview")).to_contain_text("Voeg een vraag toe")

    # A group with a select and a number with min and max.
    add(page, "group")
    expect(page.locator("#q-0-label")).to_be_focused()  # the new question's text, ready to type
    type_into(page, "#q-0-label", "Lading")
    add(page, "select", into="q-0")
    type_into(page, "#q-0-0-label", "Soort dieren")
    type_into(page, "#q-0-0-id", "soort")
    type_into(page, "#q-0-0-opt-0", "Vleeskuikens")
    type_into(page, "#q-0-0-opt-1", "Leghennen")
    add(page, "integer", into="q-0")
    type_into(page, "#q-0-1-label", "Aantal dieren")
    type_into(page, "#q-0-1-id", "aantal")
    page.locator("#q-0-1 .q-validation > summary").click()  # folded while there is no rule
    type_into(page, "#q-0-1-v-min", "1")
    type_into(page, "#q-0-1-v-max", "30000")

    # A text with a regex, shown only for laying hens.
    add(page, "text")
    type_into(page, "#q-1-label", "Reden leghennen")
    type_into(page, "#q-1-id", "reden")
    page.locator("#q-1-cond-mode").select_option("als")
    saved(page)
    expect(page.locator("#q-1-cond-q")).to_have_value("aantal")  # the nearest earlier question
    # Only earlier questions that take an answer are offered.
    assert page.locator("#q-1-cond-q option").evaluate_all("o => o.map(x => x.value)") == [
        "soort",
        "aantal",
    ]
    page.locator("#q-1-cond-q").select_option("soort")
    saved(page)
    operators = page.locator("#q-1-cond-op option").evaluate_all("o => o.map(x => x.value)")
    assert operators == ["eq", "neq", "empty", "not_empty", "in", "not_in"]  # fit a select
    page.locator("#q-1-cond-value").select_option("Leghennen")
    saved(page)
    add(page, "text")
    type_into(page, "#q-2-label", "Kenteken stal")
    type_into(page, "#q-2-id", "kenteken")
    page.locator("#q-2 .q-validation > summary").click()
    type_into(page, "#q-2-v-regex", "[A-Z]{2}-[0-9]{2,3}")

    # A calculated field, checked as it is typed.
    add(page, "calculated")
    type_into(page, "#q-3-label", "Kratten")
    type_into(page, "#q-3-id", "kratten")
    page.locator("#q-3-formula").fill("aantal /")
    expect(page.locator("#q-3-formula-status")).to_contain_text("Klopt nog niet")
    page.locator("#q-3-formula").fill("aantal / 20")
    expect(page.locator("#q-3-formula-status")).to_contain_text("ok")
    expect(page.locator("#q-3-formula-status")).to_contain_text("aantal")
    saved(page)

    # A photo question with at most two files.
    add(page, "photo")
    type_into(page, "#q-4-label", "Foto stal")
    type_into(page, "#q-4-id", "foto")
    type_into(page, "#q-4-max_files", "2")
    expect(page.locator("#problem-summary")).to_contain_text("Geen problemen")

    # Keyboard: Alt+Up on the focused photo question moves it above the calculation.
    page.locator("#toggle-q-4").focus()
    page.keyboard.press("Alt+ArrowUp")
    expect(page.locator("#q-3 .q-title")).to_contain_text("Foto stal")
    expect(page.locator("#mv-q-3-op")).to_be_focused()
    page.keyboard.press("Alt+ArrowDown")
    expect(page.locator("#q-4 .q-title")).to_contain_text("Foto stal")
    # Drag and drop (cards folded, so the whole list fits the screen): the photo question to
    # the top of the list, and back to the end.
    page.set_viewport_size({"width": 1280, "height": 1400})
    page.get_by_role("button", name="Alles inklappen").click()
    page.locator("#q-4 [data-drag-handle]").drag_to(
        page.locator("#q-0 > .q-card > .q-head"), target_position={"x": 60, "y": 2}
    )
    expect(page.locator("#title-q-0")).to_contain_text("Foto stal")
    last = page.locator("#q-4 > .q-card > .q-head")
    page.locator("#q-0 [data-drag-handle]").drag_to(
        last, target_position={"x": 60, "y": last.bounding_box()["height"] - 2}
    )
    expect(page.locator("#title-q-4")).to_contain_text("Foto stal")
    page.get_by_role("button", name="Alles uitklappen").click()
    expect(page.locator("#q-0-label")).to_be_visible()
    page.set_viewport_size({"width": 1280, "height": 800})
    shot(page, "builder-01-editor")

    # The live preview: hidden, shown, validated and computed by the server's engine.
    preview = page.locator("#preview")
    expect(preview.locator("#pv-soort")).to_be_visible()
    expect(preview.locator("#pv-reden")).to_have_count(0)
    expect(preview.locator("#pv-foto")).to_be_disabled()
    expect(preview).to_contain_text("max 2 bestanden")
    preview.locator("#pv-soort").select_option("Leghennen")
    expect(preview.locator("#pv-reden")).to_be_visible()
    preview.locator("#pv-aantal").fill("40000")
    expect(preview.locator("#pv-aantal-wrap")).to_contain_text("Hoogstens 30000.")
    preview.locator("#pv-aantal").fill("200")
    expect(preview.locator("#pv-kratten")).to_contain_text("10")
    expect(preview.locator("#pv-aantal-wrap")).not_to_contain_text("Hoogstens")
    preview.locator("#pv-kenteken").fill("abc")
    preview.get_by_role("button", name="Controleer").click()
    expect(preview.locator("#pv-kenteken-wrap")).to_contain_text(
        "Dit heeft niet de gevraagde vorm."
    )
    expect(preview).to_contain_text("1 antwoord moet nog worden verbeterd.")
    preview.locator("#pv-soort").select_option("Vleeskuikens")
    expect(preview.locator("#pv-reden")).to_have_count(0)
    shot(page, "builder-02-preview")

    # Publish: the impact, then the revision.
    page.get_by_role("link", name="Publiceren…").click()
    expect(page.locator("body")).to_contain_text(
        "Er is nu geen actieve revisie voor deze activiteit"
    )
    expect(page.locator("body")).to_contain_text("De eerste revisie")
    page.get_by_role("button", name="Ja, publiceer revisie 1").click()
    expect(page).to_have_url(re.compile(r"/vragenlijsten/kuikens-laden/revisies$"))
    expect(page.locator(".flash")).to_contain_text("Revisie 1 van “Kuikens laden” is gepubliceerd")

    api = page.request
    auth = {"Authorization": f"Bearer {key.key}"}
    listed = api.get(
        f"{live_server.url}/api/v1/activity_questionnaires?activity_type=kuikens_laden",
        headers=auth,
    ).json()
    assert [(q["questionnaire_id"], q["is_active"]) for q in listed] == [("kuikens-laden", True)]
    definition = listed[0]["definition"]
    group = definition["questions"][0]
    assert [q["id"] for q in group["questions"]] == ["soort", "aantal"]
    assert group["questions"][1]["validation"] == {
        "min": 1,
        "max": 30000,
        "minlength": None,
        "maxlength": None,
        "regex": None,
    }
    assert definition["questions"][1]["visible_if"] == {
        "question_id": "soort",
        "operator": "eq",
        "value": "Leghennen",
    }
    assert definition["questions"][2]["validation"]["regex"] == "[A-Z]{2}-[0-9]{2,3}"
    assert definition["questions"][3]["formula"] == "aantal / 20"
    assert definition["questions"][4]["max_files"] == 2

    created = api.post(
        f"{live_server.url}/api/v1/users/{driver.user_token}/taken",
        headers=auth,
        data={"type": "kuikens_laden", "naam": "Kuikens laden Barneveld", "stad": "Barneveld"},
    )
    assert created.status == 201, created.text()
    task = created.json()
    assert task["vragenpad"]["questionnaire_id"] == "kuikens-laden"
    assert task["vragenpad"] == definition

    # The driver's app answers it: wrong answers get 422 per question and nothing is kept,
    # right ones are stored (hidden ones dropped, the calculation done by the server).
    signed = api.post(
        f"{live_server.url}/api/v1/auth/token",
        data={"grant_type": "password", "username": driver.email, "password": PASSWORD},
    )
    assert signed.ok, signed.text()
    app_auth = {"Authorization": f"Bearer {signed.json()['access_token']}"}
    photos = [
        api.post(
            f"{live_server.url}/api/v1/bestanden",
            headers=app_auth,
            multipart={
                "soort": "photo",
                "file": {"name": f"stal{n}.png", "mimeType": "image/png", "buffer": png_bytes()},
            },
        ).json()["id"]
        for n in range(3)
    ]
    answers_url = f"{live_server.url}/api/v1/questionnaire_answers"
    wrong = api.post(
        answers_url,
        headers=app_auth,
        data={
            "taak_id": task["id"],
            "answers": {"soort": "Leghennen", "aantal": 40000, "kenteken": "abc", "foto": photos},
            "indienen": True,
        },
    )
    assert wrong.status == 422
    problems = {e["question_id"]: e["message"] for e in wrong.json()["errors"]}
    assert set(problems) == {"aantal", "kenteken", "foto"}, problems
    right = api.post(
        answers_url,
        headers=app_auth,
        data={
            "taak_id": task["id"],
            "answers": {
                "soort": "Vleeskuikens",
                "aantal": 200,
                "kenteken": "NB-123",
                "reden": "verborgen, dus niet bewaard",
                "foto": photos[:2],
            },
            "indienen": True,
        },
    )
    assert right.status == 201, right.text()
    stored = right.json()
    assert stored["status"] == "ingediend"
    assert stored["answers"] == {
        "soort": "Vleeskuikens",
        "aantal": 200,
        "kenteken": "NB-123",
        "kratten": 10,
        "foto": photos[:2],
    }

    # A second version: a draft from revision 1, one change, compared side by side.
    page.get_by_role("button", name="Concept starten").click()
    expect(page).to_have_url(re.compile(r"/concept$"))
    type_into(page, "#q-0-1-label", "Aantal kuikens")
    page.goto(f"{live_server.url}/vragenlijsten/kuikens-laden/vergelijken?van=1&naar=concept")
    expect(page.locator("#nieuw-q-0-1")).to_have_class(re.compile("ro-changed"))
    expect(page.locator("#nieuw-q-0-1")).to_contain_text("Aantal kuikens")
    shot(page, "builder-03-compare")

    # The planner reads the filled-in questionnaire, photos included, and can print it.
    page.context.clear_cookies()
    sign_in(page, live_server, planner)
    page.goto(f"{live_server.url}/antwoorden?chauffeur={driver.user_token}")
    card = page.locator("article.answer-card", has_text="Kuikens laden")
    expect(card).to_contain_text("revisie 1")
    expect(card).to_contain_text("Aantal dieren")  # the label of revision 1, not the draft's
    expect(card).to_contain_text("Kratten")
    expect(card.locator("dd", has_text="10")).to_have_count(1)
    expect(card.locator("img")).to_have_count(2)
    for image in card.locator("img").all():
        expect(image).to_have_js_property("complete", True)
        assert image.evaluate("img => img.naturalWidth") > 0  # loaded through its signed link
    expect(card).not_to_contain_text("Reden leghennen")
    card.get_by_role("link", name="Kuikens laden").click()
    expect(page.get_by_role("button", name="Afdrukken")).to_be_visible()
    shot(page, "builder-04-answers")
    assert errors == []


def test_removing_asks_first_and_a_second_tab_never_overwrites(page, context, live_server):
    from factories import in_carrier

    from portal.audit.service import SYSTEM
    from portal.questionnaires import service

    app, carrier = live_server.app, live_server.carrier
    author = create_user(app, carrier, "author")
    doc = {
        "schema_version": 1,
        "questionnaire_id": "tabbladen",
        "title": "Twee tabbladen",
        "activity_type": "tabbladen",
        "questions": [
            {"id": "eerste", "type": "text", "label": "Eerste vraag"},
            {"id": "tweede", "type": "number", "label": "Tweede vraag"},
        ],
    }
    in_carrier(
        app,
        carrier.id,
        lambda: service.create_draft(carrier_id=carrier.id, doc=doc, user_id=None, actor=SYSTEM),
    )
    sign_in(page, live_server, author)
    url = f"{live_server.url}/vragenlijsten/tabbladen/concept"
    page.goto(url)

    # Removing asks first; "no" keeps the question.
    page.get_by_role("link", name="Vraag “Tweede vraag” verwijderen").click()
    dialog = page.locator("#builder-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("“Tweede vraag” verwijderen?")
    dialog.get_by_role("button", name="Nee, terug").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#editor .q-item")).to_have_count(2)
    page.get_by_role("link", name="Vraag “Tweede vraag” verwijderen").click()
    dialog.get_by_role("button", name="Ja, verwijderen").click()
    expect(page.locator("#editor .q-item")).to_have_count(1)
    expect(dialog).to_be_hidden()
    expect(page.locator("#toggle-q-0")).to_be_focused()

    # A second tab saves; the first tab's next change is refused, not lost silently.
    other = context.new_page()
    other.goto(url)
    other.locator("#q-0-label").fill("Uit het tweede tabblad")
    other.locator("#q-0-label").blur()
    expect(other.locator("#save-status")).to_contain_text("Opgeslagen")
    saved(other)
    page.locator("#q-0-label").fill("Uit het eerste tabblad")
    page.locator("#q-0-label").blur()
    alert = page.locator("#builder-alert")
    expect(alert).to_contain_text("intussen gewijzigd")
    expect(alert.get_by_role("link", name="Concept opnieuw laden")).to_be_focused()
    alert.get_by_role("link", name="Concept opnieuw laden").click()
    expect(page.locator("#q-0-label")).to_have_value("Uit het tweede tabblad")
    other.close()


# --- typing while answers arrive ------------------------------------------------------------

RATES = {
    "schema_version": 1,
    "questionnaire_id": "tarieven",
    "title": "Tarieven",
    "activity_type": "tarieven",
    "questions": [
        {"id": "gewicht", "type": "number", "label": "Gewicht", "unit": "ton"},
        {"id": "tarief", "type": "number", "label": "Tarief per ton", "unit": "EUR"},
        {
            "id": "totaal",
            "type": "calculated",
            "label": "Totaal",
            "formula": "gewicht * tarief",
            "unit": "EUR",
        },
        {"id": "soort", "type": "select", "label": "Soort", "options": ["Mest", "Voer", "Vee"]},
    ],
}
KEY_DELAY = 90  # ms between keystrokes: a steady typist


class Held:
    """Requests to a builder URL held back until released: an answer on a slow line."""

    def __init__(self, page: Page, pattern: str, wanted=lambda request: True) -> None:
        self.routes: list = []
        self.holding = True

        def handle(route):
            if self.holding and wanted(route.request):
                self.routes.append(route)
            else:
                route.continue_()

        page.route(pattern, handle)

    def wait(self, page: Page, count: int = 1) -> None:
        """Until `count` requests are held (htmx sent them); route handlers run while the page
        is waited on, so this polls the page rather than sleeping."""
        for _ in range(250):
            if len(self.routes) >= count:
                return
            page.wait_for_timeout(20)
        raise AssertionError(f"{count} request(s) expected, {len(self.routes)} held")

    def release(self) -> None:
        self.holding = False
        for route in self.routes:
            # A request htmx replaced meanwhile was aborted: it has no answer left to give.
            with contextlib.suppress(PlaywrightError):
                route.continue_()
        self.routes.clear()


def open_rates(page: Page, live_server, questionnaire_id: str = "tarieven") -> None:
    from factories import in_carrier

    from portal.audit.service import SYSTEM
    from portal.questionnaires import service

    app, carrier = live_server.app, live_server.carrier
    author = create_user(app, carrier, "author")
    doc = {**RATES, "questionnaire_id": questionnaire_id, "activity_type": questionnaire_id}
    in_carrier(
        app,
        carrier.id,
        lambda: service.create_draft(carrier_id=carrier.id, doc=doc, user_id=None, actor=SYSTEM),
    )
    sign_in(page, live_server, author)
    page.goto(f"{live_server.url}/vragenlijsten/{questionnaire_id}/concept")
    expect(page.locator("#pv-gewicht")).to_be_visible()


def test_the_preview_keeps_every_keystroke_while_its_answers_arrive(page, live_server, shot):
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_rates(page, live_server, "tarieven-voorbeeld")
    held = Held(page, "**/concept/voorbeeld")

    # "30", Tab, "12,5": the answer to leaving the first field lands after the "1".
    page.locator("#pv-gewicht").click()
    page.keyboard.type("30", delay=KEY_DELAY)
    page.keyboard.press("Tab")
    held.wait(page)
    page.keyboard.type("1", delay=KEY_DELAY)
    held.release()
    saved(page)
    page.keyboard.type("2,5", delay=KEY_DELAY)
    saved(page)
    expect(page.locator("#pv-gewicht")).to_have_value("30")
    expect(page.locator("#pv-tarief")).to_have_value("12,5")
    expect(page.locator("#pv-tarief")).to_be_focused()
    # Calculated amounts read as Dutch numbers.
    expect(page.locator("#pv-totaal")).to_have_text("375,00 EUR")

    # A stale answer never wins over a newer one: what is typed while an answer is on its way
    # is asked after it (queued, never aborted: an abort is a console error), and shown last.
    held = Held(page, "**/concept/voorbeeld")
    page.locator("#pv-gewicht").fill("")
    page.locator("#pv-gewicht").click()
    page.keyboard.type("40", delay=KEY_DELAY)
    page.keyboard.press("Tab")
    held.wait(page)
    page.keyboard.press("Control+A")
    page.keyboard.type("10", delay=KEY_DELAY)
    page.keyboard.press("Tab")
    held.release()  # the old answer (gewicht 40, tarief 12,5) arrives now, the newer after it
    saved(page)
    expect(page.locator("#pv-totaal")).to_have_text("400,00 EUR")
    expect(page.locator("#pv-gewicht")).to_have_value("40")
    expect(page.locator("#pv-tarief")).to_have_value("10")
    shot(page, "builder-typing-preview")
    assert errors == []


def test_the_editor_keeps_what_is_typed_while_a_full_redraw_arrives(page, live_server):
    open_rates(page, live_server, "tarieven-editor")
    held = Held(
        page,
        "**/concept/vraag",
        lambda request: "volledig=1" in (request.post_data or ""),
    )
    # A new type redraws the editor; its answer lands while the label is being retyped.
    page.locator("#q-1-type").select_option("integer")
    held.wait(page)
    label = page.locator("#q-1-label")
    label.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("Prijs", delay=KEY_DELAY)
    held.release()
    saved(page)
    page.keyboard.type(" per ton", delay=KEY_DELAY)
    saved(page)
    expect(label).to_have_value("Prijs per ton")
    expect(label).to_be_focused()
    expect(page.locator("#q-1-type")).to_have_value("integer")
    # And the server has the final text, not a mix of old and new.
    page.keyboard.press("Tab")
    saved(page)
    page.reload()
    expect(page.locator("#q-1-label")).to_have_value("Prijs per ton")
    expect(page.locator("#q-1-type")).to_have_value("integer")


def test_publish_opens_on_the_first_click_after_an_edit(page, live_server):
    open_rates(page, live_server, "tarieven-publiceren")
    # A window just too narrow for the header's save status and its buttons on one line: the
    # click's mousedown ends the edit, the status says "Opslaan…", and nothing may move.
    needed = page.evaluate(
        """() => {
          const head = document.querySelector('.qb-head');
          const text = document.querySelector('.qb-head-text');
          const actions = document.querySelector('.qb-actions');
          text.style.width = 'max-content';
          const wide = text.getBoundingClientRect().width;
          text.style.width = '';
          const gap = parseFloat(getComputedStyle(head).columnGap) || 0;
          return window.innerWidth - head.clientWidth + wide + gap
            + actions.getBoundingClientRect().width - 6;
        }"""
    )
    page.set_viewport_size({"width": int(needed), "height": 800})
    page.locator("#q-0-label").click()
    page.keyboard.type(" (netto)", delay=KEY_DELAY)
    page.get_by_role("link", name="Publiceren…").click()
    expect(page).to_have_url(re.compile(r"/vragenlijsten/tarieven-publiceren/publiceren$"))
    page.go_back()
    expect(page.locator("#q-0-label")).to_have_value("Gewicht (netto)")


def test_a_new_option_is_empty_with_a_placeholder(page, live_server):
    open_rates(page, live_server, "tarieven-keuzes")
    page.locator("#q-3").get_by_role("button", name="+ Keuze toevoegen").click()
    option = page.locator("#q-3-opt-3")
    expect(option).to_have_value("")
    expect(option).to_have_attribute("placeholder", "Keuze 4")
    expect(option).to_be_focused()
    page.keyboard.type("Stro", delay=KEY_DELAY)
    page.keyboard.press("Tab")
    saved(page)
    expect(page.locator("#q-3-opt-3")).to_have_value("Stro")
    page.reload()
    expect(page.locator("#q-3-opt-3")).to_have_value("Stro")


def test_problems_read_in_the_users_language_in_builder_and_task_page(page, live_server, shot):
    from factories import create_task, in_carrier

    from portal.audit.service import SYSTEM
    from portal.questionnaires import service

    app, carrier = live_server.app, live_server.carrier
    author = create_user(app, carrier, "author")
    doc = {
        **RATES,
        "questionnaire_id": "tarieven-fouten",
        "activity_type": "tarieven_fouten",
        "questions": [
            *RATES["questions"][:2],
            {"id": "totaal", "type": "calculated", "label": "Totaal", "formula": "gewicht *"},
            {
                "id": "toeslag",
                "type": "number",
                "label": "Toeslag",
                "visible_if": {"question_id": "gewicht", "operator": "gt"},
            },
        ],
    }
    in_carrier(
        app,
        carrier.id,
        lambda: service.create_draft(carrier_id=carrier.id, doc=doc, user_id=None, actor=SYSTEM),
    )
    sign_in(page, live_server, author)
    page.goto(f"{live_server.url}/vragenlijsten/tarieven-fouten/concept")
    problems = page.locator("#problems-q-2")
    expect(problems).to_contain_text("De formule houdt onverwacht op bij teken 10.")
    expect(page.locator("#problems-q-3")).to_contain_text("Bij “is groter dan” hoort een waarde")
    shot(page, "problems-builder-nl")
    page.get_by_role("button", name="English").click()
    expect(problems).to_contain_text("The formula ends unexpectedly at character 10.")
    expect(page.locator("#problems-q-3")).to_contain_text("“is greater than” needs a value")
    expect(page.locator("#editor")).not_to_contain_text("unexpected end of formula")
    shot(page, "problems-builder-en")

    # The planner's task page: what holds completion back, in Dutch and in English.
    planner = create_user(app, carrier, "planner")
    task = create_task(
        app, carrier, live_server.driver, naam="Koelvracht Barneveld", status="gestart",
        require_photos=True, min_fotos=2, require_signature=True, required_temperatuur=4.5,
    )  # fmt: skip
    page.context.clear_cookies()
    sign_in(page, live_server, planner)
    page.goto(f"{live_server.url}/taken/{task.id}")
    blockers = page.locator(".completion")
    expect(blockers).to_contain_text("Foto's: 0 van minstens 2")
    expect(blockers).to_contain_text("Gemeten temperatuur ontbreekt (vereist 4,5 °C)")
    shot(page, "problems-task-nl")
    page.get_by_role("button", name="English").click()
    expect(blockers).to_contain_text("Photos: 0 of at least 2")
    expect(blockers).to_contain_text("Measured temperature missing (required 4.5 °C)")
    shot(page, "problems-task-en")
