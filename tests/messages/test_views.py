"""The messages page: composing with errors at the field, sending to one, several or every
active driver, and the history with each recipient's status, refreshed by htmx."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from factories import (
    bearer,
    create_api_key,
    create_carrier,
    create_driver,
    create_user,
    csrf_from,
    in_carrier,
    login,
)
from sqlalchemy import update

from messages.support import Device, send, subscribe
from portal.extensions import db
from portal.messages import failures, outbox, service
from portal.messages.models import Message

HTMX = {"HX-Request": "true"}


@pytest.fixture
def browser(client, planner):
    login(client, planner)
    return client


def compose(browser, htmx: bool = False, **fields):
    token = csrf_from(browser.get("/berichten").get_data(as_text=True))
    data = {"csrf_token": token, "titel": "Omleiding", "tekst": "Rij via de N279.", **fields}
    return browser.post("/berichten", data=data, headers=HTMX if htmx else {})


def text_of(response) -> str:
    return html.unescape(re.sub(r"\s+", " ", response.get_data(as_text=True)))


def plain(response) -> str:
    """The page's text as a reader sees it: tags gone, whitespace collapsed."""
    text = re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))
    return re.sub(r"\s+", " ", html.unescape(text))


def deactivate(app, carrier, driver):
    from portal.drivers.models import Driver

    in_carrier(
        app,
        carrier.id,
        lambda: db.session.execute(
            update(Driver).where(Driver.id == driver.id).values(actief=False)
        ),
    )


def test_the_page_lists_active_drivers_and_an_empty_history(app, browser, carrier, driver):
    gone = create_driver(app, carrier, "Oud Gediende")
    deactivate(app, carrier, gone)
    page = browser.get("/berichten")
    assert page.status_code == 200
    body = text_of(page)
    assert "Jan Chauffeur" in body and "Oud Gediende" not in body
    assert "Alle actieve chauffeurs (1)" in body
    assert "Nog geen berichten verstuurd." in body
    assert 'hx-trigger="every 10s, messagesChanged from:body"' in page.get_data(as_text=True)
    assert 'aria-current="page"' in page.get_data(as_text=True)


def test_without_active_drivers_the_page_says_so(app, client, carrier):
    planner = create_user(app, carrier, "planner")
    login(client, planner)
    body = text_of(client.get("/berichten"))
    assert "Er zijn nog geen actieve chauffeurs" in body


def test_errors_show_at_their_fields(browser, driver):
    response = compose(browser, titel="", tekst="   ")
    assert response.status_code == 422
    body = text_of(response)
    assert "Het bericht is niet verstuurd." in body
    assert 'id="ontvangers-error"' in body and "Kies minstens één chauffeur." in body
    assert 'id="titel-error"' in body and "Geef het bericht een titel." in body
    assert 'id="tekst-error"' in body and "Schrijf wat je de chauffeur wilt laten weten." in body
    assert 'aria-invalid="true"' in body


def test_a_too_long_text_is_refused_and_kept(browser, driver):
    response = compose(browser, ontvangers=[str(driver.id)], tekst="x" * 2001, titel="y" * 101)
    assert response.status_code == 422
    body = text_of(response)
    assert "Hoogstens 2000 tekens; nu 2001." in body
    assert "Hoogstens 100 tekens; nu 101." in body
    assert "x" * 2001 in body  # the planner's text is not lost
    assert f'value="{driver.id}" data-driver checked' in body


def test_a_driver_of_another_carrier_or_inactive_can_not_be_chosen(app, browser, carrier, driver):
    elsewhere = create_carrier(app, "Kuipers Veevervoer")
    theirs = create_driver(app, elsewhere, "Sanne Kuipers")
    refused = compose(browser, ontvangers=[str(theirs.id)])
    assert refused.status_code == 422
    assert "niet (meer) actief" in text_of(refused)
    assert compose(browser, ontvangers=["not-a-uuid"]).status_code == 422
    with app.app_context():
        from portal.tenancy import carrier_scope

        with carrier_scope(db.session, elsewhere.id):
            assert service.inbox(carrier_id=elsewhere.id, driver_id=theirs.id).total == 0


