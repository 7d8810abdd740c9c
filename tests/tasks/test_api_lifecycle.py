"""The task lifecycle in the API: reading, changing, moving, completing, deleting."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from factories import (
    bearer,
    create_api_key,
    create_carrier,
    create_driver,
    create_task,
    create_vehicle,
    driver_token,
    in_carrier,
)
from factories import upload_file as upload

from portal.tasks.schemas import TaskOut


def at(hours: float) -> str:
    return (datetime.now(UTC) + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


@pytest.fixture
def token(client, driver) -> str:
    return driver_token(client, driver)


def move(client, token, task_id, status, **evidence):
    return client.patch(
        f"/api/v1/taken/{task_id}/status",
        json={"status": status, **evidence},
        headers=bearer(token),
    )


# --- reading ---------------------------------------------------------------------------


def test_get_one_task_with_its_etag(app, client, carrier, driver, token):
    task = create_task(app, carrier, driver, naam="Voer Enter")
    response = client.get(f"/api/v1/taken/{task.id}", headers=bearer(token))
    assert response.status_code == 200
    assert response.get_json()["naam"] == "Voer Enter"
    assert response.headers["ETag"] == '"1"'
    TaskOut.model_validate(response.get_json())


def test_a_driver_reads_only_its_own_tasks(app, client, carrier, driver, token):
    colleague = create_driver(app, carrier, "Piet")
    theirs = create_task(app, carrier, colleague)
    mine = create_task(app, carrier, driver)
    assert client.get(f"/api/v1/taken/{theirs.id}", headers=bearer(token)).status_code == 403
    listed = client.get("/api/v1/taken", headers=bearer(token)).get_json()
    assert [t["id"] for t in listed] == [str(mine.id)]


def test_list_filters(app, client, carrier, driver, api_key):
    vehicle = create_vehicle(app, carrier)
    colleague = create_driver(app, carrier, "Piet")
    create_task(app, carrier, driver, naam="Mest Enter", stad="Enter", gepland_op=datetime.now(UTC))
    create_task(
        app, carrier, colleague, naam="Voer Epe", type="voer_leveren", vehicle_id=vehicle.id
    )
    create_task(app, carrier, driver, naam="Klaar", status="afgerond")
    key = bearer(api_key.key)

    def names(query):
        response = client.get(f"/api/v1/taken?{query}", headers=key)
        assert response.status_code == 200, response.get_json()
        return sorted(t["naam"] for t in response.get_json())

    assert names("") == ["Klaar", "Mest Enter", "Voer Epe"]
    assert names(f"chauffeur={colleague.user_token}") == ["Voer Epe"]
    assert names(f"vehicle_id={vehicle.id}") == ["Voer Epe"]
    assert names("type=voer_leveren") == ["Voer Epe"]
    assert names("status=afgerond") == ["Klaar"]
    assert names("q=enter") == ["Mest Enter"]
    assert names(f"van={datetime.now(UTC).date()}") == ["Mest Enter"]
    unknown = client.get("/api/v1/taken?chauffeur=nobody", headers=key)
    assert unknown.status_code == 422 and unknown.get_json()["errors"][0]["field"] == "chauffeur"


def test_the_carriers_list_is_for_its_own_carrier_only(app, client, carrier, driver, api_key):
    create_task(app, carrier, driver)
    own = client.get(f"/api/v1/transporteurs/{carrier.id}/taken", headers=bearer(api_key.key))
    assert own.status_code == 200 and len(own.get_json()) == 1
    other = create_carrier(app, "Ander")
    foreign = client.get(f"/api/v1/transporteurs/{other.id}/taken", headers=bearer(api_key.key))
    assert foreign.status_code == 404


# --- changing --------------------------------------------------------------------------


def test_patch_changes_only_the_fields_sent_and_bumps_the_etag(
    app, client, carrier, driver, api_key
):
    task = create_task(app, carrier, driver, naam="Oud", stad="Enter")
    response = client.patch(
        f"/api/v1/taken/{task.id}",
        json={"naam": "Nieuw"},
        headers={**bearer(api_key.key), "If-Match": '"1"'},
    )
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["naam"] == "Nieuw" and body["stad"] == "Enter"
    assert response.headers["ETag"] == '"2"'


def test_a_stale_if_match_is_412_and_changes_nothing(app, client, carrier, driver, api_key):
    task = create_task(app, carrier, driver, naam="Oud")
    client.patch(f"/api/v1/taken/{task.id}", json={"naam": "Eerst"}, headers=bearer(api_key.key))
    stale = client.patch(
        f"/api/v1/taken/{task.id}",
        json={"naam": "Later"},
        headers={**bearer(api_key.key), "If-Match": '"1"'},
    )
    assert stale.status_code == 412
    assert stale.mimetype == "application/problem+json"
    assert (
        client.get(f"/api/v1/taken/{task.id}", headers=bearer(api_key.key)).get_json()["naam"]
        == "Eerst"
    )


def test_patch_refuses_bad_values_and_foreign_references(app, client, carrier, driver, api_key):
    task = create_task(app, carrier, driver)
    foreign = create_driver(app, create_carrier(app, "Ander"))
    for body, field in [
        ({"naam": None}, "body"),
        ({"land": "NLD"}, "land"),
        ({"chauffeur_id": str(foreign.id)}, "chauffeur_id"),
        ({"min_fotos": 5, "max_fotos": 2}, "min_fotos"),
        ({"status": "afgerond"}, "status"),
    ]:
        response = client.patch(f"/api/v1/taken/{task.id}", json=body, headers=bearer(api_key.key))
        assert response.status_code == 422, body
        fields = [e["field"] for e in response.get_json()["errors"]]
        assert field in fields or field == "body", (body, fields)


def test_a_driver_cannot_patch_fields(client, app, carrier, driver, token):
    task = create_task(app, carrier, driver)
    response = client.patch(f"/api/v1/taken/{task.id}", json={"naam": "x"}, headers=bearer(token))
    assert response.status_code == 403


# --- moving ----------------------------------------------------------------------------


def test_a_driver_moves_its_task_and_each_move_stamps_its_time(app, client, carrier, driver, token):
    task = create_task(app, carrier, driver)
    received = move(client, token, task.id, "ontvangen")
    assert received.status_code == 200
    assert received.get_json()["ontvangen_op"] is not None
    started = move(client, token, task.id, "gestart").get_json()
    assert started["status"] == "gestart" and started["gestart_op"] is not None
    done = move(client, token, task.id, "afgerond").get_json()
    assert done["status"] == "afgerond" and done["afgerond_op"] is not None


def test_a_skipped_ontvangen_is_stamped_with_the_start(app, client, carrier, driver, token):
    task = create_task(app, carrier, driver)
    started = move(client, token, task.id, "gestart").get_json()
    assert started["ontvangen_op"] == started["gestart_op"]


def test_an_illegal_move_is_409_with_the_allowed_moves(app, client, carrier, driver, token):
    task = create_task(app, carrier, driver)
    response = move(client, token, task.id, "afgerond")
    assert response.status_code == 409
    body = response.get_json()
    assert body["allowed"] == ["ontvangen", "gestart", "geannuleerd"]
    cancelled = create_task(app, carrier, driver, status="geannuleerd")
    assert move(client, token, cancelled.id, "gestart").get_json()["allowed"] == []


def test_only_the_office_reopens_a_completed_task(app, client, carrier, driver, token, api_key):
    task = create_task(app, carrier, driver, status="afgerond", afgerond_op=datetime.now(UTC))
    assert move(client, token, task.id, "gestart").status_code == 409
    reopened = move(client, api_key.key, task.id, "gestart")
    assert reopened.status_code == 200
    assert reopened.get_json()["afgerond_op"] is None


def test_an_unknown_status_is_422(app, client, carrier, driver, token):
    task = create_task(app, carrier, driver)
    assert move(client, token, task.id, "klaar").status_code == 422


# --- completing ------------------------------------------------------------------------


def test_completion_lists_every_missing_demand(app, client, carrier, driver, token):
    task = create_task(
        app,
        carrier,
        driver,
        status="gestart",
        require_photos=True,
        min_fotos=2,
        require_signature=True,
        require_document_scan=True,
        agr_verplicht=True,
        required_temperatuur=4,
        required_desinfectie=True,
    )
    response = move(client, token, task.id, "afgerond")
    assert response.status_code == 422
    fields = [e["field"] for e in response.get_json()["errors"]]
    assert fields == ["fotos", "handtekening", "scan", "locatie", "temperatuur", "desinfectie"]
    assert "at least 2 photo" in response.get_json()["errors"][0]["message"]
    assert (
        client.get(f"/api/v1/taken/{task.id}", headers=bearer(token)).get_json()["status"]
        == "gestart"
    )


def test_completion_with_the_evidence_succeeds(app, client, carrier, driver, token):
    task = create_task(
        app,
        carrier,
        driver,
        status="gestart",
        require_photos=True,
        min_fotos=2,
        max_fotos=3,
        require_signature=True,
        agr_verplicht=True,
        required_temperatuur=4,
        required_desinfectie=True,
    )
    photos = [upload(client, token), upload(client, token)]
    signature = upload(client, token, "signature")
    refused = move(client, token, task.id, "afgerond", fotos=photos[:1])
    assert refused.status_code == 422
    done = move(
        client,
        token,
        task.id,
        "afgerond",
        fotos=photos[1:],
        handtekeningen=[signature],
        locatie_lat=52.3,
        locatie_lng=6.6,
        temperatuur=3.8,
        desinfectie_bevestigd=True,
    )
    assert done.status_code == 200, done.get_json()
    details = client.get(f"/api/v1/taken/{task.id}/details", headers=bearer(token)).get_json()
    assert sorted(e["soort"] for e in details["bewijzen"]) == ["photo", "photo", "signature"]
    assert details["gemeten_temperatuur"] == 3.8 and details["afgerond_lat"] == 52.3


def test_more_photos_than_allowed_are_refused(app, client, carrier, driver, token):
    task = create_task(app, carrier, driver, status="gestart", require_photos=True, max_fotos=1)
    photos = [upload(client, token), upload(client, token)]
    response = move(client, token, task.id, "afgerond", fotos=photos)
    assert response.status_code == 422
    assert "at most 1" in response.get_json()["errors"][0]["message"]


def test_evidence_must_be_the_carriers_own_files_of_the_right_kind(
    app, client, carrier, driver, token
):
    other = create_carrier(app, "Ander")
    stranger = create_driver(app, other, "Vreemd")
    foreign_file = upload(client, driver_token(client, stranger))
    signature = upload(client, token, "signature")
    task = create_task(app, carrier, driver, status="gestart", require_photos=True)
    response = move(client, token, task.id, "afgerond", fotos=[foreign_file, signature])
    assert response.status_code == 422
    messages = " ".join(e["message"] for e in response.get_json()["errors"])
    assert "no such file" in messages and "is a signature" in messages


def test_afronding_completes_and_records_the_billing_line(app, client, carrier, driver, token):
    task = create_task(app, carrier, driver, status="gestart", hoeveelheid=30, eenheid="ton")
    response = client.post(
        f"/api/v1/taken/{task.id}/afronding",
        json={"hoeveelheid": 28.4, "kilometers": 42, "wachttijd_minuten": 15},
        headers=bearer(token),
    )
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["taak"]["status"] == "afgerond"
    line = body["facturatieregel"]
    assert line["hoeveelheid"] == 28.4 and line["eenheid"] == "ton"
    assert line["kilometers"] == 42 and line["geexporteerd"] is False
    again = client.post(
        f"/api/v1/taken/{task.id}/afronding", json={"kilometers": 44}, headers=bearer(token)
    ).get_json()
    assert again["facturatieregel"]["id"] == line["id"]
    assert again["facturatieregel"]["kilometers"] == 44


def test_afronding_refuses_what_completion_refuses(app, client, carrier, driver, token):
    task = create_task(app, carrier, driver, status="gestart", require_signature=True)
    response = client.post(f"/api/v1/taken/{task.id}/afronding", json={}, headers=bearer(token))
    assert response.status_code == 422
    assert response.get_json()["errors"][0]["field"] == "handtekening"


# --- deleting --------------------------------------------------------------------------


def test_deleting_a_planned_task_removes_it(app, client, carrier, driver, api_key):
    task = create_task(app, carrier, driver)
    response = client.delete(f"/api/v1/taken/{task.id}", headers=bearer(api_key.key))
    assert response.get_json() == {"verwijderd": 1, "gearchiveerd": 0}
    assert client.get(f"/api/v1/taken/{task.id}", headers=bearer(api_key.key)).status_code == 404


def test_deleting_completed_work_archives_it_and_keeps_the_billing_line(
    app, client, carrier, driver, token, api_key
):
    task = create_task(app, carrier, driver, status="gestart")
    client.post(f"/api/v1/taken/{task.id}/afronding", json={"kilometers": 3}, headers=bearer(token))
    response = client.delete(f"/api/v1/taken/{task.id}", headers=bearer(api_key.key))
    assert response.get_json() == {"verwijderd": 0, "gearchiveerd": 1}
    assert client.get(f"/api/v1/taken/{task.id}", headers=bearer(api_key.key)).status_code == 404

    from portal.billing.models import BillingLine
    from portal.extensions import db
    from portal.tasks.service import get_task

    def still_there():
        return (
            get_task(carrier_id=carrier.id, task_id=task.id, archived=True).gearchiveerd_op,
            db.session.query(BillingLine).count(),
        )

    archived_at, lines = in_carrier(app, carrier.id, still_there)
    assert archived_at is not None and lines == 1


def test_deleting_all_tasks_of_a_driver(app, client, carrier, driver, api_key):
    create_task(app, carrier, driver)
    create_task(app, carrier, driver, status="afgerond", afgerond_op=datetime.now(UTC))
    other = create_driver(app, carrier, "Piet")
    kept = create_task(app, carrier, other)
    response = client.delete(
        f"/api/v1/users/{driver.user_token}/taken", headers=bearer(api_key.key)
    )
    assert response.get_json() == {"verwijderd": 1, "gearchiveerd": 1}
    remaining = client.get("/api/v1/taken", headers=bearer(api_key.key)).get_json()
    assert [t["id"] for t in remaining] == [str(kept.id)]


def test_a_driver_cannot_delete(app, client, carrier, driver, token):
    task = create_task(app, carrier, driver)
    assert client.delete(f"/api/v1/taken/{task.id}", headers=bearer(token)).status_code == 403


# --- idempotency -----------------------------------------------------------------------


def test_a_create_retried_with_the_same_key_creates_one_task(client, driver, api_key):
    url = f"/api/v1/users/{driver.user_token}/taken"
    headers = {**bearer(api_key.key), "Idempotency-Key": "tms-order-4711"}
    body = {"type": "mest_laden", "naam": "Mest Enter"}
    first = client.post(url, json=body, headers=headers)
    again = client.post(url, json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.get_json()["id"] == first.get_json()["id"]
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["Location"] == first.headers["Location"]
    assert len(client.get(url, headers=bearer(api_key.key)).get_json()) == 1


def test_reusing_a_key_for_another_body_is_422(client, driver, api_key):
    url = f"/api/v1/users/{driver.user_token}/taken"
    headers = {**bearer(api_key.key), "Idempotency-Key": "k-1"}
    client.post(url, json={"type": "mest_laden", "naam": "A"}, headers=headers)
    response = client.post(url, json={"type": "mest_laden", "naam": "B"}, headers=headers)
    assert response.status_code == 422
    assert response.get_json()["errors"][0]["field"] == "Idempotency-Key"


def test_keys_are_per_caller(app, client, carrier, driver, api_key):
    other_key = create_api_key(app, carrier, "ander systeem")
    url = f"/api/v1/users/{driver.user_token}/taken"
    body = {"type": "mest_laden", "naam": "A"}
    a = client.post(url, json=body, headers={**bearer(api_key.key), "Idempotency-Key": "same"})
    b = client.post(url, json=body, headers={**bearer(other_key.key), "Idempotency-Key": "same"})
    assert a.get_json()["id"] != b.get_json()["id"]


def test_a_refused_request_is_not_remembered(client, driver, api_key):
    url = f"/api/v1/users/{driver.user_token}/taken"
    headers = {**bearer(api_key.key), "Idempotency-Key": "retry-me"}
    assert client.post(url, json={"type": "mest_laden"}, headers=headers).status_code == 422
    # Fixed and sent again with the same key... a different body: 422 would be wrong here.
    fixed = client.post(url, json={"type": "mest_laden", "naam": "A"}, headers=headers)
    assert fixed.status_code == 201


def test_a_status_move_retried_with_its_key_is_not_a_409(app, client, carrier, driver, token):
    task = create_task(app, carrier, driver)
    headers = {**bearer(token), "Idempotency-Key": "start-1"}
    first = client.patch(
        f"/api/v1/taken/{task.id}/status", json={"status": "gestart"}, headers=headers
    )
    again = client.patch(
        f"/api/v1/taken/{task.id}/status", json={"status": "gestart"}, headers=headers
    )
    assert first.status_code == again.status_code == 200


def test_a_bad_idempotency_key_is_422(client, driver, api_key):
    response = client.post(
        f"/api/v1/users/{driver.user_token}/taken",
        json={"type": "mest_laden", "naam": "A"},
        headers={**bearer(api_key.key), "Idempotency-Key": "x" * 300},
    )
    assert response.status_code == 422


def test_an_upload_with_a_nameless_part_is_kept_by_its_key(client, driver, api_key):
    """A multipart part without a name (schemathesis' stateful walk sent one) is part of the
    request like any other: the upload is answered, and its retry replays it."""
    from factories import png_bytes

    boundary = "grens"
    parts = [
        b'Content-Disposition: form-data; name="soort"\r\n\r\nphoto',
        b"Content-Disposition: form-data\r\n\r\nzonder naam",
        b'Content-Disposition: form-data; name="file"; filename="f.png"\r\n'
        b"Content-Type: image/png\r\n\r\n" + png_bytes(),
    ]
    body = b"".join(b"--grens\r\n" + part + b"\r\n" for part in parts) + b"--grens--\r\n"
    headers = {**bearer(api_key.key), "Idempotency-Key": "upload-1"}
    sent = {"data": body, "content_type": f"multipart/form-data; boundary={boundary}"}
    first = client.post("/api/v1/bestanden", headers=headers, **sent)
    again = client.post("/api/v1/bestanden", headers=headers, **sent)
    assert first.status_code == again.status_code == 201, first.get_data(as_text=True)
    assert again.get_json()["id"] == first.get_json()["id"]
    assert again.headers["Idempotent-Replayed"] == "true"
