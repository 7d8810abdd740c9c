"""The webhook pages of the admin section as an admin meets them: registering an endpoint
(its secret shown once), refused addresses worded at the field, the deliveries with every
attempt and why they failed, resending, a test event, pausing, a new secret, deleting."""

from __future__ import annotations

import html
import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from factories import create_task, create_user, csrf_from, in_carrier, login

from portal.types import utcnow
from portal.webhooks import outbox, service, signing
from webhooks.support import deliveries, register, run_pass


@pytest.fixture
def as_admin(app, client, carrier):
    login(client, create_user(app, carrier, "admin", email="els@example.nl"))
    return client


@pytest.fixture
def allow_private(app):
    app.config["WEBHOOKS_ALLOW_PRIVATE"] = True  # the test's receiver is on 127.0.0.1


def token_of(client, path: str = "/beheer/webhooks") -> str:
    return csrf_from(client.get(path).get_data(as_text=True))


def text_of(response) -> str:
    return html.unescape(re.sub(r"\s+", " ", response.get_data(as_text=True)))


def test_only_admins_open_the_webhook_pages(app, client, carrier):
    login(client, create_user(app, carrier, "planner"))
    assert client.get("/beheer/webhooks").status_code == 403
    assert client.get("/beheer/webhooks/nieuw").status_code == 403


def test_an_empty_list_says_what_webhooks_are_for(as_admin):
    page = text_of(as_admin.get("/beheer/webhooks"))
    assert "Nog geen webhooks." in page
    assert "Rijplan-Signature" in page and "Rijplan-Event-Id" in page


def test_registering_shows_the_secret_once_and_it_signs_the_deliveries(
    app, as_admin, carrier, receiver, allow_private
):
    response = as_admin.post(
        "/beheer/webhooks/nieuw",
        data={
            "csrf_token": token_of(as_admin, "/beheer/webhooks/nieuw"),
            "url": receiver.url(),
            "omschrijving": "TMS",
            "gebeurtenissen": ["taak.aangemaakt", "taak.afgerond"],
        },
    )
    assert response.status_code == 201
    assert response.headers["Cache-Control"] == "no-store"
    secret = re.search(r'id="webhook-secret" type="text" value="([^"]+)"', text_of(response))[1]
    assert secret.startswith("whsec_")
    (endpoint_id,) = in_carrier(
        app,
        carrier.id,
        lambda: service.list_endpoints(carrier_id=carrier.id),
        lambda rows: [row.endpoint.id for row in rows],
    )
    endpoint_page = text_of(as_admin.get(f"/beheer/webhooks/{endpoint_id}"))
    assert secret not in endpoint_page  # shown once
    assert "2 gebeurtenissen gekozen" in endpoint_page

    create_task(app, carrier, None)
    assert run_pass(app) == {"sent": 1}
    (request,) = receiver.received
    assert signing.verify(
        secret, request.headers["rijplan-signature"], request.body, now=int(utcnow().timestamp())
    )


@pytest.mark.parametrize(
    "url, message",
    [
        ("http://tms.transport.nl/in", "het moet een https-adres zijn"),
        ("https://192.168.1.20/in", "niet in een eigen netwerk"),
        ("https://jan:geheim@tms.transport.nl/in", "geen gebruikersnaam of wachtwoord"),
        ("file:///etc/passwd", "het moet een https-adres zijn"),
    ],
)
def test_a_refused_address_is_told_at_the_field_and_nothing_is_kept(
    app, as_admin, carrier, url, message
):
    response = as_admin.post(
        "/beheer/webhooks/nieuw",
        data={
            "csrf_token": token_of(as_admin, "/beheer/webhooks/nieuw"),
            "url": url,
            "gebeurtenissen": ["taak.aangemaakt"],
        },
    )
    assert response.status_code == 422
    page = text_of(response)
    assert message in page
    assert 'id="url-error"' in page
    assert f'value="{url}"' in page  # what was typed stays
    assert in_carrier(app, carrier.id, lambda: service.list_endpoints(carrier_id=carrier.id)) == []


