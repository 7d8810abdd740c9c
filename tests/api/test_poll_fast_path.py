"""The driver's poll and GET /activity_questionnaires read the fast way (plain rows, cached
definitions, one round trip on PostgreSQL): the same bytes as the ORM path, an ETag that
follows every change, compressed answers kept by ETag, and a pooled connection the server
closed meanwhile replaced without an error."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime, timedelta

import orjson
import psycopg
import pytest
from conftest import clear_process_caches
from factories import (
    bearer,
    create_api_key,
    create_task,
    create_vehicle,
    driver_token,
    publish_questionnaire,
    questionnaire_doc,
)

from portal.extensions import db
from portal.questionnaires import service as questionnaires
from portal.questionnaires.schemas import serialize_revision
from portal.tasks import service as tasks
from portal.tasks.schemas import serialize_task
from portal.tenancy import carrier_scope

# A moment with microseconds: the API writes milliseconds, truncated (….123Z, not ….124Z).
MOMENT = datetime(2026, 11, 26, 6, 30, 15, 123987, tzinfo=UTC)


def every_field(app, carrier, driver):
    """Tasks with every field set, with every optional field null, and completed today."""
    publish_questionnaire(app, carrier)
    publish_questionnaire(app, carrier, questionnaire_doc("voer_leveren"))
    vehicle = create_vehicle(app, carrier, "BX-12-AB")
    create_task(
        app,
        carrier,
        driver,
        vehicle_id=vehicle.id,
        omschrijving='Mest "laden" \\ met é, ø en 🚜\nop twee regels',
        artikel="Rundveedrijfmest",
        hoeveelheid=28.125,
        eenheid="ton",
        adres="Hengelosestraat 1",
        postcode="7511 AA",
        stad="Enschede",
        land="NL",
        contactpersoon="Jan",
        telefoon="053-1234567",
        telefoon_mobiel="06-12345678",
        gepland_op=MOMENT,
        duur_min=95,
        require_photos=True,
        min_fotos=1,
        max_fotos=4,
        require_signature=True,
        require_document_scan=True,
        require_location=True,
        photo_label="Bon",
        opmerkingen="Achterom",
        vdm_nummer="2611240815",
        agr_verplicht=True,
        required_desinfectie=True,
        required_temperatuur=-18.5,
        kooiaap=True,
        locatie_lat=52.2215,
        locatie_lng=6.8937,
        status="gestart",
        ontvangen_op=MOMENT + timedelta(minutes=1),
        gestart_op=MOMENT + timedelta(minutes=2, microseconds=999),
    )
    create_task(app, carrier, driver, type="zonder_vragenlijst", naam="Leeg")
    create_task(
        app,
        carrier,
        driver,
        type="voer_leveren",
        naam="Voer Epe",
        gepland_op=MOMENT - timedelta(days=3),
        status="afgerond",
        afgerond_op=datetime.now(UTC),  # today also just after midnight in Amsterdam
    )


def orm_answer(app, carrier, driver) -> bytes:
    """What the ORM path (serialize_task) writes for the driver's default list."""
    with app.app_context(), carrier_scope(db.session, carrier.id):
        filters = tasks.TaskFilters(chauffeur_id=driver.id, default_window=True)
        page = tasks.list_tasks(carrier_id=carrier.id, filters=filters)
        return orjson.dumps([serialize_task(t, page.definitions) for t in page.tasks])


def test_the_poll_writes_the_same_bytes_as_the_orm_path(app, client, carrier, driver):
    every_field(app, carrier, driver)
    token = driver_token(client, driver)
    url = f"/api/v1/users/{driver.user_token}/taken"

    response = client.get(url, headers=bearer(token))

    assert response.status_code == 200
    assert response.headers["X-Total-Count"] == "3"
    expected = orm_answer(app, carrier, driver)
    assert response.get_data() == expected
    found = orjson.loads(response.get_data())
    assert [t["naam"] for t in found] == ["Voer Epe", "Mest laden Enter", "Leeg"]
    assert found[1]["gepland_op"] == "2026-11-26T06:30:15.123Z"
    assert found[1]["vragenpad"]["activity_type"] == "mest_laden"
    assert found[2]["vragenpad"] is None and found[2]["gepland_op"] is None
    # Cached definitions and a second poll give the same bytes again.
    assert client.get(url, headers=bearer(token)).get_data() == expected


