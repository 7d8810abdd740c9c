"""GET /api/v1/activity_questionnaires: the seed's operation 4.2."""

from __future__ import annotations

from factories import bearer, create_carrier, driver_token, publish_questionnaire, questionnaire_doc

from portal.questionnaires.schemas import ActivityQuestionnaireOut

URL = "/api/v1/activity_questionnaires"


def test_only_the_active_rows_of_the_callers_carrier(app, client, carrier, driver):
    publish_questionnaire(app, carrier, questionnaire_doc("mest_laden"))
    publish_questionnaire(app, carrier, questionnaire_doc("voer_leveren", title="Voer"))
    publish_questionnaire(app, carrier, questionnaire_doc("koel_transport"), activate=False)
    other = create_carrier(app, "Ander")
    publish_questionnaire(app, other, questionnaire_doc("vee_transport"))

    response = client.get(URL, headers=bearer(driver_token(client, driver)))

    assert response.status_code == 200
    assert response.mimetype == "application/json"
    rows = response.get_json()
    assert [r["activity_type"] for r in rows] == ["mest_laden", "voer_leveren"]
    for row in rows:
        ActivityQuestionnaireOut.model_validate(row)
        assert row["transporteur_id"] == str(carrier.id)
        assert row["is_active"] is True
        assert row["definition"]["activity_type"] == row["activity_type"]
    assert response.headers["X-Total-Count"] == "2"


def test_a_new_revision_replaces_the_active_one(app, client, carrier, driver):
    publish_questionnaire(app, carrier)
    newer = questionnaire_doc()
    newer["title"] = "Nieuw"
    latest = publish_questionnaire(app, carrier, newer)
    rows = client.get(URL, headers=bearer(driver_token(client, driver))).get_json()
    assert [(r["id"], r["definition"]["title"]) for r in rows] == [(str(latest.id), "Nieuw")]


def test_filter_by_activity_type(app, client, carrier, driver):
    publish_questionnaire(app, carrier, questionnaire_doc("mest_laden"))
    publish_questionnaire(app, carrier, questionnaire_doc("voer_leveren"))
    token = driver_token(client, driver)
    rows = client.get(f"{URL}?activity_type=voer_leveren", headers=bearer(token)).get_json()
    assert [r["activity_type"] for r in rows] == ["voer_leveren"]
    assert client.get(f"{URL}?activity_type=onbekend", headers=bearer(token)).get_json() == []


def test_api_keys_read_them_too(app, client, carrier, api_key):
    publish_questionnaire(app, carrier)
    assert len(client.get(URL, headers=bearer(api_key.key)).get_json()) == 1


def test_without_a_token_401(client):
    response = client.get(URL)
    assert response.status_code == 401
    assert response.mimetype == "application/problem+json"


def test_paging(app, client, carrier, driver):
    for kind in ("a_type", "b_type", "c_type"):
        publish_questionnaire(app, carrier, questionnaire_doc(kind))
    response = client.get(f"{URL}?limit=1&offset=1", headers=bearer(driver_token(client, driver)))
    assert [r["activity_type"] for r in response.get_json()] == ["b_type"]
    assert response.headers["X-Total-Count"] == "3"
