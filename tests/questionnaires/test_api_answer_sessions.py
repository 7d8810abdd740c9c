"""Answers from the driver app: POST /questionnaire_answers and GET /answer_sessions."""

from __future__ import annotations

import pytest
from factories import (
    bearer,
    create_api_key,
    create_carrier,
    create_driver,
    create_task,
    driver_token,
    publish_questionnaire,
    questionnaire_doc,
)
from factories import upload_file as upload


def loading_doc(title: str = "Mest laden", label: str = "Netto gewicht") -> dict:
    """A questionnaire with a group, a select driving visibility, bounds, a regex, a formula,
    a photo question with max_files 2 and a read-only value."""
    doc = questionnaire_doc(title=title)
    doc["questions"] = [
        {
            "id": "lading",
            "type": "group",
            "label": "Lading",
            "questions": [
                {
                    "id": "soort",
                    "type": "select",
                    "label": "Soort mest",
                    "options": ["drijfmest", "vaste mest"],
                    "required": True,
                },
                {
                    "id": "monster",
                    "type": "text",
                    "label": "Monsternummer",
                    "required": True,
                    "validation": {"regex": "[A-Z]{2}[0-9]{4}"},
                    "visible_if": {"question_id": "soort", "operator": "eq", "value": "drijfmest"},
                },
                {
                    "id": "bruto",
                    "type": "number",
                    "label": "Bruto",
                    "unit": "kg",
                    "required": True,
                    "validation": {"min": 0, "max": 60000},
                },
                {"id": "tarra", "type": "number", "label": label, "unit": "kg"},
                {
                    "id": "netto",
                    "type": "calculated",
                    "label": "Netto",
                    "unit": "kg",
                    "formula": "bruto - tarra",
                },
            ],
        },
        {"id": "fotos", "type": "photo", "label": "Foto's", "max_files": 2},
        {
            "id": "protocol",
            "type": "text",
            "label": "Protocol",
            "readonly": True,
            "default_value": "MVP-2",
        },
    ]
    return doc


@pytest.fixture
def revision(app, carrier):
    return publish_questionnaire(app, carrier, loading_doc())


@pytest.fixture
def token(client, driver) -> str:
    return driver_token(client, driver)


@pytest.fixture
def task(app, carrier, driver, revision):
    return create_task(app, carrier, driver)  # pins the active revision of mest_laden


def save(client, token, *, key=None, **body):
    headers = bearer(token)
    if key:
        headers["Idempotency-Key"] = key
    return client.post("/api/v1/questionnaire_answers", json=body, headers=headers)


def errors_by_question(response) -> dict:
    return {e["question_id"]: e["message"] for e in response.get_json()["errors"]}


VALID = {"soort": "drijfmest", "monster": "AB1234", "bruto": 30000, "tarra": 12000}


def test_a_driver_saves_as_they_go_and_submits(client, token, task, revision):
    first = save(client, token, taak_id=str(task.id), answers={"soort": "drijfmest"})
    assert first.status_code == 201, first.get_json()
    session = first.get_json()
    assert session["status"] == "open" and session["taak_id"] == str(task.id)
    assert session["activity_questionnaire_id"] == str(revision.id) and session["revisie"] == 1
    assert first.headers["Location"] == f"/api/v1/answer_sessions/{session['id']}"
    # A partial save does not ask for what is still missing.
    assert session["answers"] == {"soort": "drijfmest", "protocol": "MVP-2"}

    second = save(
        client, token, answer_session_id=session["id"], answers={"bruto": 30000, "tarra": 12000}
    )
    assert second.status_code == 200
    assert second.get_json()["answers"]["netto"] == 18000  # computed by the server

    done = save(
        client, token, answer_session_id=session["id"], answers={"monster": "AB1234"}, indienen=True
    )
    assert done.status_code == 200, done.get_json()
    body = done.get_json()
    assert body["status"] == "ingediend" and body["ingediend_op"].endswith("Z")
    assert body["answers"] == {**VALID, "netto": 18000, "protocol": "MVP-2"}


def test_invalid_answers_get_422_per_question_and_nothing_is_stored(client, token, task):
    started = save(client, token, taak_id=str(task.id), answers={"bruto": 100})
    session_id = started.get_json()["id"]

    response = save(
        client,
        token,
        answer_session_id=session_id,
        answers={"soort": "gier", "bruto": 70000, "tarra": 5, "onbekend": 1},
    )

    assert response.status_code == 422
    assert response.mimetype == "application/problem+json"
    errors = errors_by_question(response)
    assert set(errors) == {"soort", "bruto", "onbekend"}
    assert "not one of the options" in errors["soort"]
    assert "60000" in errors["bruto"]
    fields = {e["field"] for e in response.get_json()["errors"]}
    assert "answers.bruto" in fields
    stored = client.get(f"/api/v1/answer_sessions/{session_id}", headers=bearer(token))
    assert stored.get_json()["answers"]["bruto"] == 100  # the valid tarra was not kept either
    assert "tarra" not in stored.get_json()["answers"]


