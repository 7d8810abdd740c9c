"""A webhook's signing secret is shown once: a retry of the request that showed it (its
Idempotency-Key) answers the endpoint without it, also after the endpoint is deleted, and the
idempotency record never holds it; records kept from before are blanked by the migration."""

from __future__ import annotations

import json
import uuid

import pytest
from conftest import PG_AVAILABLE, base_config
from factories import bearer, create_api_key, in_carrier
from flask_migrate import upgrade
from sqlalchemy import select, text
from test_migrations import owner_database

from portal import create_app
from portal.extensions import db
from portal.idempotency.models import IdempotencyRecord


@pytest.fixture
def key(app, carrier):
    return bearer(create_api_key(app, carrier).key)


def stored_answers(app, carrier) -> list[str]:
    return in_carrier(
        app,
        carrier.id,
        lambda: list(db.session.scalars(select(IdempotencyRecord.response_body))),
    )


def test_a_retried_registration_answers_the_endpoint_without_its_secret(app, client, carrier, key):
    body = {"url": "https://tms.vervoer.nl/in", "gebeurtenissen": ["taak.aangemaakt"]}
    sent = {**key, "Idempotency-Key": "register-1"}
    made = client.post("/api/v1/webhooks", json=body, headers=sent)
    assert made.status_code == 201
    shown = made.get_json()
    assert shown["geheim"].startswith("whsec_")
    renew = f"/api/v1/webhooks/{shown['id']}/geheim"
    assert shown["geheim_vernieuwen"] == renew

    again = client.post("/api/v1/webhooks", json=body, headers=sent)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    replay = again.get_json()
    assert replay["geheim"] is None and replay["geheim_vernieuwen"] == renew
    assert replay["id"] == shown["id"] and replay["url"] == body["url"]
    assert not any("whsec_" in answer for answer in stored_answers(app, carrier))

    assert client.delete(f"/api/v1/webhooks/{shown['id']}", headers=key).status_code == 204
    after = client.post("/api/v1/webhooks", json=body, headers=sent)
    assert after.status_code == 201 and after.get_json()["geheim"] is None
    assert shown["geheim"] not in after.get_data(as_text=True)


def test_a_retried_rotation_answers_no_secret_and_the_link_rotates_again(app, client, carrier, key):
    made = client.post(
        "/api/v1/webhooks",
        json={"url": "https://tms.vervoer.nl/in", "gebeurtenissen": ["taak.afgerond"]},
        headers=key,
    ).get_json()
    renew = made["geheim_vernieuwen"]
    sent = {**key, "Idempotency-Key": "rotate-1"}
    rotated = client.post(renew, headers=sent)
    assert rotated.status_code == 200
    secret = rotated.get_json()["geheim"]
    assert secret.startswith("whsec_") and secret != made["geheim"]

    again = client.post(renew, headers=sent)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["geheim"] is None and again.get_json()["geheim_vernieuwen"] == renew
    assert secret not in again.get_data(as_text=True)
    assert not any("whsec_" in answer for answer in stored_answers(app, carrier))

    newest = client.post(renew, headers={**key, "Idempotency-Key": "rotate-2"}).get_json()
    assert newest["geheim"].startswith("whsec_") and newest["geheim"] != secret


def test_an_idempotent_operation_that_shows_a_secret_must_name_it():
    """Registering an operation whose answer has a secret field, without `reveals`, fails at
    start-up: no future operation can keep a secret in the idempotency records by mistake."""
    from pydantic import BaseModel

    from portal.api.core import operation, write

    class KeyOut(BaseModel):
        id: str
        api_key: str

    @write
    def handler():  # pragma: no cover - never registered
        return None

    with pytest.raises(TypeError, match="api_key"):
        operation("/never", "POST", scope="tasks:write", summary="x", tag="x", response=KeyOut)(
            handler
        )


# --- records kept before this release -------------------------------------------------------


def _blanked_after_upgrade(url: str, tmp_path) -> tuple[str, str]:
    """At the revision before, store the answers of a registration and a task create as
    they were kept; upgrade: the registration's answer as kept now, and its endpoint id."""
    app = create_app({**base_config(tmp_path), "SQLALCHEMY_DATABASE_URI": url})
    carrier = str(uuid.uuid4())
    endpoint = str(uuid.uuid4())
    scope = "SELECT set_config('app.transporteur_id', :c, true)"
    answers = {
        "register": json.dumps(
            {"id": endpoint, "url": "https://tms.vervoer.nl/in", "geheim": "whsec_AbC"}
        ),
        "task": json.dumps({"id": str(uuid.uuid4()), "naam": "Rit"}),
    }
    with app.app_context():
        upgrade(revision="c0d1c0de0310")
        postgres = db.engine.dialect.name == "postgresql"
        with db.engine.begin() as conn:
            if postgres:
                conn.execute(text(scope), {"c": carrier})
            conn.execute(
                text(
                    "INSERT INTO transporteurs (id, naam, tijdzone, created_at) "
                    "VALUES (:c, 'T', 'Europe/Amsterdam', CURRENT_TIMESTAMP)"
                ),
                {"c": carrier},
            )
            for name, answer in answers.items():
                conn.execute(
                    text(
                        "INSERT INTO idempotency_records (transporteur_id, id, caller, key, "
                        "request_hash, status, response_status, response_body, "
                        "response_headers, created_at, verloopt_op) VALUES (:c, :id, "
                        "'api_key:x', :k, 'h', 'done', 201, :b, '{}', CURRENT_TIMESTAMP, "
                        "CURRENT_TIMESTAMP)"
                    ),
                    {"c": carrier, "id": str(uuid.uuid4()), "k": name, "b": answer},
                )
        upgrade()
        with db.engine.begin() as conn:
            if postgres:
                conn.execute(text(scope), {"c": carrier})
            rows = conn.execute(text("SELECT key, response_body FROM idempotency_records")).all()
        db.engine.dispose()
    found = dict(rows)
    assert found["task"] == answers["task"]  # other answers are kept as they were
    return found["register"], endpoint


def _check_blanked(found) -> None:
    answer, endpoint = found
    assert "whsec_" not in answer
    assert json.loads(answer) == {
        "id": endpoint,
        "url": "https://tms.vervoer.nl/in",
        "geheim": None,
        "geheim_vernieuwen": f"/api/v1/webhooks/{endpoint}/geheim",
    }


def test_kept_answers_lose_their_secret_on_upgrade(tmp_path):
    _check_blanked(_blanked_after_upgrade(f"sqlite:///{tmp_path / 'old.sqlite'}", tmp_path))


@pytest.mark.skipif(not PG_AVAILABLE, reason="PostgreSQL does not answer")
def test_kept_answers_are_blanked_by_an_owner_held_by_row_level_security(tmp_path):
    with owner_database() as url:
        _check_blanked(_blanked_after_upgrade(url, tmp_path))
