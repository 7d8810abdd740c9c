"""The portal's error pages say what happened in the user's language, never in the
framework's English."""

from __future__ import annotations

import pytest
from factories import login
from flask import abort

from portal.errors import ValidationFailed


@pytest.fixture
def browser(client, planner):
    login(client, planner)
    return client


def test_a_method_the_page_does_not_take_is_worded_in_dutch(browser):
    page = browser.get("/logout")  # a POST-only route
    assert page.status_code == 405
    text = page.get_data(as_text=True)
    assert "Dit kan zo niet" in text
    assert "Method Not Allowed" not in text


def test_a_refusal_no_view_caught_is_worded_in_dutch_and_english(app, client, planner):
    @app.get("/_probe/<int:code>")
    def probe(code: int):
        if code == 422:
            raise ValidationFailed([{"field": "naam", "message": "required"}])
        abort(code)

    login(client, planner)
    browser = client

    for code, dutch, english_name in [
        (401, "Niet aangemeld", "Unauthorized"),
        (410, "Dit bestaat niet meer of is verlopen.", "Gone"),
        (413, "Te groot", "Request Entity Too Large"),
        (422, "Niet opgeslagen", "Unprocessable"),
        (429, "Even wachten", "Too Many Requests"),
        (418, "Dit ging niet", "I'm a teapot"),
    ]:
        page = browser.get(f"/_probe/{code}")
        text = page.get_data(as_text=True)
        assert page.status_code == code
        assert dutch in text and english_name not in text, code
    with browser.session_transaction() as session:
        session["taal"] = "en"
    assert "Not saved" in browser.get("/_probe/422").get_data(as_text=True)