def test_submitting_demands_every_visible_required_answer(client, token, task):
    response = save(
        client, token, taak_id=str(task.id), answers={"soort": "drijfmest"}, indienen=True
    )

    assert response.status_code == 422
    errors = errors_by_question(response)
    assert errors == {"monster": "is required", "bruto": "is required"}


def test_a_regex_must_match_the_whole_text(client, token, task):
    response = save(
        client, token, taak_id=str(task.id), answers={"soort": "drijfmest", "monster": "AB12345"}
    )

    assert response.status_code == 422
    assert set(errors_by_question(response)) == {"monster"}


def test_hidden_questions_are_neither_required_nor_stored(client, token, task):
    started = save(
        client, token, taak_id=str(task.id), answers={"soort": "drijfmest", "monster": "AB1234"}
    )
    session_id = started.get_json()["id"]

    # Vaste mest hides the sample number: it is dropped and no longer required.
    done = save(
        client,
        token,
        answer_session_id=session_id,
        answers={"soort": "vaste mest", "bruto": 8000},
        indienen=True,
    )

    assert done.status_code == 200, done.get_json()
    assert "monster" not in done.get_json()["answers"]


def test_readonly_answers_keep_their_default_and_formulas_are_recomputed(client, token, task):
    response = save(
        client,
        token,
        taak_id=str(task.id),
        answers={"protocol": "zelf verzonnen", "netto": 1, "bruto": 10, "tarra": 4},
    )

    assert response.status_code == 201
    answers = response.get_json()["answers"]
    assert answers["protocol"] == "MVP-2" and answers["netto"] == 6


def test_null_clears_an_answer(client, token, task):
    started = save(client, token, taak_id=str(task.id), answers={"bruto": 10, "tarra": 4})
    cleared = save(
        client, token, answer_session_id=started.get_json()["id"], answers={"tarra": None}
    )

    answers = cleared.get_json()["answers"]
    assert "tarra" not in answers and "netto" not in answers  # no operand, no result


def test_a_submitted_session_is_closed(client, token, task):
    done = save(client, token, taak_id=str(task.id), answers=VALID, indienen=True)
    assert done.status_code == 201

    again = save(client, token, answer_session_id=done.get_json()["id"], answers={"tarra": 1})
    retry = save(client, token, taak_id=str(task.id), answers={"tarra": 1})

    assert again.status_code == 409 and retry.status_code == 409
    assert again.get_json()["answer_session_id"] == done.get_json()["id"]


def test_starting_again_for_a_task_continues_its_session(client, token, task):
    one = save(client, token, taak_id=str(task.id), answers={"bruto": 10})
    two = save(client, token, taak_id=str(task.id), answers={"tarra": 4})

    assert one.status_code == 201 and two.status_code == 200
    assert one.get_json()["id"] == two.get_json()["id"]
    assert two.get_json()["answers"]["netto"] == 6


def test_photos_are_files_of_the_carrier_of_the_right_kind(client, token, task):
    photos = [upload(client, token) for _ in range(3)]
    signature = upload(client, token, "signature")

    ok = save(client, token, taak_id=str(task.id), answers={"fotos": photos[:2]})
    too_many = save(client, token, taak_id=str(task.id), answers={"fotos": photos})
    wrong_kind = save(client, token, taak_id=str(task.id), answers={"fotos": [signature]})
    unknown = save(
        client,
        token,
        taak_id=str(task.id),
        answers={"fotos": ["00000000-0000-4000-8000-000000000000"]},
    )

    assert ok.status_code == 201 and ok.get_json()["answers"]["fotos"] == photos[:2]
    assert too_many.status_code == 422 and "at most 2" in errors_by_question(too_many)["fotos"]
    assert wrong_kind.status_code == 422 and "signature" in errors_by_question(wrong_kind)["fotos"]
    assert unknown.status_code == 422 and "no such file" in errors_by_question(unknown)["fotos"]


def test_another_carriers_file_is_unknown(app, client, token, task):
    other = create_carrier(app, "Ander")
    stranger = create_driver(app, other, email="x@ander.example")
    foreign_photo = upload(client, driver_token(client, stranger))

    response = save(client, token, taak_id=str(task.id), answers={"fotos": [foreign_photo]})

    assert response.status_code == 422 and "no such file" in errors_by_question(response)["fotos"]


