"""Drivers in the portal: list, create, edit, deactivate, pairing, user_token, sign-out,
the map of last positions and a day's track."""

from __future__ import annotations

import html as htmllib
import re
import uuid
from datetime import UTC, date, datetime, time, timedelta
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import pytest
from conftest import base_config
from factories import (
    PASSWORD,
    bearer,
    create_api_key,
    create_driver,
    create_task,
    create_user,
    create_vehicle,
    csrf_from,
    in_carrier,
    login,
)

from portal import create_app
from portal.extensions import db

AMS = ZoneInfo("Europe/Amsterdam")
API = "/api/v1"


@pytest.fixture
def signed_in(client, planner):
    login(client, planner)
    return client


def token_of(client, path: str = "/chauffeurs/nieuw") -> str:
    return csrf_from(client.get(path).get_data(as_text=True))


def driver_row(app, carrier, driver_id) -> dict:
    from portal.drivers import service
    from portal.drivers.models import Driver

    return in_carrier(
        app,
        carrier.id,
        lambda: service.get_driver(carrier_id=carrier.id, driver_id=driver_id),
        lambda d: {c.key: getattr(d, c.key) for c in Driver.__table__.columns},
    )


def record(app, driver, *points) -> None:
    """Positions of driver through the service: (recorded_at, lat, lng) tuples."""
    from portal.drivers.locations import Point, record_locations

    in_carrier(
        app,
        driver.carrier_id,
        lambda: record_locations(
            carrier_id=driver.carrier_id,
            driver_id=driver.id,
            points=[Point(lat=y, lng=x, recorded_at=at, accuracy=7.0) for at, y, x in points],
        ),
    )


def api_tokens(client, driver) -> dict:
    response = client.post(
        f"{API}/auth/token",
        json={"grant_type": "password", "username": driver.email, "password": PASSWORD},
    )
    assert response.status_code == 200
    return response.get_json()


# --- the list -------------------------------------------------------------------------


def test_the_list_shows_active_drivers_by_name(app, signed_in, carrier, other_carrier):
    create_driver(app, carrier, "piet Bakker", email="piet@vdberg.nl")
    create_driver(app, carrier, "Anna de Boer")
    create_driver(app, other_carrier, "Sanne Kuipers")
    page = signed_in.get("/chauffeurs").get_data(as_text=True)
    names = re.findall(r"<strong>([^<]+)</strong></a></td>", page)
    assert names == ["Anna de Boer", "piet Bakker"]
    assert "Sanne Kuipers" not in page
    assert "piet@vdberg.nl" in page
    assert "2 actieve chauffeurs" in page


def test_the_list_searches_name_email_and_phone(app, signed_in, carrier):
    from portal.drivers import service

    jan = create_driver(app, carrier, "Jan de Vries", email="jan@vdberg.nl")
    create_driver(app, carrier, "Piet Bakker", email="piet@vdberg.nl")
    in_carrier(
        app,
        carrier.id,
        lambda: service.update_driver(
            carrier_id=carrier.id,
            driver_id=jan.id,
            naam="Jan de Vries",
            email="jan@vdberg.nl",
            telefoon="06-12 34 56 78",
            taal="nl",
            actor=service.SYSTEM,
        ),
    )

    def names(query: str) -> list[str]:
        html = signed_in.get(f"/chauffeurs?{query}").get_data(as_text=True)
        return re.findall(r"<strong>([^<]+)</strong></a></td>", html)

    assert names("q=vries") == ["Jan de Vries"]
    assert names("q=PIET%40") == ["Piet Bakker"]
    assert names("q=0612345") == ["Jan de Vries"]
    assert names("q=%25") == []  # a LIKE wildcard is searched for literally
    assert names("q=bestaat+niet") == []
    assert "Geen chauffeurs gevonden." in signed_in.get("/chauffeurs?q=xyz").get_data(as_text=True)