def test_no_events_chosen_is_told_at_the_field(as_admin):
    response = as_admin.post(
        "/beheer/webhooks/nieuw",
        data={
            "csrf_token": token_of(as_admin, "/beheer/webhooks/nieuw"),
            "url": "https://tms.transport.nl/in",
        },
    )
    assert response.status_code == 422
    assert "Kies minstens één gebeurtenis." in text_of(response)


def test_the_endpoint_page_shows_each_delivery_with_its_attempts_and_why_it_failed(
    app, as_admin, carrier, receiver, count_queries
):
    endpoint_id, _ = register(app, carrier, receiver.url(), ["taak.aangemaakt"])
    receiver.script = [503, 404]
    create_task(app, carrier, None, naam="Eerste")
    create_task(app, carrier, None, naam="Tweede")
    run_pass(app)
    page = text_of(as_admin.get(f"/beheer/webhooks/{endpoint_id}"))
    assert "het endpoint is tijdelijk niet bereikbaar (HTTP 503)" in page
    assert "het endpoint weigerde de gebeurtenis (HTTP 404)" in page
    assert "Opnieuw proberen" in page and "Mislukt" in page

    failed = text_of(as_admin.get(f"/beheer/webhooks/{endpoint_id}?status=failed"))
    assert failed.count('id="delivery-') == 1

    # Its queries do not grow with its deliveries.
    with count_queries() as few:
        as_admin.get(f"/beheer/webhooks/{endpoint_id}")
    for n in range(5):
        create_task(app, carrier, None, naam=f"Meer {n}")
    run_pass(app)
    with count_queries() as more:
        as_admin.get(f"/beheer/webhooks/{endpoint_id}")
    assert more.count == few.count


def test_resend_a_failed_delivery_from_its_page(app, as_admin, carrier, receiver):
    endpoint_id, _ = register(app, carrier, receiver.url(), ["taak.aangemaakt"])
    receiver.script = [400]
    create_task(app, carrier, None)
    assert run_pass(app) == {"failed": 1}
    (row,) = deliveries(app, carrier)
    page = f"/beheer/webhooks/{endpoint_id}/leveringen/{row['id']}"
    shown = text_of(as_admin.get(page))
    assert '"type": "taak.aangemaakt"' in shown  # the envelope as sent
    assert "receiver says no" in shown  # the first bytes of the answer
    assert "het endpoint weigerde de gebeurtenis (HTTP 400)" in shown
    response = as_admin.post(
        f"{page}/opnieuw", data={"csrf_token": token_of(as_admin, page), "terug": page}
    )
    assert response.status_code == 303 and response.headers["Location"].endswith(page)
    assert run_pass(app) == {"sent": 1}
    first, second = receiver.received
    assert first.event["id"] == second.event["id"]


def test_resend_every_failed_delivery_of_a_period(app, as_admin, carrier, receiver):
    endpoint_id, _ = register(app, carrier, receiver.url(), ["taak.aangemaakt"])
    receiver.script = [400, 400]
    create_task(app, carrier, None, naam="A")
    create_task(app, carrier, None, naam="B")
    assert run_pass(app) == {"failed": 2}
    path = f"/beheer/webhooks/{endpoint_id}"
    today = datetime.now(ZoneInfo("Europe/Amsterdam")).date()  # the period is the carrier's
    response = as_admin.post(
        f"{path}/opnieuw",
        data={
            "csrf_token": token_of(as_admin, path),
            "van": (today - timedelta(days=1)).isoformat(),
            "tot": today.isoformat(),
        },
    )
    assert response.status_code == 303
    assert "2 mislukte levering(en) opnieuw in de wachtrij gezet." in text_of(as_admin.get(path))
    assert run_pass(app) == {"sent": 2}
    assert sorted(e["data"]["naam"] for e in receiver.events[2:]) == ["A", "B"]