def test_an_activity_without_a_task_gets_its_own_session(app, client, carrier, token):
    check = questionnaire_doc("voertuigcontrole", title="Voertuigcontrole")
    check["questions"] = [
        {"id": "banden", "type": "boolean", "label": "Banden in orde", "required": True}
    ]
    revision = publish_questionnaire(app, carrier, check)

    one = save(
        client,
        token,
        activity_questionnaire_id=str(revision.id),
        answers={"banden": True},
        indienen=True,
    )
    two = save(client, token, activity_questionnaire_id=str(revision.id), answers={})

    assert one.status_code == 201 and one.get_json()["taak_id"] is None
    assert one.get_json()["activity_type"] == "voertuigcontrole"
    assert two.status_code == 201 and two.get_json()["id"] != one.get_json()["id"]


def test_a_task_is_answered_in_the_revision_it_pinned(app, client, carrier, token, task):
    newer = publish_questionnaire(app, carrier, loading_doc(title="Mest laden (nieuw)"))

    response = save(
        client, token, taak_id=str(task.id), activity_questionnaire_id=str(newer.id), answers={}
    )

    assert response.status_code == 422
    assert response.get_json()["errors"][0]["field"] == "activity_questionnaire_id"


def test_who_may_answer(app, client, carrier, driver, task, api_key):
    colleague = create_driver(app, carrier, email="piet@example.nl")
    other = create_carrier(app, "Ander")
    foreign_task = create_task(app, other, create_driver(app, other, email="y@ander.example"))
    colleague_token = driver_token(client, colleague)

    assert save(client, colleague_token, taak_id=str(task.id), answers={}).status_code == 403
    assert save(client, api_key.key, taak_id=str(task.id), answers={}).status_code == 403
    unknown = save(client, colleague_token, taak_id=str(foreign_task.id), answers={})
    assert unknown.status_code == 422 and unknown.get_json()["errors"][0]["field"] == "taak_id"
    no_session = save(
        client,
        colleague_token,
        answer_session_id="00000000-0000-4000-8000-000000000000",
        answers={},
    )
    assert no_session.status_code == 404


def test_a_finished_task_takes_no_answers(app, client, carrier, driver, token, revision):
    task = create_task(app, carrier, driver, status="geannuleerd")

    response = save(client, token, taak_id=str(task.id), answers={"bruto": 1})

    assert response.status_code == 409


def test_completion_waits_for_the_submitted_questionnaire(client, token, task):
    client.patch(
        f"/api/v1/taken/{task.id}/status", json={"status": "gestart"}, headers=bearer(token)
    )

    refused = client.patch(
        f"/api/v1/taken/{task.id}/status", json={"status": "afgerond"}, headers=bearer(token)
    )
    assert refused.status_code == 422
    assert [e["field"] for e in refused.get_json()["errors"]] == ["vragenlijst"]

    save(client, token, taak_id=str(task.id), answers=VALID, indienen=True)
    done = client.patch(
        f"/api/v1/taken/{task.id}/status", json={"status": "afgerond"}, headers=bearer(token)
    )
    assert done.status_code == 200, done.get_json()


def test_a_retried_save_with_the_same_key_acts_once(client, token, task):
    body = {"taak_id": str(task.id), "answers": {"bruto": 10}}
    first = save(client, token, key="antw-1", **body)
    retry = save(client, token, key="antw-1", **body)
    other_body = save(client, token, key="antw-1", taak_id=str(task.id), answers={"bruto": 11})

    assert first.status_code == 201 and retry.status_code == 201
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert retry.get_json()["id"] == first.get_json()["id"]
    assert other_body.status_code == 422


def test_bad_bodies_are_refused_clearly(client, token):
    for body in (
        {"answers": []},
        {"answers": {}, "extra": 1},
        {"answers": {"": 1}},
        {"activity_questionnaire_id": "nope"},
    ):
        response = client.post("/api/v1/questionnaire_answers", json=body, headers=bearer(token))
        assert response.status_code == 422, body
    missing = save(client, token, answers={"a": 1})
    assert missing.status_code == 422
    assert missing.get_json()["errors"][0]["field"] == "activity_questionnaire_id"


# --- GET /answer_sessions ---------------------------------------------------------------