def test_the_list_filters_active_and_inactive(app, signed_in, carrier):
    from portal.audit.service import SYSTEM
    from portal.drivers import service

    create_driver(app, carrier, "Actieve Chauffeur")
    gone = create_driver(app, carrier, "Vertrokken Chauffeur")
    in_carrier(
        app,
        carrier.id,
        lambda: service.deactivate_driver(carrier_id=carrier.id, driver_id=gone.id, actor=SYSTEM),
    )
    active = signed_in.get("/chauffeurs").get_data(as_text=True)
    assert "Actieve Chauffeur" in active and "Vertrokken Chauffeur" not in active
    inactive = signed_in.get("/chauffeurs?status=inactief").get_data(as_text=True)
    assert "Vertrokken Chauffeur" in inactive and "Actieve Chauffeur" not in inactive
    everyone = signed_in.get("/chauffeurs?status=alle").get_data(as_text=True)
    assert "Vertrokken Chauffeur" in everyone and "Actieve Chauffeur" in everyone
    assert signed_in.get("/chauffeurs?status=kwijt").status_code == 422


def test_the_list_pages_and_htmx_gets_the_results_only(app, signed_in, carrier):
    for n in range(55):
        create_driver(app, carrier, f"Chauffeur {n:02d}", email=None, password=None)
    first = signed_in.get("/chauffeurs").get_data(as_text=True)
    assert first.count('<tr id="driver-') == 50
    assert "Pagina 1 van 2" in first
    second = signed_in.get("/chauffeurs?pagina=2", headers={"HX-Request": "true"})
    body = second.get_data(as_text=True)
    assert second.status_code == 200
    assert "<html" not in body and 'id="driver-results"' in body
    assert body.count('<tr id="driver-') == 5
    assert second.headers["HX-Push-Url"] == "/chauffeurs?pagina=2"


def test_the_list_runs_a_fixed_number_of_queries(app, signed_in, carrier, count_queries):
    create_driver(app, carrier, "Eerste")
    signed_in.get("/chauffeurs")
    with count_queries() as few:
        assert signed_in.get("/chauffeurs").status_code == 200
    for n in range(30):
        driver = create_driver(app, carrier, f"Chauffeur {n}")
        record(app, driver, (datetime.now(UTC) - timedelta(minutes=n), 52.0, 6.0))
    with count_queries() as many:
        html = signed_in.get("/chauffeurs").get_data(as_text=True)
    assert html.count('<tr id="driver-') == 31
    assert many.count == few.count, "\n".join([*few.statements, "-----", *many.statements])
    with count_queries() as the_map:
        assert signed_in.get("/chauffeurs/kaart").status_code == 200
    assert the_map.count <= few.count


def test_drivers_are_for_planners(app, client, carrier, driver):
    author = create_user(app, carrier, "author")
    login(client, author)
    assert client.get("/chauffeurs").status_code == 403
    assert client.get(f"/chauffeurs/{driver.id}").status_code == 403
    assert client.get("/chauffeurs/kaart").status_code == 403


def test_an_admin_may_manage_drivers(app, client, carrier):
    admin = create_user(app, carrier, "admin")
    login(client, admin)
    assert client.get("/chauffeurs").status_code == 200


# --- create and edit ------------------------------------------------------------------


def test_a_planner_adds_a_driver_and_lands_on_its_page(app, signed_in, carrier):
    response = signed_in.post(
        "/chauffeurs/nieuw",
        data={
            "csrf_token": token_of(signed_in),
            "naam": "  Kees Mulder ",
            "email": "Kees@VdBerg.nl",
            "telefoon": "+31 6 1234 5678",
            "taal": "en",
        },
    )
    assert response.status_code == 303
    driver_id = uuid.UUID(response.headers["Location"].rsplit("/", 1)[-1])
    row = driver_row(app, carrier, driver_id)
    assert row["naam"] == "Kees Mulder"
    assert row["email"] == "kees@vdberg.nl"
    assert row["telefoon"] == "+31 6 1234 5678"
    assert row["taal"] == "en"
    assert row["actief"] is True
    page = signed_in.get(response.headers["Location"]).get_data(as_text=True)
    assert "Chauffeur “Kees Mulder” is toegevoegd." in page
    assert "Telefoon koppelen" in page
    assert "Aangemaakt" in page  # the history


