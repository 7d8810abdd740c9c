"""The drivers' API: the profile, the carrier's driver list, and reported positions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from factories import PASSWORD, bearer, create_api_key, create_driver, driver_token, in_carrier
from sqlalchemy import func, select

from portal.types import iso

API = "/api/v1"


def ago(**delta) -> str:
    return iso(datetime.now(UTC) - timedelta(**delta))


def point(minutes_ago: float, lat: float = 52.2215, lng: float = 6.8937, **extra) -> dict:
    return {"lat": lat, "lng": lng, "recorded_at": ago(minutes=minutes_ago), **extra}


def stored_points(app, driver) -> list[tuple]:
    """The driver's stored points as (recorded_at, lat, lng), oldest first."""
    from portal.drivers.models import DriverLocation
    from portal.extensions import db

    def read():
        rows = db.session.execute(
            select(DriverLocation.recorded_at, DriverLocation.lat, DriverLocation.lng)
            .where(
                DriverLocation.transporteur_id == driver.carrier_id,
                DriverLocation.chauffeur_id == driver.id,
            )
            .order_by(DriverLocation.recorded_at)
        )
        return [tuple(row) for row in rows]

    return in_carrier(app, driver.carrier_id, read)


def total_points(app, carrier) -> int:
    from portal.drivers.models import DriverLocation
    from portal.extensions import db

    return in_carrier(
        app,
        carrier.id,
        lambda: db.session.scalar(
            select(func.count())
            .select_from(DriverLocation)
            .where(DriverLocation.transporteur_id == carrier.id)
        ),
    )


@pytest.fixture
def token(client, driver) -> str:
    return driver_token(client, driver)


# --- the profile ----------------------------------------------------------------------


def test_a_driver_reads_its_own_profile(client, carrier, driver, token):
    response = client.get(f"{API}/users/{driver.user_token}", headers=bearer(token))
    assert response.status_code == 200
    profile = response.get_json()
    assert profile["user_token"] == driver.user_token
    assert profile["id"] == str(driver.id)
    assert profile["naam"] == "Jan Chauffeur"
    assert profile["email"] == driver.email
    assert profile["transporteur_id"] == str(carrier.id)
    assert profile["transporteur_naam"] == "Van der Berg Agrotransport"
    assert profile["tijdzone"] == "Europe/Amsterdam"
    assert profile["actief"] is True
    assert profile["laatste_locatie"] is None
    assert profile["created_at"].endswith("Z")


def test_a_driver_may_not_read_a_colleagues_profile(app, client, carrier, token):
    colleague = create_driver(app, carrier, "Piet Bakker")
    response = client.get(f"{API}/users/{colleague.user_token}", headers=bearer(token))
    assert response.status_code == 403
    assert response.mimetype == "application/problem+json"


def test_another_carriers_driver_is_404_for_a_driver_and_a_key(
    app, client, other_carrier, token, api_key
):
    stranger = create_driver(app, other_carrier, "Sanne Kuipers")
    for credential in (token, api_key.key):
        response = client.get(f"{API}/users/{stranger.user_token}", headers=bearer(credential))
        assert response.status_code == 404


def test_an_api_key_reads_any_driver_of_its_carrier(app, client, carrier, api_key):
    other = create_driver(app, carrier, "Piet Bakker", email="piet@example.nl")
    response = client.get(f"{API}/users/{other.user_token}", headers=bearer(api_key.key))
    assert response.status_code == 200
    assert response.get_json()["email"] == "piet@example.nl"


def test_the_profile_needs_a_bearer(client, driver):
    assert client.get(f"{API}/users/{driver.user_token}").status_code == 401


# --- the carrier's drivers ------------------------------------------------------------


def list_url(carrier, **query) -> str:
    args = "&".join(f"{k}={v}" for k, v in query.items())
    return f"{API}/transporteurs/{carrier.id}/chauffeurs" + (f"?{args}" if args else "")


