"""GET /api/v1/users/{user_token}/taken: the seed's operation 4.1."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from factories import (
    bearer,
    create_carrier,
    create_driver,
    create_task,
    create_vehicle,
    driver_token,
    publish_questionnaire,
    questionnaire_doc,
)
from seed_fields import SEED_QUESTION_FIELDS, SEED_TASK_FIELDS

from portal.tasks.schemas import TaskOut

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def at(hours: float) -> datetime:
    return datetime.now(UTC) + timedelta(hours=hours)


def test_driver_gets_own_tasks_with_every_seed_field_and_vragenpad(app, client, carrier, driver):
    publish_questionnaire(app, carrier)
    vehicle = create_vehicle(app, carrier, "BX-12-AB")
    create_task(
        app,
        carrier,
        driver,
        vehicle_id=vehicle.id,
        vdm_nummer="VDM123",
        agr_verplicht=True,
        hoeveelheid=28.5,
        eenheid="ton",
        gepland_op=at(2),
    )
    token = driver_token(client, driver)

    response = client.get(f"/api/v1/users/{driver.user_token}/taken", headers=bearer(token))

    assert response.status_code == 200
    assert response.mimetype == "application/json"
    tasks = response.get_json()
    assert len(tasks) == 1
    task = tasks[0]
    for name in SEED_TASK_FIELDS:
        assert name in task, name
    assert task["chauffeur_id"] == str(driver.id)
    assert task["vehicle_id"] == str(vehicle.id)
    assert task["transporteur_id"] == str(carrier.id)
    assert task["status"] == "gepland"
    assert task["vdm_nummer"] == "VDM123" and task["agr_verplicht"] is True
    assert task["hoeveelheid"] == 28.5
    assert TIMESTAMP.match(task["gepland_op"]) and TIMESTAMP.match(task["created_at"])
    assert task["ontvangen_op"] is None and task["omschrijving"] is None
    vragenpad = task["vragenpad"]
    assert vragenpad["questionnaire_id"] == "mest-laden"
    assert vragenpad["schema_version"] == 1
    for question in vragenpad["questions"]:
        assert list(question) == SEED_QUESTION_FIELDS
    weight = vragenpad["questions"][0]
    assert weight["validation"] == {
        "min": 0,
        "max": 60000,
        "minlength": None,
        "maxlength": None,
        "regex": None,
    }
    assert weight["options"] is None and weight["visible_if"] is None
    TaskOut.model_validate(task)
    assert response.headers["X-Total-Count"] == "1"


def test_vragenpad_is_null_without_a_questionnaire_for_the_type(app, client, carrier, driver):
    create_task(app, carrier, driver, type="voer_leveren")
    token = driver_token(client, driver)
    tasks = client.get(f"/api/v1/users/{driver.user_token}/taken", headers=bearer(token)).get_json()
    assert tasks[0]["vragenpad"] is None


def test_default_selection_is_open_tasks_and_todays_completed_ordered_by_gepland_op(
    app, client, carrier, driver
):
    now = datetime.now(UTC)
    create_task(app, carrier, driver, naam="later", gepland_op=at(5))
    create_task(app, carrier, driver, naam="unplanned")
    create_task(
        app, carrier, driver, naam="started", gepland_op=at(-1), status="gestart", gestart_op=now
    )
    create_task(
        app,
        carrier,
        driver,
        naam="done today",
        gepland_op=at(-0.5),
        status="afgerond",
        afgerond_op=now,
    )
    create_task(
        app,
        carrier,
        driver,
        naam="done long ago",
        gepland_op=at(-72),
        status="afgerond",
        afgerond_op=now - timedelta(days=3),
    )
    create_task(app, carrier, driver, naam="cancelled", gepland_op=at(1), status="geannuleerd")
    token = driver_token(client, driver)

    tasks = client.get(f"/api/v1/users/{driver.user_token}/taken", headers=bearer(token)).get_json()

    assert [t["naam"] for t in tasks] == ["started", "done today", "later", "unplanned"]


def test_status_and_period_filters(app, client, carrier, driver):
    now = datetime.now(UTC)
    create_task(
        app,
        carrier,
        driver,
        naam="old done",
        gepland_op=now - timedelta(days=10),
        status="afgerond",
        afgerond_op=now - timedelta(days=10),
    )
    create_task(app, carrier, driver, naam="cancelled", gepland_op=at(1), status="geannuleerd")
    create_task(app, carrier, driver, naam="next week", gepland_op=now + timedelta(days=7))
    token = driver_token(client, driver)
    url = f"/api/v1/users/{driver.user_token}/taken"

    done = client.get(url + "?status=afgerond,geannuleerd", headers=bearer(token)).get_json()
    assert [t["naam"] for t in done] == ["old done", "cancelled"]

    van = (now + timedelta(days=6)).date().isoformat()
    period = client.get(f"{url}?van={van}", headers=bearer(token)).get_json()
    assert [t["naam"] for t in period] == ["next week"]

    tot = (now - timedelta(days=9)).date().isoformat()
    assert [
        t["naam"] for t in client.get(f"{url}?tot={tot}", headers=bearer(token)).get_json()
    ] == ["old done"]


def test_paging_sends_the_total(app, client, carrier, driver):
    for hour in range(5):
        create_task(app, carrier, driver, naam=f"t{hour}", gepland_op=at(hour + 1))
    token = driver_token(client, driver)
    response = client.get(
        f"/api/v1/users/{driver.user_token}/taken?limit=2&offset=2", headers=bearer(token)
    )
    assert [t["naam"] for t in response.get_json()] == ["t2", "t3"]
    assert response.headers["X-Total-Count"] == "5"


def test_unchanged_list_answers_304_to_its_etag_and_200_after_a_change(
    app, client, carrier, driver
):
    create_task(app, carrier, driver, gepland_op=at(1))
    token = driver_token(client, driver)
    url = f"/api/v1/users/{driver.user_token}/taken"
    first = client.get(url, headers=bearer(token))
    etag = first.headers["ETag"]

    again = client.get(url, headers={**bearer(token), "If-None-Match": etag})
    assert again.status_code == 304
    assert again.get_data() == b""

    create_task(app, carrier, driver, naam="new", gepland_op=at(2))
    changed = client.get(url, headers={**bearer(token), "If-None-Match": etag})
    assert changed.status_code == 200
    assert len(changed.get_json()) == 2


def test_a_compressed_poll_is_answered_304_without_building_the_list(
    app, client, carrier, driver, count_queries
):
    for hour in range(3):
        create_task(app, carrier, driver, gepland_op=at(hour + 1))
    headers = {**bearer(driver_token(client, driver)), "Accept-Encoding": "gzip"}
    url = f"/api/v1/users/{driver.user_token}/taken"
    with count_queries() as full:
        first = client.get(url, headers=headers)
    assert first.headers["Content-Encoding"] == "gzip"
    with count_queries() as poll:
        again = client.get(url, headers={**headers, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304
    assert poll.count < full.count
    assert not any("FROM taken" in s and "LIMIT" in s for s in poll.statements)


def test_list_runs_a_fixed_number_of_queries(app, client, carrier, driver, count_queries):
    publish_questionnaire(app, carrier)
    publish_questionnaire(app, carrier, questionnaire_doc("voer_leveren"))
    token = driver_token(client, driver)
    url = f"/api/v1/users/{driver.user_token}/taken"
    create_task(app, carrier, driver, gepland_op=at(1))
    with count_queries() as few:  # both as a fresh worker makes them
        assert len(client.get(url, headers=bearer(token)).get_json()) == 1
    for hour in range(30):
        create_task(
            app,
            carrier,
            driver,
            type=["mest_laden", "voer_leveren"][hour % 2],
            gepland_op=at(hour + 2),
        )
    with count_queries() as many:
        assert len(client.get(url, headers=bearer(token)).get_json()) == 31
    assert many.count == few.count
    assert many.count <= 6, many.statements


def test_another_carriers_user_token_is_404(app, client, driver):
    other = create_carrier(app, "Ander")
    stranger = create_driver(app, other)
    token = driver_token(client, driver)
    response = client.get(f"/api/v1/users/{stranger.user_token}/taken", headers=bearer(token))
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"


def test_unknown_user_token_is_404(client, driver):
    token = driver_token(client, driver)
    response = client.get("/api/v1/users/nope/taken", headers=bearer(token))
    assert response.status_code == 404


def test_a_driver_may_not_read_a_colleagues_tasks(app, client, carrier, driver):
    colleague = create_driver(app, carrier, "Piet")
    token = driver_token(client, driver)
    response = client.get(f"/api/v1/users/{colleague.user_token}/taken", headers=bearer(token))
    assert response.status_code == 403
    assert response.get_json()["status"] == 403


def test_an_api_key_reads_every_driver_of_its_carrier(app, client, carrier, driver, api_key):
    create_task(app, carrier, driver, gepland_op=at(1))
    response = client.get(f"/api/v1/users/{driver.user_token}/taken", headers=bearer(api_key.key))
    assert response.status_code == 200
    assert len(response.get_json()) == 1


def test_another_carriers_tasks_never_show(app, client, carrier, driver):
    other = create_carrier(app, "Ander")
    stranger = create_driver(app, other)
    create_task(app, other, stranger, naam="foreign", gepland_op=at(1))
    create_task(app, carrier, driver, naam="mine", gepland_op=at(1))
    token = driver_token(client, driver)
    tasks = client.get(f"/api/v1/users/{driver.user_token}/taken", headers=bearer(token)).get_json()
    assert [t["naam"] for t in tasks] == ["mine"]


def test_without_a_token_the_answer_is_401_problem_json(client, driver):
    response = client.get(f"/api/v1/users/{driver.user_token}/taken")
    assert response.status_code == 401
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["status"] == 401 and body["title"] and body["detail"]
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_bad_query_parameters_are_422_with_the_field(client, driver):
    token = driver_token(client, driver)
    url = f"/api/v1/users/{driver.user_token}/taken"
    for query, field in [
        ("status=klaar", "status"),
        ("limit=0", "limit"),
        ("limit=5000", "limit"),
        ("van=gisteren", "van"),
        ("offset=-1", "offset"),
        ("foo=1", "foo"),
    ]:
        response = client.get(f"{url}?{query}", headers=bearer(token))
        assert response.status_code == 422, query
        assert response.get_json()["errors"][0]["field"] == field, query