def test_errors_show_at_their_fields(app, signed_in, carrier):
    create_driver(app, carrier, "Jan de Vries", email="jan@vdberg.nl")
    response = signed_in.post(
        "/chauffeurs/nieuw",
        data={
            "csrf_token": token_of(signed_in),
            "naam": "",
            "email": "JAN@vdberg.nl",
            "telefoon": "bel maar",
            "taal": "fr",
        },
    )
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert 'id="naam-error"' in html and "Vul de naam in." in html
    assert 'id="email-error"' in html
    assert "Dit e-mailadres is al in gebruik bij een andere chauffeur." in html
    assert 'id="telefoon-error"' in html
    assert 'id="taal-error"' in html
    assert 'aria-invalid="true"' in html
    assert 'value="bel maar"' in html  # the input is kept

    bad_email = signed_in.post(
        "/chauffeurs/nieuw",
        data={"csrf_token": token_of(signed_in), "naam": "Piet", "email": "piet@", "taal": "nl"},
    )
    assert bad_email.status_code == 422
    assert "Vul een geldig e-mailadres in" in bad_email.get_data(as_text=True)


def test_the_same_email_may_exist_at_another_carrier(app, signed_in, other_carrier):
    create_driver(app, other_carrier, "Sanne", email="sanne@example.nl")
    response = signed_in.post(
        "/chauffeurs/nieuw",
        data={
            "csrf_token": token_of(signed_in),
            "naam": "Sanne",
            "email": "sanne@example.nl",
            "taal": "nl",
        },
    )
    assert response.status_code == 303


def test_a_planner_edits_a_driver_and_the_history_shows_it(app, signed_in, carrier):
    driver = create_driver(app, carrier, "Jan de Vries", email="jan@vdberg.nl")
    create_driver(app, carrier, "Piet Bakker", email="piet@vdberg.nl")
    form = signed_in.get(f"/chauffeurs/{driver.id}/bewerken").get_data(as_text=True)
    assert 'value="Jan de Vries"' in form and 'value="jan@vdberg.nl"' in form
    taken = signed_in.post(
        f"/chauffeurs/{driver.id}/bewerken",
        data={
            "csrf_token": csrf_from(form),
            "naam": "Jan de Vries",
            "email": "piet@vdberg.nl",
            "taal": "nl",
        },
    )
    assert taken.status_code == 422
    assert "al in gebruik" in taken.get_data(as_text=True)
    saved = signed_in.post(
        f"/chauffeurs/{driver.id}/bewerken",
        data={
            "csrf_token": csrf_from(form),
            "naam": "Jan de Vries jr.",
            "email": "jan@vdberg.nl",
            "telefoon": "06-11112222",
            "taal": "en",
        },
    )
    assert saved.status_code == 303
    row = driver_row(app, carrier, driver.id)
    assert (row["naam"], row["telefoon"], row["taal"]) == ("Jan de Vries jr.", "06-11112222", "en")
    page = htmllib.unescape(signed_in.get(f"/chauffeurs/{driver.id}").get_data(as_text=True))
    assert "Gewijzigd" in page
    assert "Jan de Vries</del>" in page and "Jan de Vries jr.</ins>" in page


def test_a_form_without_its_csrf_token_is_refused(app, signed_in, carrier, driver):
    response = signed_in.post(f"/chauffeurs/{driver.id}/bewerken", data={"naam": "X", "taal": "nl"})
    assert response.status_code == 400
    assert driver_row(app, carrier, driver.id)["naam"] == "Jan Chauffeur"


# --- deactivate, reactivate ------------------------------------------------------------