def test_an_integration_lists_the_carriers_drivers_by_name(app, client, carrier, api_key):
    create_driver(app, carrier, "piet Bakker", email="piet@example.nl")
    create_driver(app, carrier, "Anna de Boer", email=None, password=None)
    create_driver(app, carrier, "Henk Jansen")
    response = client.get(list_url(carrier), headers=bearer(api_key.key))
    assert response.status_code == 200
    assert response.headers["X-Total-Count"] == "3"
    names = [d["naam"] for d in response.get_json()]
    assert names == ["Anna de Boer", "Henk Jansen", "piet Bakker"]
    first = response.get_json()[0]
    assert set(first) >= {
        "id",
        "transporteur_id",
        "user_token",
        "naam",
        "email",
        "telefoon",
        "taal",
        "actief",
        "created_at",
        "laatste_locatie",
    }


def test_the_driver_list_filters_and_pages(app, client, carrier, api_key):
    from portal.audit.service import SYSTEM
    from portal.drivers import service

    for n in range(5):
        create_driver(app, carrier, f"Chauffeur {n}", email=f"c{n}@example.nl")
    gone = create_driver(app, carrier, "Oud Gediende", email="oud@example.nl")
    in_carrier(
        app,
        carrier.id,
        lambda: service.deactivate_driver(carrier_id=carrier.id, driver_id=gone.id, actor=SYSTEM),
    )
    key = bearer(api_key.key)

    active = client.get(list_url(carrier, actief="true"), headers=key)
    assert active.headers["X-Total-Count"] == "5"
    inactive = client.get(list_url(carrier, actief="false"), headers=key).get_json()
    assert [d["naam"] for d in inactive] == ["Oud Gediende"]
    assert inactive[0]["actief"] is False
    found = client.get(list_url(carrier, q="c3@"), headers=key).get_json()
    assert [d["naam"] for d in found] == ["Chauffeur 3"]
    page = client.get(list_url(carrier, limit=2, offset=2), headers=key)
    assert page.headers["X-Total-Count"] == "6"
    assert [d["naam"] for d in page.get_json()] == ["Chauffeur 2", "Chauffeur 3"]
    assert client.get(list_url(carrier, limit=0), headers=key).status_code == 422
    assert client.get(list_url(carrier, actief="misschien"), headers=key).status_code == 422


def test_the_driver_list_is_for_integrations_of_that_carrier(
    app, client, carrier, other_carrier, driver, token, api_key
):
    assert client.get(list_url(carrier), headers=bearer(token)).status_code == 403
    assert client.get(list_url(other_carrier), headers=bearer(api_key.key)).status_code == 404
    foreign_key = create_api_key(app, other_carrier)
    own = client.get(list_url(other_carrier), headers=bearer(foreign_key.key))
    assert own.status_code == 200 and own.get_json() == []


def test_the_driver_list_runs_a_fixed_number_of_queries(
    app, client, carrier, api_key, count_queries
):
    create_driver(app, carrier, "Eerste")
    key = bearer(api_key.key)
    client.get(list_url(carrier), headers=key)
    with count_queries() as few:
        assert client.get(list_url(carrier), headers=key).status_code == 200
    for n in range(20):
        create_driver(app, carrier, f"Chauffeur {n}")
    with count_queries() as many:
        response = client.get(list_url(carrier), headers=key)
    assert len(response.get_json()) == 21
    assert many.count == few.count, "\n".join([*few.statements, "-----", *many.statements])


# --- positions ------------------------------------------------------------------------


def put(client, driver, credential, body, **headers):
    return client.put(
        f"{API}/users/{driver.user_token}/locatie",
        json=body,
        headers={**bearer(credential), **headers},
    )


def test_a_driver_reports_one_point_and_it_becomes_the_last_known(client, driver, token):
    body = point(1, accuracy=8.5, speed=13.9, heading=271)
    response = put(client, driver, token, body)
    assert response.status_code == 200, response.get_json()
    result = response.get_json()
    assert (result["ontvangen"], result["opgeslagen"], result["dubbel"]) == (1, 1, 0)
    assert result["laatste_locatie"] == {
        "lat": 52.2215,
        "lng": 6.8937,
        "recorded_at": body["recorded_at"],
        "accuracy": 8.5,
        "speed": 13.9,
        "heading": 271,
    }
    profile = client.get(f"{API}/users/{driver.user_token}", headers=bearer(token)).get_json()
    assert profile["laatste_locatie"]["recorded_at"] == body["recorded_at"]


