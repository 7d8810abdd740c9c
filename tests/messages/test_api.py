"""Notifications in the API: sending, the driver's inbox, marking read, push subscriptions;
scopes, other drivers and other carriers."""

from __future__ import annotations

import re

import pytest
from factories import (
    bearer,
    create_api_key,
    create_carrier,
    create_driver,
    driver_token,
    in_carrier,
)
from sqlalchemy import update

from messages.support import Device, send, state, subscription_count
from portal.extensions import db

API = "/api/v1"
ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def assert_problem(response, status: int, field: str | None = None) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    if field is not None:
        assert field in [e["field"] for e in body["errors"]], body
    return body


@pytest.fixture
def token(client, driver) -> str:
    return driver_token(client, driver)


def post_message(client, key, user_token, **body):
    return client.post(
        f"{API}/users/{user_token}/notificaties",
        json={"titel": "Omleiding", "tekst": "Rij via de N279.", **body},
        headers=bearer(key),
    )


# --- sending ------------------------------------------------------------------------------


def test_an_integration_sends_a_message_that_lands_queued_in_the_inbox(
    client, carrier, driver, api_key, token
):
    response = post_message(client, api_key.key, driver.user_token, titel="Weegbon")
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert body["status"] == "queued"
    assert body["titel"] == "Weegbon" and body["tekst"] == "Rij via de N279."
    assert body["chauffeur_id"] == str(driver.id)
    assert body["transporteur_id"] == str(carrier.id)
    assert body["afzender"] == "API key TMS"
    assert ISO.match(body["created_at"])
    assert body["verzonden_op"] is None and body["gelezen_op"] is None
    assert body["fout"] is None and body["pogingen"] == 0
    assert response.headers["Location"] == f"{API}/notificaties/{body['id']}"

    inbox = client.get(f"{API}/users/{driver.user_token}/notificaties", headers=bearer(token))
    assert inbox.status_code == 200
    assert [m["id"] for m in inbox.get_json()] == [body["id"]]
    assert inbox.headers["X-Total-Count"] == "1"
    assert inbox.headers["X-Unread-Count"] == "1"


def test_the_message_body_is_checked_field_by_field(client, driver, api_key):
    assert_problem(post_message(client, api_key.key, driver.user_token, titel=""), 422, "titel")
    assert_problem(post_message(client, api_key.key, driver.user_token, tekst="  "), 422, "tekst")
    too_long = post_message(client, api_key.key, driver.user_token, tekst="x" * 2001)
    assert_problem(too_long, 422, "tekst")
    assert_problem(post_message(client, api_key.key, driver.user_token, kleur="rood"), 422, "kleur")
    assert post_message(client, api_key.key, driver.user_token, tekst="x" * 2000).status_code == 201


def test_a_driver_may_not_send_messages(client, driver, token):
    assert_problem(post_message(client, token, driver.user_token), 403)


def test_a_key_without_the_messages_scope_may_not_send_or_read(app, client, carrier, driver):
    key = create_api_key(app, carrier, "Alleen taken")
    in_carrier(
        app,
        carrier.id,
        lambda: db.session.execute(update_scopes(key.id, "tasks:read tasks:write")),
    )
    assert_problem(post_message(client, key.key, driver.user_token), 403)
    inbox = client.get(f"{API}/users/{driver.user_token}/notificaties", headers=bearer(key.key))
    assert_problem(inbox, 403)


def test_a_key_that_may_only_read_reads_but_does_not_send(app, client, carrier, driver):
    (message_id,) = send(app, carrier, [driver])
    key = create_api_key(app, carrier, "Lezer")
    in_carrier(app, carrier.id, lambda: db.session.execute(update_scopes(key.id, "messages:read")))
    assert (
        client.get(f"{API}/notificaties/{message_id}", headers=bearer(key.key)).status_code == 200
    )
    assert_problem(post_message(client, key.key, driver.user_token), 403)
    assert_problem(
        client.post(f"{API}/notificaties/{message_id}/gelezen", headers=bearer(key.key)), 403
    )