def test_deactivating_asks_first_then_ends_the_drivers_access(
    app, client, signed_in, carrier, driver
):
    tokens = api_tokens(app.test_client(), driver)
    task = create_task(app, carrier, driver, naam="Mest laden Ommen")
    confirm = signed_in.get(f"/chauffeurs/{driver.id}/deactiveren")
    assert confirm.status_code == 200
    html = confirm.get_data(as_text=True)
    assert "deactiveren?" in html and "Ja, deactiveer" in html
    assert driver_row(app, carrier, driver.id)["actief"] is True  # nothing happened yet

    response = signed_in.post(
        f"/chauffeurs/{driver.id}/deactiveren", data={"csrf_token": csrf_from(html)}
    )
    assert response.status_code == 303
    row = driver_row(app, carrier, driver.id)
    assert row["actief"] is False
    api = app.test_client()
    profile = api.get(f"{API}/users/{driver.user_token}", headers=bearer(tokens["access_token"]))
    assert profile.status_code == 401
    refresh = api.post(
        f"{API}/auth/token",
        json={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]},
    )
    assert refresh.status_code == 400
    # The history stays: the task still names the driver.
    detail = signed_in.get(f"/taken/{task.id}").get_data(as_text=True)
    assert "Jan Chauffeur" in detail
    page = signed_in.get(f"/chauffeurs/{driver.id}").get_data(as_text=True)
    assert "Deze chauffeur is gedeactiveerd." in page and "Gedeactiveerd" in page

    back = signed_in.post(
        f"/chauffeurs/{driver.id}/activeren", data={"csrf_token": csrf_from(page)}
    )
    assert back.status_code == 303
    assert driver_row(app, carrier, driver.id)["actief"] is True
    assert api_tokens(app.test_client(), driver)["access_token"]


# --- user_token, sign-out -------------------------------------------------------------


def test_rotating_the_user_token_makes_old_paths_404(app, signed_in, carrier, driver):
    key = create_api_key(app, carrier)
    api = app.test_client()
    old = driver.user_token
    html = signed_in.get(f"/chauffeurs/{driver.id}/user-token").get_data(as_text=True)
    assert "Nieuwe user_token" in html
    response = signed_in.post(
        f"/chauffeurs/{driver.id}/user-token", data={"csrf_token": csrf_from(html)}
    )
    assert response.status_code == 303
    new = driver_row(app, carrier, driver.id)["user_token"]
    assert new != old
    assert api.get(f"{API}/users/{old}", headers=bearer(key.key)).status_code == 404
    assert api.get(f"{API}/users/{old}/taken", headers=bearer(key.key)).status_code == 404
    assert api.get(f"{API}/users/{new}", headers=bearer(key.key)).status_code == 200
    page = signed_in.get(f"/chauffeurs/{driver.id}").get_data(as_text=True)
    assert new in page and "user_token vernieuwd" in page


def test_signing_out_the_phone_refuses_its_tokens(app, signed_in, carrier, driver):
    tokens = api_tokens(app.test_client(), driver)
    api = app.test_client()
    auth = bearer(tokens["access_token"])
    assert api.get(f"{API}/users/{driver.user_token}", headers=auth).status_code == 200
    html = signed_in.get(f"/chauffeurs/{driver.id}/afmelden").get_data(as_text=True)
    assert "afmelden?" in html
    response = signed_in.post(
        f"/chauffeurs/{driver.id}/afmelden", data={"csrf_token": csrf_from(html)}
    )
    assert response.status_code == 303
    assert api.get(f"{API}/users/{driver.user_token}", headers=auth).status_code == 401
    refresh = api.post(
        f"{API}/auth/token",
        json={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]},
    )
    assert refresh.status_code == 400
    assert driver_row(app, carrier, driver.id)["actief"] is True  # still a driver
    page = signed_in.get(f"/chauffeurs/{driver.id}").get_data(as_text=True)
    assert "Telefoon afgemeld" in page


# --- pairing --------------------------------------------------------------------------


