"""Test events and resends are limited per carrier: past the limit the API answers 429 with
Retry-After and a code, the portal the endpoint's page with why and when; another carrier is
not held, and once the window has passed they go again."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from factories import bearer, create_api_key, create_task, create_user, csrf_from, in_carrier, login

from portal.audit.service import SYSTEM
from portal.errors import TooManyRequests
from portal.types import utcnow
from portal.webhooks import resending
from webhooks.support import deliveries, register, run_pass


@pytest.fixture
def small_limit(app):
    app.config["WEBHOOK_MANUAL_LIMIT"] = (3, timedelta(hours=1))


@pytest.fixture
def key(app, carrier):
    return bearer(create_api_key(app, carrier).key)


def test_the_api_answers_429_with_retry_after_past_the_limit(
    app, client, carrier, other_carrier, key, small_limit
):
    endpoint_id, _ = register(app, carrier, "https://tms.vervoer.nl/in", ["taak.aangemaakt"])
    for _ in range(3):
        assert client.post(f"/api/v1/webhooks/{endpoint_id}/test", headers=key).status_code == 202
    refused = client.post(f"/api/v1/webhooks/{endpoint_id}/test", headers=key)
    assert refused.status_code == 429
    assert refused.headers["Content-Type"].startswith("application/problem+json")
    assert 3500 < int(refused.headers["Retry-After"]) <= 3600
    problem = refused.get_json()
    assert problem["code"] == "too_many_sends" and problem["type"].endswith("/too-many-requests")
    assert "At most 3 test events and resends per 60 minutes" in problem["detail"]
    # a resend of a period counts against the same limit
    period = {"van": "2026-01-01T00:00:00Z", "tot": "2027-01-01T00:00:00Z"}
    again = client.post(f"/api/v1/webhooks/{endpoint_id}/opnieuw", json=period, headers=key)
    assert again.status_code == 429
    assert len([d for d in deliveries(app, carrier) if d["type"] == "webhook.test"]) == 3

    # another carrier is not held by this one's count
    other_key = bearer(create_api_key(app, other_carrier).key)
    other_id, _ = register(app, other_carrier, "https://tms.elders.nl/in", ["taak.aangemaakt"])
    assert client.post(f"/api/v1/webhooks/{other_id}/test", headers=other_key).status_code == 202


def test_a_single_resend_counts_and_the_window_passes(app, carrier, receiver, small_limit):
    endpoint_id, _ = register(app, carrier, receiver.url(), ["taak.aangemaakt"])
    receiver.script = [400]
    create_task(app, carrier, None)
    run_pass(app)
    (failed,) = deliveries(app, carrier)

    def resend(now=None):
        return resending.resend(
            carrier_id=carrier.id, delivery_id=failed["id"], actor=SYSTEM, now=now
        )

    def test(now=None):
        return resending.send_test(
            carrier_id=carrier.id, endpoint_id=endpoint_id, actor=SYSTEM, now=now
        )

    in_carrier(app, carrier.id, test)
    in_carrier(app, carrier.id, test)
    in_carrier(app, carrier.id, resend)
    with pytest.raises(TooManyRequests) as refused:
        in_carrier(app, carrier.id, test)
    assert 0 < refused.value.retry_after <= 3600
    later = utcnow() + timedelta(hours=1, seconds=5)
    in_carrier(app, carrier.id, lambda: test(later))  # the window has passed


def test_the_portal_says_why_and_when_with_429(app, client, carrier, small_limit):
    login(client, create_user(app, carrier, "admin", email="els@example.nl"))
    endpoint_id, _ = register(app, carrier, "https://tms.vervoer.nl/in", ["taak.aangemaakt"])
    path = f"/beheer/webhooks/{endpoint_id}"
    token = csrf_from(client.get(path).get_data(as_text=True))
    for _ in range(3):
        assert client.post(f"{path}/test", data={"csrf_token": token}).status_code == 303
    refused = client.post(f"{path}/test", data={"csrf_token": token})
    assert refused.status_code == 429
    assert 3500 < int(refused.headers["Retry-After"]) <= 3600
    page = html.unescape(re.sub(r"\s+", " ", refused.get_data(as_text=True)))
    assert (
        "In de afgelopen 60 minuten is al 3 keer een testgebeurtenis gestuurd of een levering "
        "opnieuw verstuurd; meer kan nu niet. Probeer het over 60 minuten opnieuw." in page
    )
    assert "Testgebeurtenis sturen" in page  # the endpoint's page, with its buttons

    client.post("/taal", data={"taal": "en", "csrf_token": token})
    english = client.post(f"{path}/test", data={"csrf_token": token})
    assert english.status_code == 429
    assert "Try again in 60 minutes." in html.unescape(english.get_data(as_text=True))