def update_scopes(key_id, scopes: str):
    from portal.accounts.models import ApiKey

    return update(ApiKey).where(ApiKey.id == key_id).values(scopes=scopes)


def test_an_inactive_driver_gets_no_messages(app, client, carrier, driver, api_key):
    from portal.drivers.models import Driver

    in_carrier(
        app,
        carrier.id,
        lambda: db.session.execute(
            update(Driver).where(Driver.id == driver.id).values(actief=False)
        ),
    )
    assert_problem(post_message(client, api_key.key, driver.user_token), 422, "user_token")


def test_an_idempotency_key_sends_once(client, driver, api_key, token):
    headers = {**bearer(api_key.key), "Idempotency-Key": "bericht-1"}
    body = {"titel": "Omleiding", "tekst": "Rij via de N279."}
    url = f"{API}/users/{driver.user_token}/notificaties"
    first = client.post(url, json=body, headers=headers)
    again = client.post(url, json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["id"] == first.get_json()["id"]
    inbox = client.get(url, headers=bearer(token))
    assert inbox.headers["X-Total-Count"] == "1"
    assert client.post(url, json={**body, "titel": "Anders"}, headers=headers).status_code == 422


# --- the inbox ----------------------------------------------------------------------------


def test_the_inbox_is_newest_first_paged_and_filters_unread(app, client, carrier, driver, token):
    from datetime import UTC, datetime, timedelta

    base = datetime(2026, 11, 20, 8, 0, tzinfo=UTC)
    ids = [
        send(app, carrier, [driver], f"Bericht {n}", "tekst", now=base + timedelta(hours=n))[0]
        for n in range(5)
    ]
    other = create_driver(app, carrier, "Piet Bakker")
    send(app, carrier, [other], "Niet voor Jan", "tekst")
    url = f"{API}/users/{driver.user_token}/notificaties"

    listed = client.get(url, headers=bearer(token))
    assert [m["titel"] for m in listed.get_json()] == [f"Bericht {n}" for n in (4, 3, 2, 1, 0)]
    page = client.get(url, query_string={"limit": 2, "offset": 2}, headers=bearer(token))
    assert [m["titel"] for m in page.get_json()] == ["Bericht 2", "Bericht 1"]
    assert page.headers["X-Total-Count"] == "5"

    client.post(f"{API}/notificaties/{ids[4]}/gelezen", headers=bearer(token))
    client.post(f"{API}/notificaties/{ids[1]}/gelezen", headers=bearer(token))
    unread = client.get(url, query_string={"ongelezen": "true"}, headers=bearer(token))
    assert [m["titel"] for m in unread.get_json()] == ["Bericht 3", "Bericht 2", "Bericht 0"]
    assert unread.headers["X-Total-Count"] == "3"
    assert unread.headers["X-Unread-Count"] == "3"
    assert_problem(client.get(url, query_string={"limit": 0}, headers=bearer(token)), 422, "limit")
    assert_problem(client.get(url, query_string={"ongelezen": "soms"}, headers=bearer(token)), 422)


def test_the_inbox_runs_a_fixed_number_of_queries(
    app, client, carrier, driver, token, count_queries
):
    url = f"{API}/users/{driver.user_token}/notificaties"
    send(app, carrier, [driver])
    client.get(url, headers=bearer(token))
    with count_queries() as few:
        assert client.get(url, headers=bearer(token)).status_code == 200
    for _ in range(20):
        send(app, carrier, [driver])
    with count_queries() as many:
        assert len(client.get(url, headers=bearer(token)).get_json()) == 21
    assert many.count == few.count


def test_a_driver_reads_only_its_own_inbox_and_messages(app, client, carrier, driver, token):
    other = create_driver(app, carrier, "Piet Bakker")
    (theirs,) = send(app, carrier, [other])
    url = f"{API}/users/{other.user_token}/notificaties"
    assert_problem(client.get(url, headers=bearer(token)), 403)
    # Messages are personal: another driver's message does not exist for this driver.
    assert_problem(client.get(f"{API}/notificaties/{theirs}", headers=bearer(token)), 404)
    assert_problem(client.post(f"{API}/notificaties/{theirs}/gelezen", headers=bearer(token)), 404)
    assert state(app, carrier, theirs)["status"] == "queued"


def test_another_carriers_messages_are_404_and_stay_unchanged(
    app, client, carrier, driver, api_key, token
):
    elsewhere = create_carrier(app, "Kuipers Veevervoer")
    their_driver = create_driver(app, elsewhere, "Sanne Kuipers")
    (theirs,) = send(app, elsewhere, [their_driver])
    for who in (api_key.key, token):
        assert_problem(client.get(f"{API}/notificaties/{theirs}", headers=bearer(who)), 404)
        read = client.post(f"{API}/notificaties/{theirs}/gelezen", headers=bearer(who))
        assert_problem(read, 404)
        inbox = client.get(
            f"{API}/users/{their_driver.user_token}/notificaties", headers=bearer(who)
        )
        assert inbox.status_code in (403, 404)
    assert_problem(post_message(client, api_key.key, their_driver.user_token), 404)
    assert state(app, elsewhere, theirs)["status"] == "queued"


# --- reading a message --------------------------------------------------------------------


def test_marking_read_stamps_once_and_is_idempotent(app, client, carrier, driver, token, api_key):
    (message_id,) = send(app, carrier, [driver], "Weegbon", "Fotografeer de weegbon.")
    one = client.get(f"{API}/notificaties/{message_id}", headers=bearer(token))
    assert one.status_code == 200 and one.get_json()["status"] == "queued"

    first = client.post(f"{API}/notificaties/{message_id}/gelezen", headers=bearer(token))
    assert first.status_code == 200
    assert first.get_json()["status"] == "read"
    assert ISO.match(first.get_json()["gelezen_op"])
    again = client.post(f"{API}/notificaties/{message_id}/gelezen", headers=bearer(token))
    assert again.get_json()["gelezen_op"] == first.get_json()["gelezen_op"]
    seen = client.get(f"{API}/notificaties/{message_id}", headers=bearer(api_key.key))
    assert seen.get_json()["status"] == "read"
    inbox = client.get(f"{API}/users/{driver.user_token}/notificaties", headers=bearer(token))
    assert inbox.headers["X-Unread-Count"] == "0"


def test_an_unknown_message_is_404(client, token):
    missing = "00000000-0000-4000-8000-000000000000"
    assert_problem(client.get(f"{API}/notificaties/{missing}", headers=bearer(token)), 404)
    assert client.get(f"{API}/notificaties/not-a-uuid", headers=bearer(token)).status_code == 404


# --- push subscriptions ---------------------------------------------------------------------


def register(client, who, user_token, subscription):
    return client.post(
        f"{API}/users/{user_token}/push_abonnementen", json=subscription, headers=bearer(who)
    )


ENDPOINT = "https://fcm.googleapis.com/fcm/send/dQw4w9WgXcQ:APA91bE"


def test_the_app_registers_and_refreshes_its_device(app, client, carrier, driver, token):
    device = Device.new()
    response = register(client, token, driver.user_token, device.subscription(ENDPOINT))
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert body["endpoint"] == ENDPOINT and body["chauffeur_id"] == str(driver.id)
    assert ISO.match(body["created_at"]) and body["verloopt_op"] is None
    # The same endpoint again (new keys): one device, refreshed.
    fresh = Device.new().subscription(ENDPOINT)
    fresh["expirationTime"] = 1924992000000  # 2031-01-01
    again = register(client, token, driver.user_token, fresh)
    assert again.status_code == 201 and again.get_json()["id"] == body["id"]
    assert again.get_json()["verloopt_op"] == "2031-01-01T00:00:00.000Z"
    assert subscription_count(app, carrier) == 1


def test_a_device_that_changes_hands_moves_to_the_new_driver(app, client, carrier, driver, token):
    register(client, token, driver.user_token, Device.new().subscription(ENDPOINT))
    other = create_driver(app, carrier, "Piet Bakker")
    moved = register(
        client, driver_token(client, other), other.user_token, Device.new().subscription(ENDPOINT)
    )
    assert moved.get_json()["chauffeur_id"] == str(other.id)
    assert subscription_count(app, carrier) == 1


@pytest.mark.parametrize(
    ("endpoint", "why"),
    [
        ("http://push.example.net/abc", "https"),
        ("https://127.0.0.1/push", "public"),
        ("https://10.1.2.3/push", "public"),
        ("https://[::1]/push", "public"),
        ("https://localhost/push", "public"),
        ("https://metadata.internal/push", "public"),
        ("https://push.invalid/x", "public"),
        ("https://intranet/push", "public"),
        ("https://user:pw@push.example.net/abc", "password"),
        ("ftp://push.example.net/abc", "https"),
    ],
)
def test_an_endpoint_the_server_must_not_call_is_refused(client, driver, token, endpoint, why):
    response = register(client, token, driver.user_token, Device.new().subscription(endpoint))
    body = assert_problem(response, 422, "endpoint")
    assert why in body["errors"][0]["message"]


def test_keys_that_are_no_push_keys_are_refused(client, driver, token):
    device = Device.new()
    bad_point = {"endpoint": ENDPOINT, "keys": {"p256dh": "B" * 87, "auth": device.auth}}
    assert_problem(register(client, token, driver.user_token, bad_point), 422, "keys.p256dh")
    short_auth = {"endpoint": ENDPOINT, "keys": {"p256dh": device.p256dh, "auth": "A" * 16}}
    assert_problem(register(client, token, driver.user_token, short_auth), 422, "keys.auth")
    assert_problem(register(client, token, driver.user_token, {"endpoint": ENDPOINT}), 422, "keys")


def test_a_driver_keeps_at_most_ten_devices(app, client, carrier, driver, token):
    for n in range(12):
        register(client, token, driver.user_token, Device.new().subscription(f"{ENDPOINT}{n}"))
    assert subscription_count(app, carrier) == 10


def test_devices_are_forgotten_one_by_one_or_all_at_once(app, client, carrier, driver, token):
    url = f"{API}/users/{driver.user_token}/push_abonnementen"
    for n in range(3):
        register(client, token, driver.user_token, Device.new().subscription(f"{ENDPOINT}{n}"))
    one = client.delete(url, query_string={"endpoint": f"{ENDPOINT}0"}, headers=bearer(token))
    assert one.status_code == 204 and one.get_data() == b""
    assert subscription_count(app, carrier) == 2
    assert client.delete(url, headers=bearer(token)).status_code == 204
    assert subscription_count(app, carrier) == 0
    assert client.delete(url, headers=bearer(token)).status_code == 204  # nothing left: fine


def test_another_drivers_or_carriers_devices_are_out_of_reach(app, client, carrier, driver, token):
    other = create_driver(app, carrier, "Piet Bakker")
    subscription = Device.new().subscription(ENDPOINT)
    assert_problem(register(client, token, other.user_token, subscription), 403)
    elsewhere = create_carrier(app, "Kuipers Veevervoer")
    their_driver = create_driver(app, elsewhere, "Sanne Kuipers")
    assert_problem(register(client, token, their_driver.user_token, subscription), 404)
    url = f"{API}/users/{their_driver.user_token}/push_abonnementen"
    assert_problem(client.delete(url, headers=bearer(token)), 404)


def test_the_app_gets_the_vapid_public_key(app, client, token, vapid):
    assert client.get(f"{API}/webpush", headers=bearer(token)).get_json() == {
        "vapid_public_key": None
    }
    app.config["VAPID_PRIVATE_KEY"] = vapid[0]
    answer = client.get(f"{API}/webpush", headers=bearer(token)).get_json()
    assert answer == {"vapid_public_key": vapid[1]}
    assert_problem(client.get(f"{API}/webpush"), 401)