def test_a_batch_is_stored_and_the_newest_point_is_the_last_known(app, client, driver, token):
    batch = {"punten": [point(30, lat=52.0), point(10, lat=52.2), point(20, lat=52.1)]}
    response = put(client, driver, token, batch)
    assert response.status_code == 200
    result = response.get_json()
    assert (result["ontvangen"], result["opgeslagen"]) == (3, 3)
    assert result["laatste_locatie"]["lat"] == 52.2
    assert [row[1] for row in stored_points(app, driver)] == [52.0, 52.1, 52.2]


def test_a_late_point_is_kept_but_does_not_move_the_last_known_back(app, client, driver, token):
    newest = point(1, lat=52.5)
    assert put(client, driver, token, newest).status_code == 200
    late = put(client, driver, token, {"punten": [point(45, lat=51.9), point(40, lat=51.95)]})
    assert late.status_code == 200
    assert late.get_json()["opgeslagen"] == 2
    assert late.get_json()["laatste_locatie"]["lat"] == 52.5
    assert late.get_json()["laatste_locatie"]["recorded_at"] == newest["recorded_at"]
    assert len(stored_points(app, driver)) == 3


def test_points_sent_twice_are_ignored_not_refused(app, client, driver, token):
    first, second = point(5), point(4)
    assert put(client, driver, token, first).status_code == 200
    # `second` twice in one batch: the same moment (a fresh point(4) could differ by a ms).
    again = put(client, driver, token, {"punten": [first, second, second]})
    assert again.status_code == 200
    assert again.get_json() == {
        **again.get_json(),
        "ontvangen": 3,
        "opgeslagen": 1,
        "dubbel": 2,
    }
    assert len(stored_points(app, driver)) == 2


def test_coordinates_out_of_range_are_refused_naming_the_point(app, client, driver, token):
    batch = {"punten": [point(3), point(2, lat=90.5), point(1, lng=-180.01)]}
    response = put(client, driver, token, batch)
    assert response.status_code == 422
    assert response.mimetype == "application/problem+json"
    fields = {e["field"] for e in response.get_json()["errors"]}
    assert fields == {"punten.1.lat", "punten.2.lng"}
    assert stored_points(app, driver) == []  # nothing of a refused batch is kept

    single = put(client, driver, token, point(1, lat=-91))
    assert single.status_code == 422
    assert [e["field"] for e in single.get_json()["errors"]] == ["lat"]


def test_a_point_from_the_future_is_refused_a_little_clock_skew_is_not(app, client, driver, token):
    skewed = {"lat": 52.1, "lng": 6.1, "recorded_at": ago(seconds=-60)}
    assert put(client, driver, token, skewed).status_code == 200
    future = {"lat": 52.2, "lng": 6.2, "recorded_at": ago(minutes=-10)}
    response = put(client, driver, token, {"punten": [point(5), future]})
    assert response.status_code == 422
    (error,) = response.get_json()["errors"]
    assert error["field"] == "punten.1.recorded_at"
    assert "future" in error["message"]
    assert len(stored_points(app, driver)) == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"punten": []}, "punten"),
        ({"lat": 52.1, "lng": 6.1}, "recorded_at"),
        ({"lat": 52.1, "lng": 6.1, "recorded_at": "2026-11-21T08:30:00"}, "recorded_at"),
        ({"lat": "noord", "lng": 6.1, "recorded_at": "2026-11-21T08:30:00Z"}, "lat"),
        ({"lat": 52.1, "lng": 6.1, "recorded_at": "2026-11-21T08:30:00Z", "hoogte": 3}, "hoogte"),
        ({"punten": [{"lat": 52.1}]}, "punten.0.lng"),
        ({"lat": 52.1, "lng": 6.1, "recorded_at": "2026-11-21T08:30:00Z", "speed": -1}, "speed"),
    ],
)
def test_malformed_positions_are_422_naming_the_field(client, driver, token, body, field):
    response = put(client, driver, token, body)
    assert response.status_code == 422
    assert field in {e["field"] for e in response.get_json()["errors"]}


