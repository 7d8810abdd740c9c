"""Every problem code the engine and the completion check can raise is worded in Dutch and
English, from its params; the codes are read from the code that raises them, not listed here."""

from __future__ import annotations

import ast
import html
import re
import string
from pathlib import Path

from babel.messages.pofile import read_po
from factories import (
    bearer,
    create_task,
    create_user,
    csrf_from,
    driver_token,
    in_carrier,
    login,
    publish_questionnaire,
)
from flask_babel import force_locale

from portal import problems
from portal.questionnaires import engine
from portal.tasks import lifecycle

ROOT = Path(__file__).resolve().parents[2]
HX = {"HX-Request": "true"}
SAMPLES = {
    "qtype": "number",
    "type": "string",
    "operator": "eq",
    "name": "label",
    "low": "min",
    "high": "max",
    "min": 2,
    "max": 3,
    "given": 0,
    "limit": 50,
    "position": 20,
    "required": 4.5,
    "low_value": 5,
    "high_value": 2,
}


def _codes() -> dict[str, str]:
    """Every code with its English template, from the engine and the completion check."""
    codes = dict(engine.MESSAGES)
    codes.update({code: text for code, (_field, text) in lifecycle.COMPLETION_BLOCKERS.items()})
    return codes


def _fields(template: str) -> set[str]:
    return {name for _text, name, _spec, _conv in string.Formatter().parse(template) if name}


def _english_catalogue() -> dict[str, str]:
    with (ROOT / "translations/en/LC_MESSAGES/messages.po").open("rb") as f:
        return {m.id: m.string for m in read_po(f) if m.id and isinstance(m.id, str)}


def test_every_reason_the_engine_raises_has_an_english_message():
    # The reasons are read from the engine's modules themselves: flag(at, key, code, REASON,
    # ...), FormulaError(REASON, ...) and make_problem(path, qid, code, REASON, ...).
    used = set()
    for module in sorted((ROOT / "portal/questionnaires/engine").glob("*.py")):
        for node in ast.walk(ast.parse(module.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            at = {"flag": 3, "FormulaError": 0, "make_problem": 3}.get(name)
            if at is not None and len(node.args) > at and isinstance(node.args[at], ast.Constant):
                used.add(node.args[at].value)
    assert len(used) > 60
    assert used <= set(engine.MESSAGES), used - set(engine.MESSAGES)


def test_every_problem_code_has_dutch_and_english_text(app):
    codes = _codes()
    english = _english_catalogue()
    missing = sorted(set(codes) - set(problems.TEXTS))
    assert not missing, f"no Dutch text in portal/problems.py for: {missing}"
    untranslated = sorted(code for code in codes if not english.get(problems.TEXTS[code]._args[0]))
    assert not untranslated, f"no English msgstr in messages.po for: {untranslated}"


def test_every_problem_reads_in_both_languages_with_its_params(app):
    for code, template in sorted(_codes().items()):
        names = sorted(_fields(template))
        params = {name: SAMPLES.get(name, f"x{index}") for index, name in enumerate(names)}
        dutch_names = set(re.findall(r"%\((\w+)\)s", problems.TEXTS[code]._args[0]))
        assert dutch_names <= set(params), f"{code}: Dutch text uses a param the code never sends"
        with app.test_request_context():
            with force_locale("nl"):
                dutch = problems.say(code, params)
            with force_locale("en"):
                english = problems.say(code, params)
        for text in (dutch, english):
            assert text and "%(" not in text and "—" not in text, (code, text)
        assert dutch != english, code


def test_params_read_as_people_write_them(app):
    with app.test_request_context():
        with force_locale("nl"):
            assert problems.say("temperature_missing", {"required": 4.5}) == (
                "Gemeten temperatuur ontbreekt (vereist 4,5 °C)"
            )
            assert problems.say("formula_unexpected_end", {"position": 19}) == (
                "De formule houdt onverwacht op bij teken 20."
            )
            assert problems.say("condition_value_needed", {"operator": "eq"}).startswith(
                "Bij “is gelijk aan” hoort een waarde"
            )
        with force_locale("en"):
            assert problems.say("photos_too_few", {"min": 2, "given": 0}) == (
                "Photos: 0 of at least 2"
            )
            assert problems.say("formula_unexpected_end", {"position": 19}) == (
                "The formula ends unexpectedly at character 20."
            )


def test_an_unknown_code_falls_back_to_its_message(app):
    with app.test_request_context():
        assert problems.say("no_such_code", {}, "as the API said it") == "as the API said it"


# --- the screens word problems in the user's language ----------------------------------------


def _page_text(response) -> str:
    text = re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))
    return html.unescape(re.sub(r"\s+", " ", text))


def _in_english(client) -> None:
    with client.session_transaction() as session:
        session["taal"] = "en"


def _blocked_task(app, carrier, driver, **fields):
    publish_questionnaire(app, carrier)  # a new mest_laden task is pinned to it
    return create_task(
        app, carrier, driver, type="mest_laden", status="gestart", require_photos=True,
        min_fotos=2, require_signature=True, required_temperatuur=4.5, **fields,
    )  # fmt: skip