def test_sending_to_several_drivers_shows_one_batch_with_each_status(app, browser, carrier, driver):
    piet = create_driver(app, carrier, "Piet Bakker")
    response = compose(
        browser,
        ontvangers=[str(driver.id), str(piet.id)],
        titel="Weegbon",
        tekst="Fotografeer de weegbon bij het lossen.",
    )
    assert response.status_code == 303
    page = browser.get(response.headers["Location"])
    body = plain(page)
    assert "Bericht verstuurd naar 2 chauffeurs." in body
    assert "Weegbon" in body and "Fotografeer de weegbon bij het lossen." in body
    assert "Aan 2 chauffeurs · 2 in wachtrij" in body
    # No push worker has run in this test: the page promises nothing.
    assert body.count("wacht tot de berichtendienst draait") == 2
    for who in (driver, piet):
        assert service_count(app, carrier, who) == 1


def service_count(app, carrier, driver) -> int:
    return in_carrier(
        app,
        carrier.id,
        lambda: service.inbox(carrier_id=carrier.id, driver_id=driver.id).total,
    )


def test_all_active_drivers_get_it(app, browser, carrier, driver):
    piet = create_driver(app, carrier, "Piet Bakker")
    gone = create_driver(app, carrier, "Oud Gediende")
    deactivate(app, carrier, gone)
    response = compose(browser, alle="y")
    assert response.status_code == 303
    assert [service_count(app, carrier, d) for d in (driver, piet, gone)] == [1, 1, 0]


def test_htmx_send_answers_a_fresh_form_and_tells_the_history(app, browser, carrier, driver):
    response = compose(browser, htmx=True, ontvangers=[str(driver.id)])
    assert response.status_code == 200
    assert response.headers["HX-Trigger"] == "messagesChanged"
    body = text_of(response)
    assert body.lstrip().startswith("<form")
    assert "Bericht verstuurd naar 1 chauffeur." in body
    assert "Rij via de N279." not in body  # the form is empty again
    refused = compose(browser, htmx=True, tekst="")
    assert refused.status_code == 422 and text_of(refused).lstrip().startswith("<form")


def test_the_history_fragment_shows_delivery_read_and_failure(app, browser, carrier, driver):
    piet = create_driver(app, carrier, "Piet Bakker")
    henk = create_driver(app, carrier, "Henk Jansen")
    read, sent, failed = send(app, carrier, [driver, piet, henk], "Omleiding", "Via de N279.")
    now = datetime.now(UTC)

    def deliver():
        from portal.messages.models import Message

        service.mark_read(carrier_id=carrier.id, message_id=read)
        db.session.execute(
            update(Message).where(Message.id == sent).values(status="sent", verzonden_op=now)
        )
        db.session.execute(
            update(Message)
            .where(Message.id == failed)
            .values(status="failed", fout=failures.failure("subscription_gone", http=410))
        )

    in_carrier(app, carrier.id, deliver)
    fragment = browser.get("/berichten", headers=HTMX)
    assert fragment.status_code == 200
    body = text_of(fragment)
    assert body.lstrip().startswith('<section id="message-history"')
    assert "Nieuw bericht" not in body
    assert "Aan 3 chauffeurs · 1 gelezen · 1 verzonden · 1 mislukt" in plain(fragment)
    assert re.search(r"Jan Chauffeur</span> <span class=\"status msg-status-read\">Gelezen", body)
    assert re.search(r"Piet Bakker</span> <span class=\"status msg-status-sent\">Verzonden", body)
    assert "het push-abonnement bestaat niet meer (HTTP 410)" in body


def test_a_message_without_a_device_explains_the_inbox(app, browser, carrier, driver):
    (message_id,) = send(app, carrier, [driver])

    def fail():
        from portal.messages.models import Message

        db.session.execute(
            update(Message)
            .where(Message.id == message_id)
            .values(status="failed", fout=outbox.NO_SUBSCRIPTION)
        )

    in_carrier(app, carrier.id, fail)
    body = text_of(browser.get("/berichten"))
    assert "geen telefoon aangemeld voor pushmeldingen; het bericht staat wel in de app" in body


def test_drivers_without_a_device_are_marked(app, browser, carrier, driver):
    piet = create_driver(app, carrier, "Piet Bakker")
    subscribe(app, carrier, piet, "https://push.example.net/piet", Device.new())
    body = browser.get("/berichten").get_data(as_text=True)
    jan = re.search(r"Jan Chauffeur</span>(.*?)</label>", body, re.S).group(1)
    pieter = re.search(r"Piet Bakker</span>(.*?)</label>", body, re.S).group(1)
    assert "geen push" in jan and "geen push" not in pieter


