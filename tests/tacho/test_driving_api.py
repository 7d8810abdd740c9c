"""The driving-time operations of the API: a file's daily activities, a driver's remaining
driving time, and a carrier's infringements of EU 561/2006."""

from __future__ import annotations

import io
from datetime import UTC, date, datetime, timedelta

import pytest
from factories import bearer, create_api_key, create_driver, driver_token, in_carrier
from tacho.test_reading import ACTOR, NUMBER, at, card, set_card

from portal.accounts.service import create_api_key as make_key
from portal.tacho import service
from portal.tacho.ddd.build import card_file, changes_from_timeline


def store(app, carrier, data: bytes, name: str = "C_download.ddd"):
    return in_carrier(
        app,
        carrier.id,
        lambda: service.upload(
            carrier_id=carrier.id, stream=io.BytesIO(data), filename=name, actor=ACTOR
        ),
        lambda result: result.file.id,
    )


def key_with(app, carrier, scopes: str) -> str:
    return in_carrier(
        app, carrier.id, lambda: make_key(carrier_id=carrier.id, naam="TMS", scopes=scopes)
    )[1]


# --- GET /tacho_files/{id}/activiteiten ---------------------------------------------------


def test_a_files_days_in_date_order_add_up_to_a_day(app, client, carrier, api_key):
    days = [date(2026, 10, 5) + timedelta(days=n) for n in range(3)]
    file_id = store(app, carrier, card(days, at(days[-1], 10, 30)))
    response = client.get(
        f"/api/v1/tacho_files/{file_id}/activiteiten", headers=bearer(api_key.key)
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert [d["datum"] for d in body] == [d.isoformat() for d in days]
    first = body[0]
    assert first["rijden_min"] == 240
    total = sum(
        first[k] for k in ("rijden_min", "werk_min", "beschikbaar_min", "rust_min", "onbekend_min")
    )
    assert total == 1440
    assert [(w["tijd"][11:16], w["activiteit"]) for w in first["wijzigingen"]] == [
        ("00:00", "rust"),
        ("06:00", "werk"),
        ("06:15", "rijden"),
        ("08:15", "rust"),
        ("09:00", "rijden"),
        ("11:00", "werk"),
        ("11:15", "rust"),
    ]
    # The download day stops at the download: 10:30, and no change after it.
    last = body[-1]
    assert (
        sum(
            last[k]
            for k in ("rijden_min", "werk_min", "beschikbaar_min", "rust_min", "onbekend_min")
        )
        == 630
    )
    assert all(w["tijd"][11:16] < "10:30" for w in last["wijzigingen"])


def test_a_files_days_need_the_tacho_scope_and_the_carrier(app, client, carrier, other_carrier):
    file_id = store(app, carrier, card([date(2026, 10, 5)], at(date(2026, 10, 5), 20)))
    without = key_with(app, carrier, "tasks:read")
    assert (
        client.get(
            f"/api/v1/tacho_files/{file_id}/activiteiten", headers=bearer(without)
        ).status_code
        == 403
    )
    other = create_api_key(app, other_carrier)
    assert (
        client.get(
            f"/api/v1/tacho_files/{file_id}/activiteiten", headers=bearer(other.key)
        ).status_code
        == 404
    )


# --- GET /users/{user_token}/rijtijden -----------------------------------------------------


def recent_card(app, carrier, driver, drive_minutes: int, now: datetime) -> None:
    """A card downloaded a minute ago: a weekly rest behind, then today `drive_minutes` of
    driving without a break, ending now."""
    start = now - timedelta(minutes=drive_minutes + 15)
    timeline = [
        (start - timedelta(hours=60), "rust"),
        (start, "werk"),
        (start + timedelta(minutes=15), "rijden"),
    ]
    data = card_file(
        kaartnummer=NUMBER,
        achternaam="Vos",
        voornamen="Piet",
        dagen=changes_from_timeline(timeline, until=now),
        download_time=now,
    )
    set_card(app, carrier, driver, NUMBER)
    store(app, carrier, data)


def test_a_driver_reads_its_remaining_driving_time(app, client, carrier):
    driver = create_driver(app, carrier, naam="Piet Vos")
    now = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(minutes=1)
    recent_card(app, carrier, driver, 180, now)
    token = driver_token(client, driver)
    response = client.get(f"/api/v1/users/{driver.user_token}/rijtijden", headers=bearer(token))
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["bron"] in ("kaart", "kaart+app")
    # 3 h driven without a break: 1 h 30 left before one is required (a minute may pass).
    assert 88 <= body["resterend_tot_onderbreking_min"] <= 90
    assert 8 * 60 - 180 <= body["resterend_vandaag_min"] <= 10 * 60 - 180
    assert 56 * 60 - 185 <= body["resterend_week_min"] <= 56 * 60 - 180
    assert body["volgende_dagrust_uiterlijk"] is not None


def test_without_any_data_every_figure_is_null(app, client, carrier, api_key):
    driver = create_driver(app, carrier)
    response = client.get(
        f"/api/v1/users/{driver.user_token}/rijtijden", headers=bearer(api_key.key)
    )
    assert response.status_code == 200
    body = response.get_json()
    assert body["bron"] is None
    assert body["resterend_vandaag_min"] is None


def test_a_driver_may_not_read_a_colleagues_driving_time(app, client, carrier):
    driver = create_driver(app, carrier)
    colleague = create_driver(app, carrier, naam="Kees Bos")
    token = driver_token(client, driver)
    response = client.get(f"/api/v1/users/{colleague.user_token}/rijtijden", headers=bearer(token))
    assert response.status_code == 403


# --- GET /transporteurs/{id}/overtredingen ---------------------------------------------------


def long_day_card(day: date) -> bytes:
    """A day of 10 h 45 of driving (breaks kept) after a weekly rest: an infringement of the
    daily driving time, whatever the extensions."""
    t = at(day, 5)
    timeline = [(t - timedelta(hours=50), "rust")]
    for drive in (270, 270, 105):
        timeline += [(t, "rijden"), (t + timedelta(minutes=drive), "rust")]
        t += timedelta(minutes=drive + 45)
    timeline.append((t + timedelta(hours=12), "rust"))
    return card_file(
        kaartnummer=NUMBER,
        achternaam="Vos",
        voornamen="Piet",
        dagen=changes_from_timeline(timeline),
        download_time=at(day + timedelta(days=2), 8),
    )


def test_infringements_over_a_period(app, client, carrier, api_key):
    driver = create_driver(app, carrier, naam="Piet Vos")
    set_card(app, carrier, driver, NUMBER)
    day = date(2026, 10, 7)
    store(app, carrier, long_day_card(day))
    url = f"/api/v1/transporteurs/{carrier.id}/overtredingen"
    response = client.get(f"{url}?van=2026-10-01&tot=2026-10-31", headers=bearer(api_key.key))
    assert response.status_code == 200, response.get_data(as_text=True)
    found = [f for f in response.get_json() if f["soort"] == "overtreding"]
    daily = [f for f in found if f["regel"] == "dagelijkse_rijtijd"]
    assert len(daily) == 1, found
    item = daily[0]
    assert item["chauffeur"] == driver.user_token
    assert item["artikel"].startswith("561/2006 art. 6")
    assert item["gemeten_min"] == 645
    assert item["overschrijding_min"] == 645 - item["grens_min"]
    assert item["ernst"] in ("licht", "ernstig", "zeer_ernstig", "zeer_ernstig_max")
    assert item["bron"] == "kaart"
    # Another period holds none of it; another driver has none.
    later = client.get(f"{url}?van=2026-11-01&tot=2026-11-10", headers=bearer(api_key.key))
    assert [f for f in later.get_json() if f["regel"] == "dagelijkse_rijtijd"] == []
    other = create_driver(app, carrier, naam="Kees Bos")
    mine = client.get(
        f"{url}?van=2026-10-01&tot=2026-10-31&chauffeur={other.user_token}",
        headers=bearer(api_key.key),
    )
    assert mine.get_json() == []


@pytest.mark.parametrize(
    "query, field",
    [
        ("van=2026-10-10&tot=2026-10-01", "tot"),
        ("van=2025-01-01&tot=2026-10-01", "tot"),
        ("chauffeur=nobody", "chauffeur"),
        ("van=gisteren", "van"),
    ],
)
def test_a_bad_period_or_driver_is_a_problem_at_its_field(
    app, client, carrier, api_key, query, field
):
    response = client.get(
        f"/api/v1/transporteurs/{carrier.id}/overtredingen?{query}", headers=bearer(api_key.key)
    )
    assert response.status_code == 422
    assert response.mimetype == "application/problem+json"
    assert field in [e["field"] for e in response.get_json()["errors"]]


def test_infringements_are_for_integrations_of_the_carrier(app, client, carrier, other_carrier):
    driver = create_driver(app, carrier)
    token = driver_token(client, driver)
    url = f"/api/v1/transporteurs/{carrier.id}/overtredingen"
    assert client.get(url, headers=bearer(token)).status_code == 403
    other = create_api_key(app, other_carrier)
    assert client.get(url, headers=bearer(other.key)).status_code == 404
