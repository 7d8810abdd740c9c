"""The planner's pages of recurring work: a task saved as a template, a series set up from it
with a preview that marks the holidays, its change counted, its end after a confirmation."""

from __future__ import annotations

import re

import pytest
from factories import create_task, csrf_from, login

from series.support import MONDAY, make_series, make_template, plan, series_tasks


@pytest.fixture
def browser(client, planner, monkeypatch):
    from portal.series import service

    monkeypatch.setattr(service, "today", lambda carrier_id: MONDAY)
    login(client, planner)
    return client


def post_form(browser, path: str, data: dict, form_path: str | None = None):
    token = csrf_from(browser.get(form_path or path).get_data(as_text=True))
    return browser.post(path, data={"csrf_token": token, **data})


RUN = {
    "naam": "Mest Jansen ma/vr",
    "patroon": "wekelijks",
    "weekdagen": ["0", "4"],
    "om_weken": "1",
    "startdatum": "2026-12-14",
    "tijd": "07:30",
    "feestdagen": "volgende_werkdag",
}


def test_a_task_is_saved_as_a_template_from_its_page(app, browser, carrier):
    task = create_task(app, carrier, None, naam="Mest Jansen", laad_stad="Enter", duur_min=90)
    page = browser.get(f"/taken/{task.id}").get_data(as_text=True)
    assert "Opslaan als sjabloon" in page
    form = browser.get(f"/taken/{task.id}/sjabloon").get_data(as_text=True)
    assert 'value="Mest Jansen"' in form
    # manure work needs a manure tank (the fleet's default needs): ticked beforehand
    assert re.search(r'<input checked[^>]*value="mesttank"|value="mesttank"[^>]*checked', form)
    response = post_form(
        browser,
        f"/taken/{task.id}/sjabloon",
        {
            "naam": "Mest Jansen",
            "type": "mest_laden",
            "duur_min": "90",
            "klant_id": "",
            "capaciteiten": ["mesttank"],
        },
    )
    assert response.status_code == 303
    listing = browser.get("/sjablonen").get_data(as_text=True)
    assert "Mest Jansen" in listing and "Sjabloon Mest Jansen is opgeslagen." in listing
    assert "Mesttank" in listing
    again = post_form(
        browser, f"/taken/{task.id}/sjabloon", {"naam": "Mest Jansen", "type": "mest_laden"}
    )
    assert again.status_code == 422
    assert "Een ander sjabloon heeft deze naam al." in again.get_data(as_text=True)


def test_the_preview_marks_christmas_and_new_year_as_moved(app, browser, carrier):
    template = make_template(app, carrier)
    args = {**RUN, "sjabloon_id": str(template.id)}
    html = browser.get("/reeksen/voorbeeld", query_string=args).get_data(as_text=True)
    assert "verschoven van vr 25 dec 2026 (Eerste kerstdag)" in html
    assert "verschoven van vr 1 jan 2027 (Nieuwjaarsdag)" in html
    skipped = browser.get(
        "/reeksen/voorbeeld", query_string={**args, "feestdagen": "overslaan"}
    ).get_data(as_text=True)
    assert "overgeslagen: Eerste kerstdag" in skipped


def test_a_series_is_set_up_from_a_template_and_planned(app, browser, carrier):
    template = make_template(app, carrier)
    form = browser.get(f"/reeksen/nieuw?sjabloon={template.id}").get_data(as_text=True)
    assert "Volgende keren" in form
    response = post_form(browser, "/reeksen/nieuw", {**RUN, "sjabloon_id": str(template.id)})
    assert response.status_code == 303, response.get_data(as_text=True)
    shown = browser.get(response.headers["Location"]).get_data(as_text=True)
    assert "8 taken zijn ingepland." in shown
    assert "verschoven van vr 25 dec (Eerste kerstdag)" in shown


def test_a_rule_that_yields_nothing_is_refused_at_the_field(app, browser, carrier):
    template = make_template(app, carrier)
    data = {**RUN, "sjabloon_id": str(template.id), "weekdagen": ["4"], "einddatum": "2026-12-25",
            "startdatum": "2026-12-25", "feestdagen": "overslaan"}  # fmt: skip
    response = post_form(browser, "/reeksen/nieuw", data)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert 'id="einddatum-error"' in html and "levert geen enkele taak op" in html


def test_a_change_says_how_many_and_ending_counts_first(app, browser, carrier):
    series = make_series(app, carrier, make_template(app, carrier))
    plan(app, carrier)
    path = f"/reeksen/{series.id}/bewerken"
    data = {**RUN, "naam": series.naam, "sjabloon_id": str(series.sjabloon_id),
            "feestdagen": "overslaan", "tijd": "08:00"}  # fmt: skip
    response = post_form(browser, path, data)
    assert response.status_code == 303
    shown = browser.get(response.headers["Location"]).get_data(as_text=True)
    assert "6 toekomstige taken zijn aangepast." in shown
    confirm = browser.get(f"/reeksen/{series.id}/beeindigen").get_data(as_text=True)
    assert "6 geplande taken van deze reeks worden verwijderd." in confirm
    ended = post_form(browser, f"/reeksen/{series.id}/beeindigen", {})
    assert ended.status_code == 303
    assert series_tasks(app, carrier, series) == []


def test_english_pages(app, browser, carrier):
    with browser.session_transaction() as session:
        session["taal"] = "en"
    template = make_template(app, carrier)
    args = {**RUN, "sjabloon_id": str(template.id)}
    html = browser.get("/reeksen/voorbeeld", query_string=args).get_data(as_text=True)
    assert "Next occurrences" in html
    assert "moved from Fri 25 Dec 2026 (Christmas Day)" in html
    refused = post_form(
        browser, "/reeksen/nieuw", {**args, "weekdagen": [], "feestdagen": "overslaan"}
    )
    assert "Choose at least one day of the week." in refused.get_data(as_text=True)