def test_the_history_is_paged_newest_first(app, browser, carrier, driver):
    base = datetime(2026, 11, 1, 8, 0, tzinfo=UTC)
    for n in range(23):
        send(app, carrier, [driver], f"Bericht {n:02d}", "tekst", now=base + timedelta(hours=n))
    first = text_of(browser.get("/berichten"))
    assert "Bericht 22" in first and "Bericht 03" in first and "Bericht 02" not in first
    assert first.index("Bericht 22") < first.index("Bericht 21")
    second = browser.get("/berichten?pagina=2", headers=HTMX)
    body = text_of(second)
    assert "Bericht 02" in body and "Bericht 00" in body and "Bericht 03" not in body
    assert 'hx-get="/berichten?pagina=2"' in body  # the refresh keeps the page
    assert "Nieuwere" in body and "Oudere" not in body
    assert browser.get("/berichten?pagina=abc").status_code == 200
    assert browser.get("/berichten?pagina=-4").status_code == 200


def test_the_history_runs_a_fixed_number_of_queries(app, browser, carrier, driver, count_queries):
    send(app, carrier, [driver])
    browser.get("/berichten")
    with count_queries() as few:
        assert browser.get("/berichten").status_code == 200
    drivers = [create_driver(app, carrier, f"Chauffeur {n}") for n in range(5)]
    for _ in range(8):
        send(app, carrier, [driver, *drivers])
    with count_queries() as many:
        assert browser.get("/berichten").status_code == 200
    assert many.count == few.count


def test_only_planners_use_the_page(app, client, carrier):
    author = create_user(app, carrier, "author")
    login(client, author)
    assert client.get("/berichten").status_code == 403
    assert client.post("/berichten", data={}).status_code in (400, 403)


def test_without_a_csrf_token_nothing_is_sent(app, browser, carrier, driver):
    response = browser.post(
        "/berichten", data={"ontvangers": [str(driver.id)], "titel": "x", "tekst": "y"}
    )
    assert response.status_code == 400
    assert service_count(app, carrier, driver) == 0


def test_signed_out_is_sent_to_sign_in(client):
    response = client.get("/berichten")
    assert response.status_code == 302 and "/login" in response.headers["Location"]


# --- whether pushes go out: the worker's heartbeat --------------------------------------


@pytest.fixture
def pushing(app, vapid):
    """Web Push configured, as in production; whether a worker runs is up to the test."""
    app.config.update(VAPID_PRIVATE_KEY=vapid[0], VAPID_SUBJECT="mailto:planning@example.nl")


def heartbeat(app, at, interval=5.0):
    """A push worker's poll at `at` (the time is injected: nothing waits)."""
    with app.app_context():
        service.record_heartbeat(now=at, interval=interval)
        db.session.commit()


def failed_once(app, carrier, driver, retry_at):
    """A message whose first push failed, with its next attempt planned at retry_at."""
    (message_id,) = send(app, carrier, [driver])

    def fail():
        from portal.messages.models import Message

        db.session.execute(
            update(Message)
            .where(Message.id == message_id)
            .values(pogingen=1, fout=failures.failure("service_unavailable", http=503),
                    volgende_poging_op=retry_at)
        )  # fmt: skip

    in_carrier(app, carrier.id, fail)


def test_a_stopped_worker_is_said_plainly_and_no_retry_is_promised(
    app, browser, carrier, driver, pushing
):
    now = datetime.now(UTC)
    heartbeat(app, now - timedelta(minutes=45))
    failed_once(app, carrier, driver, retry_at=now - timedelta(minutes=44))
    body = plain(browser.get("/berichten"))
    assert "Pushmeldingen worden nu niet verstuurd: de berichtendienst draait niet (sinds" in body
    assert "poging 1 mislukt: pushdienst tijdelijk niet beschikbaar (HTTP 503); " in body
    assert "wacht tot de berichtendienst draait" in body
    assert "nieuwe poging" not in body
    # The history's htmx refresh says the same.
    assert "de berichtendienst draait niet" in plain(browser.get("/berichten", headers=HTMX))


def test_a_worker_that_never_ran_is_said_without_a_date(app, browser, carrier, driver, pushing):
    send(app, carrier, [driver])
    body = plain(browser.get("/berichten"))
    assert "Pushmeldingen worden nu niet verstuurd: de berichtendienst draait niet." in body
    assert "(sinds" not in body
    assert "wacht tot de berichtendienst draait" in body and "wacht op verzending" not in body