def test_the_task_page_words_its_blockers_in_dutch(app, client, carrier, planner, driver):
    task = _blocked_task(app, carrier, driver)
    login(client, planner)
    page = _page_text(client.get(f"/taken/{task.id}"))
    assert "Foto's: 0 van minstens 2" in page
    assert "Handtekening ontbreekt" in page
    assert "Gemeten temperatuur ontbreekt (vereist 4,5 °C)" in page
    assert "De vragenlijst is nog niet ingevuld en ingediend" in page
    assert "needed" not in page and "questionnaire must" not in page


def test_the_task_page_words_its_blockers_in_english(app, client, carrier, planner, driver):
    task = _blocked_task(app, carrier, driver)
    login(client, planner)
    _in_english(client)
    page = _page_text(client.get(f"/taken/{task.id}"))
    assert "Photos: 0 of at least 2" in page
    assert "Signature missing" in page
    assert "Measured temperature missing (required 4.5 °C)" in page
    assert "The questionnaire has not been filled in and submitted yet" in page
    assert "vragenlijst" not in page.lower().replace("/vragenlijst", "")


def test_a_refused_completion_on_the_board_is_worded_in_english(
    app, client, carrier, planner, driver
):
    task = _blocked_task(app, carrier, driver)
    login(client, planner)
    _in_english(client)
    token = csrf_from(client.get("/taken").get_data(as_text=True))
    response = client.post(
        f"/taken/{task.id}/status",
        data={"status": "afgerond", "csrf_token": token},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 422
    card = _page_text(response)
    assert "Photos: 0 of at least 2" in card
    assert "The questionnaire has not been filled in and submitted yet" in card
    assert "photo(s) needed" not in card and "vragenlijst" not in card


def test_the_api_keeps_the_code_params_and_english_message(app, client, carrier, driver):
    task = _blocked_task(app, carrier, driver)
    response = client.patch(
        f"/api/v1/taken/{task.id}/status",
        json={"status": "afgerond"},
        headers=bearer(driver_token(client, driver)),
    )
    assert response.status_code == 422
    first, *_rest, last = response.get_json()["errors"]
    assert first == {
        "field": "fotos",
        "code": "photos_too_few",
        "params": {"min": 2, "given": 0},
        "message": "at least 2 photo(s) needed, 0 given",
    }
    assert last["code"] == "questionnaire_not_submitted"
    assert last["message"] == "the questionnaire must be filled in and submitted"


FLAWED = {
    "schema_version": 1,
    "questionnaire_id": "gebrekkig",
    "title": "Gebrekkig",
    "activity_type": "gebrekkig",
    "questions": [
        {"id": "a", "type": "number", "label": "A"},
        {
            "id": "b",
            "type": "text",
            "label": "B",
            "visible_if": {"question_id": "a", "operator": "eq"},
        },
        {"id": "c", "type": "calculated", "label": "C", "formula": "a *"},
    ],
}


def _flawed_draft(app, carrier, client, author) -> str:
    from portal.audit.service import SYSTEM
    from portal.questionnaires import service

    in_carrier(
        app,
        carrier.id,
        lambda: service.create_draft(carrier_id=carrier.id, doc=FLAWED, user_id=None, actor=SYSTEM),
    )
    login(client, author)
    return "/vragenlijsten/gebrekkig/concept"


def test_the_builder_words_engine_problems_in_dutch(app, client, carrier):
    author = create_user(app, carrier, "author")
    url = _flawed_draft(app, carrier, client, author)
    response = client.get(url)
    page = _page_text(response)
    assert "De formule klopt niet: De formule houdt onverwacht op bij teken 4." in page
    assert "Bij “is gelijk aan” hoort een waarde" in page
    assert "unexpected end of formula" not in page and "is needed for" not in page
    # The formula as it is typed, checked under its field.
    token = csrf_from(response.get_data(as_text=True))
    checked = client.post(
        f"{url}/formule", data={"formula": "a * (2", "csrf_token": token}, headers=HX
    )
    assert "De formule houdt op bij teken 7, maar er hoort nog “)”." in _page_text(checked)


def test_the_builder_words_engine_problems_in_english(app, client, carrier):
    author = create_user(app, carrier, "author")
    url = _flawed_draft(app, carrier, client, author)
    _in_english(client)
    response = client.get(url)
    page = _page_text(response)
    assert "The formula ends unexpectedly at character 4." in page
    assert "“equals” needs a value" in page
    token = csrf_from(response.get_data(as_text=True))
    checked = client.post(
        f"{url}/formule", data={"formula": "a * (2", "csrf_token": token}, headers=HX
    )
    assert "The formula ends at character 7, but “)” is still missing." in _page_text(checked)


def test_calculated_amounts_read_in_the_users_language(app):
    from portal.questionnaires.presenting import answer_text
    from portal.questionnaires.wording import format_number

    with app.test_request_context():
        with force_locale("nl"):
            assert answer_text("calculated", 375.0) == "375,00"  # the answer pages
            assert format_number(375.0, calculated=True) == "375,00"
            assert format_number(1375, calculated=True) == "1.375,00"
            assert format_number(12.5) == "12,5"
        with force_locale("en"):
            assert answer_text("calculated", 375.0) == "375.00"
            assert format_number(375.0, calculated=True) == "375.00"
            assert format_number(1 / 3, calculated=True) == "0.3333"
