"""The review of a driver's week: a planner corrects an activity with a reason, the driver
sees the correction in the app (the API) and accepts it or comments, and only then can the
week be approved; the week page shows the payable figures and what is off."""

from __future__ import annotations

import re

from factories import bearer, create_api_key, csrf_from, driver_token, in_carrier, login

from hours.support import API, activity_ids, at, record_day

WEEK = "2026-W47"


def text_of(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.get_data(as_text=True)))


def long_monday(app, carrier, driver):
    """Monday 16 November: 06:00-14:00, driving 06:00-13:00 on end, then loading."""
    day = record_day(
        app,
        carrier,
        driver,
        at("2026-11-16", "06:00"),
        at("2026-11-16", "14:00"),
        [
            ("rijden", at("2026-11-16", "06:00"), at("2026-11-16", "13:00")),
            ("laden", at("2026-11-16", "13:00"), at("2026-11-16", "14:00")),
        ],
    )
    return day


def correct(client, activity_id, **fields):
    url = f"/uren/activiteiten/{activity_id}/wijzigen"
    token = csrf_from(client.get(url).get_data(as_text=True))
    return client.post(url, data={"csrf_token": token, **fields})


def driver_week(client, driver, headers):
    return client.get(f"{API}/users/{driver.user_token}/weken/{WEEK}", headers=headers)


def answer(client, driver, headers, correction_id, **body):
    return client.post(
        f"{API}/users/{driver.user_token}/weken/{WEEK}/correcties/{correction_id}/reactie",
        json=body,
        headers=headers,
    )


def test_a_correction_needs_a_reason_and_keeps_what_was_typed(
    app, client, carrier, driver, planner
):
    day = long_monday(app, carrier, driver)
    driving, _ = activity_ids(app, carrier, day)
    login(client, planner)
    response = correct(
        client, driving, soort="rijden", begin="2026-11-16T06:30", einde="2026-11-16T13:00"
    )
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "Geef een reden op." in html
    assert 'value="2026-11-16T06:30"' in html  # nothing typed is lost
    week = client.get(f"/uren/{driver.user_token}/{WEEK}")
    assert "Geen correcties." in text_of(week)


def test_a_corrected_week_waits_for_the_driver_and_is_approved_after_the_answer(
    app, client, carrier, driver, planner
):
    day = long_monday(app, carrier, driver)
    driving, _ = activity_ids(app, carrier, day)
    login(client, planner)
    saved = correct(
        client,
        driving,
        soort="rijden",
        begin="2026-11-16T06:30",
        einde="2026-11-16T13:00",
        reden="Vertrek was 06:30 volgens de tachograaf",
    )
    assert saved.status_code == 303
    week_url = f"/uren/{driver.user_token}/{WEEK}"
    page = text_of(client.get(week_url))
    assert "Vertrek was 06:30 volgens de tachograaf" in page
    assert "Wacht op de chauffeur: 1 correctie" in page
    assert "Week goedkeuren" not in page
    # Approving anyway is refused with the reason.
    form = client.get(f"{week_url}/goedkeuren").get_data(as_text=True)
    refused = client.post(f"{week_url}/goedkeuren", data={"csrf_token": csrf_from(form)})
    assert refused.status_code == 303  # back to the week, with the reason
    after_refusal = text_of(client.get(week_url))
    assert "De chauffeur heeft 1 correctie nog niet beantwoord" in after_refusal
    assert "Nog niet goedgekeurd" in after_refusal

    # The driver sees the correction with the old and new times and the reason.
    headers = bearer(driver_token(app.test_client(), driver))
    seen = driver_week(app.test_client(), driver, headers).get_json()
    (correction,) = seen["correcties"]
    assert correction["reden"] == "Vertrek was 06:30 volgens de tachograaf"
    assert correction["oud"]["begin"].startswith("2026-11-16T05:00")  # 06:00 in Amsterdam
    assert correction["nieuw"]["begin"].startswith("2026-11-16T05:30")
    assert correction["reactie"] is None and correction["door"]
    # The figures follow the correction: 7.5 paid hours, not 8.
    assert seen["per_dag"][0]["gewerkt_min"] == 450
    # The driver's phone got a message saying what changed and why.
    inbox = (
        app.test_client()
        .get(f"{API}/users/{driver.user_token}/notificaties", headers=headers)
        .get_json()
    )
    (message,) = [m for m in inbox if "gecorrigeerd" in m["titel"]]
    assert message["titel"] == "Je uren van week 47 zijn gecorrigeerd"
    assert "06:00\u201313:00 \u2192 06:30\u201313:00" in message["tekst"]
    assert "Vertrek was 06:30 volgens de tachograaf" in message["tekst"]

    api = app.test_client()
    key = bearer(create_api_key(app, carrier).key)
    assert answer(api, driver, key, correction["id"], reactie="akkoord").status_code == 403
    empty = answer(api, driver, headers, correction["id"], reactie="opmerking", tekst=" ")
    assert empty.status_code == 422
    unknown = answer(api, driver, headers, correction["id"], reactie="misschien")
    assert unknown.status_code == 422
    commented = answer(
        api, driver, headers, correction["id"], reactie="opmerking", tekst="Klopt, was file"
    )
    assert commented.status_code == 200, commented.get_json()
    assert commented.get_json()["reactie"] == "opmerking"

    page = text_of(client.get(week_url))
    assert "Opmerking van de chauffeur" in page and "Klopt, was file" in page
    assert "Week goedkeuren" in page
    form = client.get(f"{week_url}/goedkeuren").get_data(as_text=True)
    approved = client.post(f"{week_url}/goedkeuren", data={"csrf_token": csrf_from(form)})
    assert approved.status_code == 303
    late = answer(api, driver, headers, correction["id"], reactie="akkoord")
    assert late.status_code == 409
    assert late.get_json()["code"] == "week_goedgekeurd"
    after = driver_week(api, driver, headers).get_json()
    assert after["status"] == "goedgekeurd"
    assert after["correcties"][0]["reactie_tekst"] == "Klopt, was file"