def test_a_batch_holds_at_most_1000_points(client, driver, token):
    start = datetime.now(UTC) - timedelta(hours=5)
    points = [
        {"lat": 52.0, "lng": 6.0, "recorded_at": iso(start + timedelta(seconds=n))}
        for n in range(1001)
    ]
    assert put(client, driver, token, {"punten": points}).status_code == 422
    response = put(client, driver, token, {"punten": points[:1000]})
    assert response.status_code == 200
    assert response.get_json()["opgeslagen"] == 1000


def test_a_driver_may_not_report_for_a_colleague(app, client, carrier, token):
    colleague = create_driver(app, carrier, "Piet Bakker")
    assert put(client, colleague, token, point(1)).status_code == 403
    assert stored_points(app, colleague) == []


def test_another_carriers_user_token_is_404_and_changes_nothing(
    app, client, other_carrier, token, api_key
):
    stranger = create_driver(app, other_carrier, "Sanne Kuipers")
    for credential in (token, api_key.key):
        assert put(client, stranger, credential, point(1)).status_code == 404
    assert total_points(app, other_carrier) == 0
    profile = client.get(
        f"{API}/users/{stranger.user_token}",
        headers=bearer(create_api_key(app, other_carrier).key),
    ).get_json()
    assert profile["laatste_locatie"] is None


def test_an_integration_may_report_for_its_drivers(app, client, driver, api_key):
    response = put(client, driver, api_key.key, point(2))
    assert response.status_code == 200
    assert len(stored_points(app, driver)) == 1


def test_a_retry_with_the_same_idempotency_key_answers_the_first_response(
    app, client, driver, token
):
    body = {"punten": [point(3), point(2)]}
    first = put(client, driver, token, body, **{"Idempotency-Key": "loc-1"})
    second = put(client, driver, token, body, **{"Idempotency-Key": "loc-1"})
    assert first.status_code == second.status_code == 200
    assert second.headers.get("Idempotent-Replayed") == "true"
    assert second.get_json() == first.get_json()
    other = put(client, driver, token, {"punten": [point(1)]}, **{"Idempotency-Key": "loc-1"})
    assert other.status_code == 422
    assert len(stored_points(app, driver)) == 2


def test_the_body_must_be_json(client, driver, token):
    response = client.put(
        f"{API}/users/{driver.user_token}/locatie",
        data="lat=52",
        content_type="application/x-www-form-urlencoded",
        headers=bearer(token),
    )
    assert response.status_code == 415


# --- access ends --------------------------------------------------------------------


def test_a_rotated_user_token_answers_404_on_the_old_paths(app, client, carrier, driver, token):
    from portal.audit.service import SYSTEM
    from portal.drivers import service

    new = in_carrier(
        app,
        carrier.id,
        lambda: service.rotate_user_token(carrier_id=carrier.id, driver_id=driver.id, actor=SYSTEM),
        lambda d: d.user_token,
    )
    assert new != driver.user_token
    key = create_api_key(app, carrier)
    for credential in (token, key.key):
        old = client.get(f"{API}/users/{driver.user_token}", headers=bearer(credential))
        assert old.status_code == 404
        assert put(client, driver, credential, point(1)).status_code == 404
        assert client.get(f"{API}/users/{new}", headers=bearer(credential)).status_code == 200


def test_a_deactivated_driver_can_no_longer_use_or_refresh_its_tokens(app, client, carrier, driver):
    from portal.audit.service import SYSTEM
    from portal.drivers import service

    signed_in = client.post(
        f"{API}/auth/token",
        json={"grant_type": "password", "username": driver.email, "password": PASSWORD},
    ).get_json()
    in_carrier(
        app,
        carrier.id,
        lambda: service.deactivate_driver(carrier_id=carrier.id, driver_id=driver.id, actor=SYSTEM),
    )
    profile = client.get(
        f"{API}/users/{driver.user_token}", headers=bearer(signed_in["access_token"])
    )
    assert profile.status_code == 401
    refreshed = client.post(
        f"{API}/auth/token",
        json={"grant_type": "refresh_token", "refresh_token": signed_in["refresh_token"]},
    )
    assert refreshed.status_code == 400
    password = client.post(
        f"{API}/auth/token",
        json={"grant_type": "password", "username": driver.email, "password": PASSWORD},
    )
    assert password.status_code == 400