def test_a_compressed_poll_is_kept_and_answers_the_same_json(app, client, carrier, driver):
    every_field(app, carrier, driver)
    token = driver_token(client, driver)
    url = f"/api/v1/users/{driver.user_token}/taken"
    plain = client.get(url, headers=bearer(token))
    zipped = {**bearer(token), "Accept-Encoding": "gzip"}

    first = client.get(url, headers=zipped)
    again = client.get(url, headers=zipped)

    assert first.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in first.headers["Vary"]
    assert gzip.decompress(first.get_data()) == plain.get_data()
    assert again.get_data() == first.get_data()
    assert first.headers["ETag"] == plain.headers["ETag"][:-1] + ':gzip"'
    # The compressed ETag sent back is recognised: 304.
    unchanged = client.get(url, headers={**zipped, "If-None-Match": first.headers["ETag"]})
    assert unchanged.status_code == 304
    # A change makes a new answer, not the kept one.
    create_task(app, carrier, driver, naam="Nieuw erbij", gepland_op=MOMENT + timedelta(days=1))
    changed = client.get(url, headers={**zipped, "If-None-Match": first.headers["ETag"]})
    assert changed.status_code == 200
    assert changed.headers["ETag"] != first.headers["ETag"]
    assert "Nieuw erbij" in gzip.decompress(changed.get_data()).decode()


def test_a_deactivated_driver_is_refused_by_the_fast_poll(app, client, carrier, driver):
    from factories import in_carrier

    from portal.audit.service import SYSTEM
    from portal.drivers import service as drivers

    token = driver_token(client, driver)
    url = f"/api/v1/users/{driver.user_token}/taken"
    first = client.get(url, headers=bearer(token))
    assert first.status_code == 200
    in_carrier(
        app,
        carrier.id,
        lambda: drivers.deactivate_driver(carrier_id=carrier.id, driver_id=driver.id, actor=SYSTEM),
    )

    for headers in ({}, {"If-None-Match": first.headers["ETag"]}, {"Accept-Encoding": "gzip"}):
        refused = client.get(url, headers={**bearer(token), **headers})
        assert refused.status_code == 401, headers
        assert refused.mimetype == "application/problem+json"


@pytest.mark.postgres_only
def test_a_poll_is_one_round_trip_on_postgresql(app, client, carrier, driver, count_queries):
    every_field(app, carrier, driver)
    token = driver_token(client, driver)
    url = f"/api/v1/users/{driver.user_token}/taken"
    client.get(url, headers=bearer(token))  # a warm worker: definitions and time zone kept

    with count_queries(cold=False) as full:
        answer = client.get(url, headers=bearer(token))
    with count_queries(cold=False) as unchanged:
        not_modified = client.get(
            url, headers={**bearer(token), "If-None-Match": answer.headers["ETag"]}
        )

    assert answer.status_code == 200 and not_modified.status_code == 304
    # One message each: the carrier setting, the token's check beside the fingerprint in
    # one statement (and the rows).
    assert (full.messages, full.count) == (1, 2), full.statements
    assert (unchanged.messages, unchanged.count) == (1, 1), unchanged.statements
    assert "FROM chauffeurs" in unchanged.statements[0]
    assert "count(*)" in unchanged.statements[0]
    assert "LIMIT" in full.statements[1]


def test_activity_questionnaires_write_the_same_bytes_and_follow_changes(
    app, client, carrier, driver
):
    publish_questionnaire(app, carrier)
    publish_questionnaire(app, carrier, questionnaire_doc("voer_leveren"))
    token = driver_token(client, driver)
    url = "/api/v1/activity_questionnaires"

    first = client.get(url, headers=bearer(token))

    with app.app_context(), carrier_scope(db.session, carrier.id):
        rows, _ = questionnaires.list_active(carrier_id=carrier.id)
        expected = orjson.dumps([serialize_revision(row) for row in rows])
    assert first.status_code == 200
    assert first.get_data() == expected
    assert first.headers["X-Total-Count"] == "2"
    etag = first.headers["ETag"]
    assert client.get(url, headers={**bearer(token), "If-None-Match": etag}).status_code == 304

    # A new revision of a type replaces the active one: a new ETag, the new definition.
    publish_questionnaire(app, carrier, questionnaire_doc("voer_leveren", title="Voer v2"))
    changed = client.get(url, headers={**bearer(token), "If-None-Match": etag})
    assert changed.status_code == 200
    assert changed.headers["ETag"] != etag
    titles = sorted(r["definition"]["title"] for r in changed.get_json())
    assert titles == ["Mest laden", "Voer v2"]


def test_activity_questionnaires_for_an_api_key(app, client, carrier):
    publish_questionnaire(app, carrier)
    key = create_api_key(app, carrier)
    response = client.get(
        "/api/v1/activity_questionnaires?activity_type=mest_laden", headers=bearer(key.key)
    )
    assert response.status_code == 200
    assert [r["activity_type"] for r in response.get_json()] == ["mest_laden"]