def pair(client, driver) -> tuple[str, str]:
    """Make a pairing code on the page; answers (code, html)."""
    start = client.get(f"/chauffeurs/{driver.id}/koppelen").get_data(as_text=True)
    response = client.post(
        f"/chauffeurs/{driver.id}/koppelen", data={"csrf_token": csrf_from(start)}
    )
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    code = re.search(r'id="pairing-code" data-code="([A-Z0-9]+)"', html).group(1)
    return code, html


def test_pairing_shows_a_qr_code_whose_code_signs_the_phone_in(app, signed_in, carrier):
    driver = create_driver(app, carrier, "Kees Mulder", email=None, password=None)
    code, html = pair(signed_in, driver)
    assert '<svg viewBox="0 0' in html and 'class="qr-code"' in html
    assert "style=" not in html.split('class="qr-code"', 1)[1].split("</svg>", 1)[0]
    assert f"{code[:5]}-{code[5:]}" in html  # shown in text, in two groups
    assert "Geldig tot" in html
    payload = htmllib.unescape(re.search(r'class="pairing-payload">([^<]+)<', html).group(1))
    parts = urlsplit(payload)
    assert (parts.scheme, parts.netloc) == ("rijplan", "activate")
    assert parse_qs(parts.query) == {"code": [code], "server": ["http://localhost/api/v1"]}

    api = app.test_client()
    grouped = f"{code[:5]}-{code[5:]}".lower()  # typed from the screen
    tokens = api.post(f"{API}/auth/token", json={"grant_type": "activation_code", "code": grouped})
    assert tokens.status_code == 200, tokens.get_json()
    assert tokens.get_json()["user_token"] == driver.user_token
    again = api.post(f"{API}/auth/token", json={"grant_type": "activation_code", "code": code})
    assert again.status_code == 400  # one-time
    page = signed_in.get(f"/chauffeurs/{driver.id}").get_data(as_text=True)
    assert "Koppelcode gemaakt" in page
    assert code not in page  # the code itself is not kept in the trail


def test_a_new_pairing_code_voids_the_earlier_unused_one(app, signed_in, carrier, driver):
    first, _ = pair(signed_in, driver)
    second, _ = pair(signed_in, driver)
    api = app.test_client()
    old = api.post(f"{API}/auth/token", json={"grant_type": "activation_code", "code": first})
    assert old.status_code == 400
    new = api.post(f"{API}/auth/token", json={"grant_type": "activation_code", "code": second})
    assert new.status_code == 200


def test_a_deactivated_driver_can_not_be_paired(app, signed_in, carrier, driver):
    from portal.audit.service import SYSTEM
    from portal.drivers import service

    in_carrier(
        app,
        carrier.id,
        lambda: service.deactivate_driver(carrier_id=carrier.id, driver_id=driver.id, actor=SYSTEM),
    )
    page = signed_in.get(f"/chauffeurs/{driver.id}/koppelen").get_data(as_text=True)
    assert "kan geen telefoon koppelen" in page
    response = signed_in.post(
        f"/chauffeurs/{driver.id}/koppelen", data={"csrf_token": csrf_from(page)}
    )
    assert response.status_code == 409
    assert 'id="pairing-code"' not in response.get_data(as_text=True)


# --- another carrier's driver ---------------------------------------------------------


def test_every_driver_route_is_404_for_another_carriers_driver(app, signed_in, other_carrier):
    stranger = create_driver(app, other_carrier, "Sanne Kuipers")
    token = token_of(signed_in)
    checked = 0
    for rule in app.url_map.iter_rules():
        if not rule.endpoint.startswith("drivers.") or "driver_id" not in rule.arguments:
            continue
        path = rule.build({"driver_id": str(stranger.id)}, append_unknown=False)[1]
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            for data in ({}, {"csrf_token": token}):
                response = signed_in.open(path, method=method, data=data)
                assert response.status_code == 404, f"{method} {path}"
                checked += 1
    assert checked >= 16
    row = driver_row(app, other_carrier, stranger.id)
    assert row["actief"] is True and row["user_token"] == stranger.user_token