def test_an_endpoint_paused_by_the_worker_says_why_on_the_list(app, as_admin, carrier, receiver):
    endpoint_id, _ = register(app, carrier, receiver.url(), ["taak.aangemaakt"])
    create_task(app, carrier, None)
    at = utcnow()
    for _attempt in range(outbox.MAX_ATTEMPTS):
        receiver.script = [502]
        at += timedelta(hours=9)
        run_pass(app, now=at)
    listing = text_of(as_admin.get("/beheer/webhooks"))
    assert "Gepauzeerd" in listing
    assert (
        "opgegeven na 10 pogingen: het endpoint is tijdelijk niet bereikbaar (HTTP 502)" in listing
    )
    page = text_of(as_admin.get(f"/beheer/webhooks/{endpoint_id}"))
    assert "Automatisch gepauzeerd" in page


def test_test_event_pause_resume_new_secret_and_delete(app, as_admin, carrier, receiver):
    endpoint_id, old_secret = register(app, carrier, receiver.url(), ["taak.verwijderd"])
    path = f"/beheer/webhooks/{endpoint_id}"
    assert (
        as_admin.post(f"{path}/test", data={"csrf_token": token_of(as_admin, path)}).status_code
        == 303
    )
    assert run_pass(app) == {"sent": 1}
    assert receiver.events[0]["type"] == "webhook.test"

    as_admin.post(f"{path}/pauzeren", data={"csrf_token": token_of(as_admin, path)})
    assert "Gepauzeerd op" in text_of(as_admin.get(path))
    as_admin.post(f"{path}/test", data={"csrf_token": token_of(as_admin, path)})
    assert run_pass(app) == {}  # waits while paused
    assert "Wacht (gepauzeerd)" in text_of(as_admin.get(path))
    as_admin.post(f"{path}/hervatten", data={"csrf_token": token_of(as_admin, path)})
    assert run_pass(app) == {"sent": 1}

    confirm = text_of(as_admin.get(f"{path}/geheim"))
    assert "Handtekeningen met het huidige geheim kloppen daarna niet meer" in confirm
    rotated = as_admin.post(f"{path}/geheim", data={"csrf_token": token_of(as_admin, path)})
    new_secret = re.search(r'id="webhook-secret" type="text" value="([^"]+)"', text_of(rotated))[1]
    assert new_secret != old_secret

    assert "geschiedenis van zijn leveringen verdwijnt" in text_of(
        as_admin.get(f"{path}/verwijderen")
    )
    gone = as_admin.post(f"{path}/verwijderen", data={"csrf_token": token_of(as_admin, path)})
    assert gone.status_code == 303
    assert as_admin.get(path).status_code == 404
    assert deliveries(app, carrier) == []


def test_another_carriers_endpoint_is_404(app, client, carrier, other_carrier, as_admin):
    foreign, _ = register(app, other_carrier, "https://tms.example.com/in")
    assert as_admin.get(f"/beheer/webhooks/{foreign}").status_code == 404
    token = token_of(as_admin)
    for action in ("pauzeren", "test", "verwijderen", "geheim", "opnieuw"):
        response = as_admin.post(f"/beheer/webhooks/{foreign}/{action}", data={"csrf_token": token})
        assert response.status_code == 404, action


def test_planners_pages_never_mention_webhook_trouble(app, client, carrier, receiver):
    register(app, carrier, receiver.url(), ["taak.aangemaakt"])
    receiver.script = [500]
    task = create_task(app, carrier, None)
    run_pass(app)
    login(client, create_user(app, carrier, "planner"))
    for path in ("/", f"/taken/{task.id}"):
        page = text_of(client.get(path, follow_redirects=True))
        assert "webhook" not in page.lower() and "HTTP 500" not in page