def test_with_a_recent_heartbeat_the_retry_time_is_shown(app, browser, carrier, driver, pushing):
    now = datetime.now(UTC)
    heartbeat(app, now - timedelta(seconds=5))
    retry_at = now + timedelta(minutes=10)
    failed_once(app, carrier, driver, retry_at=retry_at)
    body = plain(browser.get("/berichten"))
    assert "Pushmeldingen worden nu niet verstuurd" not in body
    clock = retry_at.astimezone(ZoneInfo("Europe/Amsterdam")).strftime("%H:%M")
    assert f"nieuwe poging om {clock}" in body
    assert "wacht tot de berichtendienst draait" not in body


def test_a_retry_time_in_the_past_is_never_shown_as_a_promise(
    app, browser, carrier, driver, pushing
):
    now = datetime.now(UTC)
    heartbeat(app, now - timedelta(seconds=5))
    failed_once(app, carrier, driver, retry_at=now - timedelta(minutes=3))
    body = plain(browser.get("/berichten"))
    assert "nieuwe poging om" not in body
    assert "nieuwe poging zo meteen" in body


def test_a_slow_worker_counts_as_running_within_three_of_its_intervals(app):
    now = datetime.now(UTC)
    heartbeat(app, now - timedelta(minutes=20), interval=600)
    with app.app_context():
        assert service.worker_state(configured=True, now=now).running
        assert not service.worker_state(configured=True, now=now + timedelta(minutes=11)).running


def test_without_web_push_settings_the_page_says_so(app, browser, carrier, driver):
    heartbeat(app, datetime.now(UTC))
    send(app, carrier, [driver])
    body = plain(browser.get("/berichten"))
    assert "Pushmeldingen worden nu niet verstuurd: Web Push is niet ingesteld." in body
    assert "VAPID_PRIVATE_KEY" in body


def test_the_page_says_it_in_english_too(app, client, planner, carrier, driver, pushing):
    login(client, planner)
    heartbeat(app, datetime.now(UTC) - timedelta(hours=3))
    body = plain(client.get("/berichten", headers={"Accept-Language": "en"}))
    assert "Push notifications are not being sent: the message service is not running" in body


@pytest.mark.parametrize(
    ("language", "given_up", "no_device"),
    [
        (
            "nl",
            "opgegeven na 5 pogingen: pushdienst tijdelijk niet beschikbaar (HTTP 503)",
            "geen telefoon aangemeld voor pushmeldingen; het bericht staat wel in de app",
        ),
        (
            "en",
            "given up after 5 attempts: push service temporarily unavailable (HTTP 503)",
            "no phone registered for push notifications; the message is in the app",
        ),
    ],
)
def test_why_a_push_failed_reads_in_the_users_language(
    app, client, planner, carrier, driver, language, given_up, no_device
):
    """The worker stores a code with parameters; the page words it, never in the worker's
    language. An old row's free text still shows as it was."""
    other = create_driver(app, carrier, "Piet Bakker")
    third = create_driver(app, carrier, "Kees Mulder")
    first, second, old = send(app, carrier, [driver, other, third])
    last = failures.failure("service_unavailable", http=503)

    def fail():
        from portal.messages.models import Message

        for message_id, fout in (
            (first, failures.failure("given_up", attempts=5, last=last)),
            (second, outbox.NO_SUBSCRIPTION),
            (old, "push-dienst weigerde het bericht (HTTP 400)"),
        ):
            db.session.execute(
                update(Message).where(Message.id == message_id).values(status="failed", fout=fout)
            )

    in_carrier(app, carrier.id, fail)
    login(client, planner)
    body = plain(client.get("/berichten", headers={"Accept-Language": language}))
    assert given_up in body
    assert no_device in body
    assert "push-dienst weigerde het bericht (HTTP 400)" in body


def test_the_api_gives_the_failure_in_english_with_its_code(app, client, carrier, driver):
    (message_id,) = send(app, carrier, [driver])
    in_carrier(
        app,
        carrier.id,
        lambda: db.session.execute(
            update(Message).values(
                status="failed", fout=failures.failure("subscription_gone", http=410)
            )
        ),
    )
    key = create_api_key(app, carrier)
    body = client.get(f"/api/v1/notificaties/{message_id}", headers=bearer(key.key)).get_json()
    assert body["fout"] == "the push subscription no longer exists (HTTP 410)"
    assert body["fout_code"] == "subscription_gone"


def test_every_push_failure_code_has_its_dutch_text():
    """Its English is checked with every other text (tests/test_i18n.py)."""
    from portal import problems

    missing = [code for code in failures.CODES if not problems.has_text(f"push_{code}")]
    assert missing == []