def test_a_correction_is_audited_with_old_new_and_reason(app, client, carrier, driver, planner):
    from portal.audit.models import AuditEntry

    day = long_monday(app, carrier, driver)
    _, loading = activity_ids(app, carrier, day)
    login(client, planner)
    correct(
        client,
        loading,
        soort="lossen",
        begin="2026-11-16T13:00",
        einde="2026-11-16T14:00",
        reden="Was lossen bij de klant",
    )
    from portal.extensions import db

    changes = in_carrier(
        app,
        carrier.id,
        lambda: [
            row.changes for row in db.session.query(AuditEntry).filter_by(entity="uren_correctie")
        ],
    )
    assert len(changes) == 1
    assert '"soort":["laden","lossen"]' in changes[0]
    assert "Was lossen bij de klant" in changes[0]


def test_another_drivers_correction_is_404_for_the_driver(app, client, carrier, driver, planner):
    from factories import create_driver

    day = long_monday(app, carrier, driver)
    driving, _ = activity_ids(app, carrier, day)
    login(client, planner)
    correct(
        client,
        driving,
        soort="rijden",
        begin="2026-11-16T06:15",
        einde="2026-11-16T13:00",
        reden="Later vertrokken",
    )
    headers = bearer(driver_token(app.test_client(), driver))
    correction = driver_week(app.test_client(), driver, headers).get_json()["correcties"][0]
    colleague = create_driver(app, carrier, "Collega", email="collega@example.com")
    theirs = bearer(driver_token(app.test_client(), colleague))
    api = app.test_client()
    assert answer(api, colleague, theirs, correction["id"], reactie="akkoord").status_code == 404
    assert answer(api, driver, theirs, correction["id"], reactie="akkoord").status_code == 403


def test_the_week_page_shows_payable_hours_and_what_is_off(app, client, carrier, driver, planner):
    long_monday(app, carrier, driver)
    login(client, planner)
    response = client.get(f"/uren/{driver.user_token}/{WEEK}")
    html = response.get_data(as_text=True)
    page = text_of(response)
    assert "Te betalen uren" in page
    row = re.search(r'<tr data-day="2026-11-16">(.*?)</tr>', html.split("hours-payable")[1], re.S)
    assert 'data-col="gewerkt">8:00' in row.group(1)
    assert "langer dan 6 uur achter elkaar gewerkt zonder pauze" in page
    # The short week is made up to the contract hours.
    assert "Aangevuld tot de contracturen: 32:00" in page