# --- the map and the track ------------------------------------------------------------


def test_the_map_page_lists_last_positions_with_time_and_accuracy(app, signed_in, carrier):
    jan = create_driver(app, carrier, "Jan de Vries")
    create_driver(app, carrier, "Henk Jansen")
    recent = datetime.now(UTC) - timedelta(minutes=12)
    record(app, jan, (recent - timedelta(hours=1), 52.0, 6.0), (recent, 52.29375, 6.57875))
    response = signed_in.get("/chauffeurs/kaart")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    row = html.split(f'id="position-{jan.id}"', 1)[1].split("</tr>", 1)[0]
    assert "52.29375, 6.57875" in row
    assert recent.astimezone(AMS).strftime("%H:%M") in row
    assert "12 minuten geleden" in row
    assert "± 7 m" in row
    assert "Nog geen locatie ontvangen" in html.split('id="position-', 3)[2]  # Henk
    markers = re.search(r'data-markers="([^"]*)"', html).group(1)
    assert '"naam": "Jan de Vries"' in htmllib.unescape(markers)
    assert "MAP_TILE_URL" in html  # no tiles configured: said so
    assert 'src="/static/vendor/leaflet/leaflet.js"' in html
    assert "<script>" not in html  # no inline script
    fragment = signed_in.get("/chauffeurs/kaart", headers={"HX-Request": "true"})
    assert "<html" not in fragment.get_data(as_text=True)
    assert 'id="positions"' in fragment.get_data(as_text=True)


def test_a_configured_tile_server_is_allowed_by_the_csp(app, planner, tmp_path):
    config = {
        **base_config(tmp_path),
        "SQLALCHEMY_DATABASE_URI": app.config["SQLALCHEMY_DATABASE_URI"],
        "DATABASE_ADMIN_URL": app.config.get("DATABASE_ADMIN_URL"),
        "MAP_TILE_URL": "https://{s}.tile.example.org/{z}/{x}/{y}.png",
        "MAP_TILE_ATTRIBUTION": "© OpenStreetMap",
    }
    tiled = create_app(config)
    try:
        client = tiled.test_client()
        login(client, planner)
        response = client.get("/chauffeurs/kaart")
        csp = response.headers["Content-Security-Policy"]
        assert "img-src 'self' data: https://*.tile.example.org;" in csp
        assert "script-src 'self';" in csp
        html = response.get_data(as_text=True)
        assert 'data-tile-url="https://{s}.tile.example.org/{z}/{x}/{y}.png"' in html
        assert "MAP_TILE_URL" not in html
    finally:
        with tiled.app_context():
            db.engine.dispose()
    assert (
        "tile.example.org" not in app.test_client().get("/login").headers["Content-Security-Policy"]
    )


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("", None),
        ("https://tile.openstreetmap.org/{z}/{x}/{y}.png", "https://tile.openstreetmap.org"),
        ("https://{s}.tile.openstreetmap.org/{z}/{x}/{y}.png", "https://*.tile.openstreetmap.org"),
        ("http://localhost:8080/tiles/{z}/{x}/{y}.png", "http://localhost:8080"),
        ("https://tiles-{s}.example.org/{z}/{x}/{y}.png", "https://*.example.org"),
        ("https://{s}.org/{z}/{x}/{y}.png", None),  # a wildcard over a whole top-level domain
        ("https://a.b.example.org/{z}/{x}/{y}.png", "https://a.b.example.org"),
        ("javascript:alert(1)", None),
        ("https://evil.org; script-src *", None),
        ("//tile.example.org/{z}/{x}/{y}.png", None),
    ],
)
def test_the_csp_source_of_a_tile_url(url, origin):
    from portal.web import tile_origin

    assert tile_origin(url) == origin


