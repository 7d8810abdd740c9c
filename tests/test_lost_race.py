"""A write that loses a race to another request (a version counter refuses its UPDATE) is a
409 to retry, in the API and in the portal, never a 500."""

from __future__ import annotations

import pytest
from sqlalchemy.orm.exc import StaleDataError


@pytest.fixture
def racing_app(app):
    def lose():
        raise StaleDataError("UPDATE statement on table 'taken' expected to update 1 row(s)")

    app.add_url_rule("/api/v1/_race", "api_race_probe", lose)
    app.add_url_rule("/_race", "race_probe", lose)
    return app


def test_the_api_answers_a_lost_race_with_a_conflict_problem(racing_app):
    response = racing_app.test_client().get("/api/v1/_race")
    assert response.status_code == 409
    assert response.mimetype == "application/problem+json"
    assert "retry" in response.get_json()["detail"]


def test_the_portal_says_someone_else_changed_it(racing_app):
    client = racing_app.test_client()
    response = client.get("/_race", headers={"Accept-Language": "nl"})
    assert response.status_code == 409
    assert "Iemand anders heeft dit net gewijzigd" in response.get_data(as_text=True)
    english = client.get("/_race", headers={"Accept-Language": "en"})
    assert "Someone else has just changed this" in english.get_data(as_text=True)