def test_sessions_are_listed_newest_first_with_filters(app, client, carrier, driver, token, task):
    second_task = create_task(app, carrier, driver, naam="Tweede")
    save(client, token, taak_id=str(task.id), answers=VALID, indienen=True)
    save(client, token, taak_id=str(second_task.id), answers={"bruto": 5})
    key = create_api_key(app, carrier)

    everything = client.get("/api/v1/answer_sessions", headers=bearer(key.key))
    submitted = client.get("/api/v1/answer_sessions?status=ingediend", headers=bearer(key.key))
    of_task = client.get(f"/api/v1/answer_sessions?taak_id={task.id}", headers=bearer(key.key))
    by_driver = client.get(
        f"/api/v1/answer_sessions?chauffeur={driver.user_token}&limit=1", headers=bearer(key.key)
    )
    by_type = client.get(
        "/api/v1/answer_sessions?activity_type=voer_leveren", headers=bearer(key.key)
    )

    assert [s["taak_id"] for s in everything.get_json()] == [str(second_task.id), str(task.id)]
    assert everything.headers["X-Total-Count"] == "2"
    assert [s["status"] for s in submitted.get_json()] == ["ingediend"]
    assert [s["taak_id"] for s in of_task.get_json()] == [str(task.id)]
    assert len(by_driver.get_json()) == 1 and by_driver.headers["X-Total-Count"] == "2"
    assert by_type.get_json() == []


def test_a_period_filter_takes_days_in_the_carriers_zone(client, token, task):
    save(client, token, taak_id=str(task.id), answers={"bruto": 5})

    today = client.get("/api/v1/answer_sessions?van=2000-01-01", headers=bearer(token))
    before = client.get("/api/v1/answer_sessions?tot=2000-01-01", headers=bearer(token))
    bad = client.get("/api/v1/answer_sessions?van=gisteren", headers=bearer(token))

    assert len(today.get_json()) == 1 and before.get_json() == []
    assert bad.status_code == 422


def test_a_driver_reads_only_its_own_sessions(app, client, carrier, driver, token, task):
    colleague = create_driver(app, carrier, email="piet@example.nl")
    colleague_token = driver_token(client, colleague)
    session_id = save(client, token, taak_id=str(task.id), answers={"bruto": 5}).get_json()["id"]

    mine = client.get("/api/v1/answer_sessions", headers=bearer(colleague_token))
    asking = client.get(
        f"/api/v1/answer_sessions?chauffeur={driver.user_token}", headers=bearer(colleague_token)
    )
    one = client.get(f"/api/v1/answer_sessions/{session_id}", headers=bearer(colleague_token))

    assert mine.get_json() == [] and asking.status_code == 403 and one.status_code == 403


def test_old_answers_stay_readable_against_their_revision(app, client, carrier, token, task):
    save(client, token, taak_id=str(task.id), answers=VALID, indienen=True)
    publish_questionnaire(app, carrier, loading_doc(label="Tarra (leeg gewogen)"))

    listed = client.get("/api/v1/answer_sessions", headers=bearer(token)).get_json()

    assert listed[0]["revisie"] == 1 and listed[0]["answers"]["netto"] == 18000


def test_the_list_runs_a_fixed_number_of_queries(
    app, client, carrier, driver, token, revision, count_queries
):
    key = create_api_key(app, carrier)
    save(client, token, taak_id=str(create_task(app, carrier, driver).id), answers={"bruto": 1})
    # The key's first use of the minute also records it: count warm requests.
    client.get("/api/v1/answer_sessions", headers=bearer(key.key))
    with count_queries() as few:
        assert client.get("/api/v1/answer_sessions", headers=bearer(key.key)).status_code == 200
    for n in range(4):
        task = create_task(app, carrier, driver, naam=f"Taak {n}")
        save(client, token, taak_id=str(task.id), answers=VALID, indienen=True)
    with count_queries() as many:
        response = client.get("/api/v1/answer_sessions", headers=bearer(key.key))

    assert len(response.get_json()) == 5
    assert many.count == few.count, many.statements


def test_a_colleagues_photo_is_no_file_to_a_driver(app, client, carrier, token, task):
    colleague = create_driver(app, carrier, "Piet Smit", email="piet@example.nl")
    theirs = upload(client, driver_token(client, colleague))
    mine = upload(client, token)

    taken = save(client, token, taak_id=str(task.id), answers={"fotos": [theirs]})
    kept = save(client, token, taak_id=str(task.id), answers={"fotos": [mine]})
    again = save(client, token, taak_id=str(task.id), answers={"fotos": [mine]})

    assert taken.status_code == 422 and "no such file" in errors_by_question(taken)["fotos"]
    assert kept.status_code == 201 and again.status_code == 200