def day_at(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime.combine(day, time(hour, minute), tzinfo=AMS).astimezone(UTC)


def test_the_track_shows_one_day_in_the_carriers_time_zone(app, signed_in, carrier, driver):
    today = datetime.now(AMS).date()
    yesterday = today - timedelta(days=1)
    record(
        app,
        driver,
        (day_at(yesterday, 23, 50), 51.0, 5.0),  # yesterday, Amsterdam time
        (day_at(yesterday, 8, 0), 52.0, 6.0),
        (day_at(yesterday, 8, 10), 52.1, 6.1),
    )
    page = signed_in.get(f"/chauffeurs/{driver.id}/rit?datum={yesterday.isoformat()}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "3 punten" in html
    assert "08:00:00" in html and "08:10:00" in html and "23:50:00" in html
    line = htmllib.unescape(re.search(r'data-line="([^"]*)"', html).group(1))
    assert line == "[[52.0, 6.0], [52.1, 6.1], [51.0, 5.0]]"
    assert "km" in html
    empty = signed_in.get(f"/chauffeurs/{driver.id}/rit").get_data(as_text=True)
    assert "Geen locaties op deze dag." in empty
    bad = signed_in.get(f"/chauffeurs/{driver.id}/rit?datum=morgen")
    assert bad.status_code == 422
    assert 'id="datum-error"' in bad.get_data(as_text=True)


def test_the_tracks_table_is_paged(app, signed_in, carrier, driver):
    yesterday = datetime.now(AMS).date() - timedelta(days=1)
    start = day_at(yesterday, 10, 0)
    record(app, driver, *[(start + timedelta(seconds=20 * n), 52.0, 6.0) for n in range(150)])
    url = f"/chauffeurs/{driver.id}/rit?datum={yesterday.isoformat()}"
    first = signed_in.get(url).get_data(as_text=True)
    assert first.count('<td class="num muted">') == 100
    assert "Pagina 1 van 2" in first
    second = signed_in.get(f"{url}&pagina=2").get_data(as_text=True)
    assert second.count('<td class="num muted">') == 50
    assert ">150</td>" in second


def test_deactivating_frees_the_vehicle_and_forgets_the_phones(app, signed_in, carrier, driver):
    from messages.support import Device, subscribe, subscription_count

    from portal.fleet import service as fleet
    from portal.fleet import sessions

    vehicle = create_vehicle(app, carrier, "BX-12-LP")
    payload = in_carrier(
        app,
        carrier.id,
        lambda: fleet.sticker_payload(
            fleet.get_vehicle(carrier_id=carrier.id, vehicle_id=vehicle.id)
        ),
    )
    token = api_tokens(app.test_client(), driver)["access_token"]
    api = app.test_client()
    started = api.post(f"{API}/vehicle_sessions", json={}, headers=bearer(token))
    session_id = started.get_json()["id"]
    scanned = api.post(
        f"{API}/vehicle_sessions/{session_id}/validate", json={"qr": payload}, headers=bearer(token)
    )
    assert scanned.status_code == 200, scanned.get_json()
    subscribe(app, carrier, driver, "https://push.example.com/abc", Device.new())
    assert subscription_count(app, carrier) == 1

    html = signed_in.get(f"/chauffeurs/{driver.id}/deactiveren").get_data(as_text=True)
    signed_in.post(f"/chauffeurs/{driver.id}/deactiveren", data={"csrf_token": csrf_from(html)})

    # The vehicle is free for the next driver, and no push reaches the old phone.
    assert subscription_count(app, carrier) == 0
    state = in_carrier(
        app,
        carrier.id,
        lambda: (
            sessions.get_session(carrier_id=carrier.id, session_id=uuid.UUID(session_id)).status
        ),
    )
    assert state == "ended"


def test_the_driver_page_leads_to_their_answers_and_vehicle_sessions(signed_in, driver):
    html = signed_in.get(f"/chauffeurs/{driver.id}").get_data(as_text=True)

    assert f'href="/antwoorden?chauffeur={driver.user_token}"' in html
    assert f'href="/voertuigen/sessies?chauffeur={driver.id}"' in html