@pytest.mark.postgres_only  # pooled server connections are PostgreSQL's
def test_a_connection_the_server_closed_is_replaced_without_an_error(app, client, carrier, driver):
    every_field(app, carrier, driver)
    token = driver_token(client, driver)
    url = f"/api/v1/users/{driver.user_token}/taken"
    assert client.get(url, headers=bearer(token)).status_code == 200
    clear_process_caches()
    # The server ends every connection of the app's pool (a restart, a pooler's timeout).
    admin_url = app.config["DATABASE_ADMIN_URL"].replace("+psycopg", "")
    with psycopg.connect(admin_url, autocommit=True) as admin:
        ended = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND usename <> current_user"
        ).fetchone()[0]
    assert ended >= 1
    # pg_terminate_backend only signals: wait (bounded, no sleep) until those have ended.
    with psycopg.connect(admin_url, autocommit=True) as admin:
        for _ in range(10_000):
            left = admin.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND usename <> current_user"
            ).fetchone()[0]
            if not left:
                break
        assert not left

    again = client.get(url, headers=bearer(token))
    profile = client.get(f"/api/v1/users/{driver.user_token}", headers=bearer(token))

    assert again.status_code == 200
    assert profile.status_code == 200


def test_an_unchanged_poll_is_answered_before_flask_with_flasks_headers(
    app, client, carrier, driver
):
    every_field(app, carrier, driver)
    token = driver_token(client, driver)
    url = f"/api/v1/users/{driver.user_token}/taken"
    etag = client.get(url, headers=bearer(token)).headers["ETag"]
    polls = {**bearer(token), "If-None-Match": etag, "X-Request-ID": "poll-00000001"}
    from flask import request_started

    flask_saw = []

    def seen(sender, **extra):
        flask_saw.append(True)

    request_started.connect(seen, app)
    try:
        early = client.get(url, headers=polls)
        app.config["UNCHANGED_POLLS_BEFORE_FLASK"] = False
        by_flask = client.get(url, headers=polls)
        app.config["UNCHANGED_POLLS_BEFORE_FLASK"] = True
    finally:
        request_started.disconnect(seen, app)

    assert early.status_code == by_flask.status_code == 304
    assert flask_saw == [True]  # only the second went through Flask
    assert sorted(early.headers.items()) == sorted(by_flask.headers.items())
    assert early.headers["X-Request-ID"] == "poll-00000001"


def test_what_the_early_answer_does_not_confirm_goes_to_flask(app, client, carrier, driver):
    from factories import create_driver, in_carrier

    from portal.audit.service import SYSTEM
    from portal.drivers import tokens

    token = driver_token(client, driver)
    url = f"/api/v1/users/{driver.user_token}/taken"
    etag = client.get(url, headers=bearer(token)).headers["ETag"]
    polls = {**bearer(token), "If-None-Match": etag}
    assert client.get(url, headers=polls).status_code == 304
    # Another driver's list: Flask's 403, not a 304.
    colleague = create_driver(app, carrier, "Piet Smit")
    other = client.get(f"/api/v1/users/{colleague.user_token}/taken", headers=polls)
    assert other.status_code == 403
    # A forged token: Flask's 401.
    forged = {**polls, "Authorization": "Bearer " + token[:-4] + "AAAA"}
    assert client.get(url, headers=forged).status_code == 401
    # A changed list: the new answer.
    create_task(app, carrier, driver, naam="Erbij gekomen")
    changed = client.get(url, headers=polls)
    assert changed.status_code == 200 and changed.get_json()[0]["naam"] == "Erbij gekomen"
    # Signed out on the phone: 401, however unchanged the list.
    etag = changed.headers["ETag"]
    in_carrier(
        app,
        carrier.id,
        lambda: tokens.sign_out_phone(carrier_id=carrier.id, driver_id=driver.id, actor=SYSTEM),
    )
    signed_out = client.get(url, headers={**bearer(token), "If-None-Match": etag})
    assert signed_out.status_code == 401


def test_unchanged_questionnaires_answer_304_and_the_plain_answer_is_kept(
    app, client, carrier, driver, count_queries
):
    publish_questionnaire(app, carrier)
    token = driver_token(client, driver)
    url = "/api/v1/activity_questionnaires"
    first = client.get(url, headers=bearer(token))
    with count_queries(cold=False) as again:
        second = client.get(url, headers=bearer(token))
    assert second.get_data() == first.get_data()
    assert not any("definition" in s for s in again.statements)  # the kept answer
    assert (
        client.get(url, headers={**bearer(token), "If-None-Match": first.headers["ETag"]})
    ).status_code == 304
