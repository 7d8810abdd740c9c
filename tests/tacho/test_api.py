"""POST/GET /transporteurs/{transporteur_id}/tacho_files, GET /tacho_files/{tacho_file_id}
and the signed download they hand out."""

from __future__ import annotations

import io
import re
import time
import uuid
from datetime import UTC, date, datetime
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from factories import (
    bearer,
    create_api_key,
    create_driver,
    create_vehicle,
    driver_token,
    in_carrier,
)
from tacho.samples import card_file, overview_1, vu_file_1, vu_file_2

from portal.files import service as files
from portal.tacho import service

CARD = card_file(first_day=date(2026, 10, 1), days=28)
VU = vu_file_1(kenteken="BX12AB", first_day=date(2026, 11, 2), days=7)
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
FIELDS = {
    "id",
    "transporteur_id",
    "soort",
    "generatie",
    "bestandsnaam",
    "sha256",
    "grootte",
    "chauffeur_id",
    "vehicle_id",
    "periode_van",
    "periode_tot",
    "periode_uit_bestand",
    "kaartnummer",
    "houder",
    "vin",
    "kenteken",
    "geupload_op",
    "geupload_door",
}


def url_of(carrier) -> str:
    return f"/api/v1/transporteurs/{carrier.id}/tacho_files"


def post(client, carrier, key: str, data: bytes, name: str = "download.ddd", headers=None, **form):
    body = {"file": (io.BytesIO(data), name, "application/octet-stream"), **form}
    return client.post(
        url_of(carrier),
        data=body,
        content_type="multipart/form-data",
        headers={**bearer(key), **(headers or {})},
    )


def assert_problem(response, status: int, field: str | None = None) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    if field is not None:
        assert field in [e["field"] for e in body["errors"]], body
    return body


def fetch(client, url: str):
    return client.get(url, buffered=True)


def key_with(app, carrier, scopes: str) -> str:
    from portal.accounts.service import create_api_key as create

    return in_carrier(
        app, carrier.id, lambda: create(carrier_id=carrier.id, naam=scopes, scopes=scopes)[1]
    )


# --- upload ------------------------------------------------------------------------------


def test_an_integration_uploads_a_driver_card_download(client, carrier, api_key):
    response = post(client, carrier, api_key.key, CARD, "C_NB00000123456700.DDD")

    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert set(body) >= FIELDS
    assert body["nieuw"] is True
    assert body["soort"] == "bestuurderskaart"
    assert body["generatie"] == "1"
    assert body["kaartnummer"] == "NB00000123456700"
    assert body["houder"] == "JAN DE VRIES"
    assert body["periode_van"] == "2026-10-01T00:00:00.000Z"
    assert body["periode_tot"] == "2026-10-29T00:00:00.000Z"
    assert body["grootte"] == len(CARD)
    assert body["transporteur_id"] == str(carrier.id)
    assert body["geupload_door"] == "API key TMS"
    assert ISO.match(body["geupload_op"])
    assert response.headers["Location"] == f"/api/v1/tacho_files/{body['id']}"


def test_the_same_file_again_answers_200_with_the_existing_record(client, carrier, api_key):
    first = post(client, carrier, api_key.key, CARD, "eerste.ddd").get_json()
    again = post(client, carrier, api_key.key, CARD, "tweede.ddd")

    assert again.status_code == 200
    body = again.get_json()
    assert body["id"] == first["id"]
    assert body["nieuw"] is False
    assert "already uploaded" in body["melding"]
    assert body["bestandsnaam"] == "eerste.ddd"
    listed = client.get(url_of(carrier), headers=bearer(api_key.key))
    assert listed.headers["X-Total-Count"] == "1"


@pytest.mark.parametrize(
    ("data", "name", "soort", "generatie"),
    [
        (CARD, "voertuig.V1B", "bestuurderskaart", "1"),
        (VU, "kaart.C1B", "voertuigeenheid", "1"),
        (vu_file_2(), "download.TGD", "voertuigeenheid", "2"),
        (vu_file_2(version_2=True), "x.esm", "voertuigeenheid", "2.2"),
        (card_file(second_generation=True), "geen-extensie", "bestuurderskaart", "2"),
    ],
)
def test_the_kind_is_read_from_the_content(client, carrier, api_key, data, name, soort, generatie):
    body = post(client, carrier, api_key.key, data, name).get_json()
    assert (body["soort"], body["generatie"]) == (soort, generatie)


def test_a_vehicle_unit_answers_its_vin_registration_and_days(app, client, carrier, api_key):
    vehicle = create_vehicle(app, carrier, "BX-12-AB")
    body = post(client, carrier, api_key.key, VU).get_json()
    assert body["vin"] == "XLRTEH4300G123456"
    assert body["kenteken"] == "BX-12-AB"
    assert body["vehicle_id"] == str(vehicle.id)  # the carrier's vehicle with that plate
    assert (body["periode_van"], body["periode_tot"]) == (
        "2026-11-02T00:00:00.000Z",
        "2026-11-09T00:00:00.000Z",
    )


@pytest.mark.parametrize(
    "data",
    [b"\x89PNG\r\n\x1a\n" + bytes(40), b"%PDF-1.4\n%%EOF\n", b"Jan;Piet\n", CARD[:100]],
    ids=["png", "pdf", "csv", "broken-card"],
)
def test_other_content_is_refused_at_the_file(client, carrier, api_key, data):
    body = assert_problem(post(client, carrier, api_key.key, data, "echt.DDD"), 422, "file")
    assert "tachograph" in body["errors"][0]["message"] or "card" in body["errors"][0]["message"]
    listed = client.get(url_of(carrier), headers=bearer(api_key.key))
    assert listed.get_json() == []


def test_a_file_over_the_limit_is_refused(app, client, carrier, api_key):
    app.config["FILE_MAX_BYTES"] = 1024
    body = assert_problem(post(client, carrier, api_key.key, CARD), 422, "file")
    assert "larger than 1024 bytes" in body["errors"][0]["message"]


def test_a_missing_file_part_is_422(client, carrier, api_key):
    response = client.post(
        url_of(carrier),
        data={"user_token": "x"},
        content_type="multipart/form-data",
        headers=bearer(api_key.key),
    )
    assert_problem(response, 422, "file")


def test_a_body_that_is_not_multipart_is_415(client, carrier, api_key):
    response = client.post(url_of(carrier), json={"file": "x"}, headers=bearer(api_key.key))
    assert_problem(response, 415)


def test_the_upload_links_a_driver_by_user_token_and_a_vehicle(app, client, carrier, api_key):
    driver = create_driver(app, carrier, "Henk Jansen")
    vehicle = create_vehicle(app, carrier)
    body = post(
        client,
        carrier,
        api_key.key,
        CARD,
        user_token=driver.user_token,
        vehicle_id=str(vehicle.id),
    ).get_json()
    assert (body["chauffeur_id"], body["vehicle_id"]) == (str(driver.id), str(vehicle.id))


@pytest.mark.parametrize(
    ("form", "field"),
    [
        ({"user_token": "onbekend"}, "user_token"),
        ({"user_token": "met spatie\x00"}, "user_token"),
        ({"vehicle_id": "geen-uuid"}, "vehicle_id"),
        ({"vehicle_id": str(uuid.uuid4())}, "vehicle_id"),
    ],
)
def test_an_unknown_link_is_refused_at_its_field(client, carrier, api_key, form, field):
    assert_problem(post(client, carrier, api_key.key, CARD, **form), 422, field)


def test_another_carriers_driver_or_vehicle_is_not_linked(
    app, client, carrier, other_carrier, api_key
):
    driver = create_driver(app, other_carrier)
    vehicle = create_vehicle(app, other_carrier)
    response = post(
        client, carrier, api_key.key, CARD, user_token=driver.user_token, vehicle_id=str(vehicle.id)
    )
    body = assert_problem(response, 422)
    assert {e["field"] for e in body["errors"]} == {"user_token"}
    response = post(client, carrier, api_key.key, CARD, vehicle_id=str(vehicle.id))
    assert_problem(response, 422, "vehicle_id")


def test_a_retried_upload_with_an_idempotency_key_answers_the_first_response(
    client, carrier, api_key
):
    headers = {"Idempotency-Key": "tacho-upload-1"}
    first = post(client, carrier, api_key.key, CARD, headers=headers)
    again = post(client, carrier, api_key.key, CARD, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    other = post(client, carrier, api_key.key, VU, headers=headers)
    assert_problem(other, 422)  # the same key with another body


# --- who may -------------------------------------------------------------------------------


def test_another_carrier_in_the_path_is_404(client, carrier, other_carrier, api_key):
    assert_problem(post(client, other_carrier, api_key.key, CARD), 404)
    assert_problem(client.get(url_of(other_carrier), headers=bearer(api_key.key)), 404)


def test_a_driver_may_not_use_the_tachograph_operations(client, carrier, driver, api_key):
    token = driver_token(client, driver)
    file_id = post(client, carrier, api_key.key, CARD).get_json()["id"]
    assert_problem(post(client, carrier, token, VU), 403)
    assert_problem(client.get(url_of(carrier), headers=bearer(token)), 403)
    assert_problem(client.get(f"/api/v1/tacho_files/{file_id}", headers=bearer(token)), 403)


def test_the_scopes_tacho_read_and_tacho_write(app, client, carrier, api_key):
    reader = key_with(app, carrier, "tacho:read")
    writer = key_with(app, carrier, "tacho:write")
    neither = key_with(app, carrier, "tasks:read tasks:write")
    assert_problem(post(client, carrier, reader, CARD), 403)
    assert_problem(post(client, carrier, neither, CARD), 403)
    file_id = post(client, carrier, writer, CARD).get_json()["id"]
    for key in (reader, writer):
        assert client.get(url_of(carrier), headers=bearer(key)).status_code == 200
        assert client.get(f"/api/v1/tacho_files/{file_id}", headers=bearer(key)).status_code == 200
    assert_problem(client.get(url_of(carrier), headers=bearer(neither)), 403)


def test_without_a_bearer_token_it_is_401(client, carrier):
    assert client.get(url_of(carrier)).status_code == 401
    assert client.post(url_of(carrier)).status_code == 401


# --- the list --------------------------------------------------------------------------------


def test_the_list_filters_and_pages(app, client, carrier, api_key):
    driver = create_driver(app, carrier)
    vehicle = create_vehicle(app, carrier)
    key = api_key.key
    card = post(client, carrier, key, CARD, user_token=driver.user_token).get_json()
    vu = post(client, carrier, key, VU, vehicle_id=str(vehicle.id)).get_json()
    other = post(client, carrier, key, card_file(card_number="NB00000777777700")).get_json()

    def ids(**query):
        response = client.get(url_of(carrier), query_string=query, headers=bearer(key))
        assert response.status_code == 200, response.get_json()
        return [item["id"] for item in response.get_json()], int(response.headers["X-Total-Count"])

    assert ids() == ([other["id"], vu["id"], card["id"]], 3)  # newest upload first
    assert ids(chauffeur=driver.user_token) == ([card["id"]], 1)
    assert ids(vehicle_id=str(vehicle.id)) == ([vu["id"]], 1)
    assert ids(soort="voertuigeenheid") == ([vu["id"]], 1)
    assert ids(van="2026-11-03", tot="2026-11-05") == ([vu["id"]], 1)
    assert ids(van="2026-10-10", tot="2026-10-12") == ([other["id"], card["id"]], 2)
    assert ids(limit=1, offset=1) == ([vu["id"]], 3)


@pytest.mark.parametrize(
    "query",
    [{"chauffeur": "niemand"}, {"soort": "onbekend"}, {"van": "gisteren"}, {"limit": "0"}],
)
def test_bad_filters_are_422(client, carrier, api_key, query):
    response = client.get(url_of(carrier), query_string=query, headers=bearer(api_key.key))
    assert_problem(response, 422)


def test_the_list_of_many_files_takes_a_fixed_number_of_queries(
    app, client, carrier, api_key, count_queries
):
    for n in range(8):
        post(client, carrier, api_key.key, card_file(days=3 + n))
    with count_queries() as counted:
        response = client.get(url_of(carrier), headers=bearer(api_key.key))
    assert len(response.get_json()) == 8
    few = counted.count
    post(client, carrier, api_key.key, card_file(days=30))
    with count_queries() as counted:
        client.get(url_of(carrier), headers=bearer(api_key.key))
    assert counted.count == few


# --- details and the signed download -----------------------------------------------------------


def link_parts(url: str) -> tuple[str, dict]:
    parts = urlsplit(url)
    return parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()}


def test_details_carry_a_signed_url_of_five_minutes_that_gives_the_bytes(client, carrier, api_key):
    created = post(client, carrier, api_key.key, CARD).get_json()
    response = client.get(f"/api/v1/tacho_files/{created['id']}", headers=bearer(api_key.key))

    assert response.status_code == 200
    body = response.get_json()
    assert set(body) >= FIELDS
    expires = datetime.fromisoformat(body["url_expires_at"].replace("Z", "+00:00"))
    assert 290 <= (expires - datetime.now(UTC)).total_seconds() <= 300
    assert body["url"].startswith("http://localhost/bestanden/")  # absolute: not below /api/v1
    download = fetch(client, body["url"])  # no Authorization header
    assert download.status_code == 200
    assert download.data == CARD


@pytest.mark.parametrize(("geldig", "status"), [(60, 200), (3600, 200), (59, 422), (3601, 422)])
def test_geldig_sets_the_urls_lifetime_within_bounds(client, carrier, api_key, geldig, status):
    created = post(client, carrier, api_key.key, CARD).get_json()
    response = client.get(
        f"/api/v1/tacho_files/{created['id']}?geldig={geldig}", headers=bearer(api_key.key)
    )
    assert response.status_code == status
    if status == 200:
        expires = datetime.fromisoformat(response.get_json()["url_expires_at"][:-1] + "+00:00")
        assert geldig - 10 <= (expires - datetime.now(UTC)).total_seconds() <= geldig


def test_an_altered_link_is_403(client, carrier, api_key):
    created = post(client, carrier, api_key.key, CARD).get_json()
    url = client.get(f"/api/v1/tacho_files/{created['id']}", headers=bearer(api_key.key))
    path, query = link_parts(url.get_json()["url"])
    flipped = ("A" if query["sig"][0] != "A" else "B") + query["sig"][1:]
    for changed in (
        {**query, "sig": flipped},
        {**query, "exp": str(int(query["exp"]) + 86400)},
        {"exp": query["exp"]},
    ):
        assert fetch(client, f"{path}?{urlencode(changed)}").status_code == 403, changed
    other_file = path.rsplit("/", 1)[0] + f"/{uuid.uuid4()}"
    assert fetch(client, f"{other_file}?{urlencode(query)}").status_code == 403


def test_an_expired_link_is_403(app, client, carrier, api_key):
    created = post(client, carrier, api_key.key, CARD).get_json()

    def expired():
        row = service.get_file(carrier_id=carrier.id, tacho_file_id=uuid.UUID(created["id"]))
        return service.signed_link(carrier_id=carrier.id, tacho_file=row, seconds=-1).url

    assert fetch(client, in_carrier(app, carrier.id, expired)).status_code == 403


def test_another_carriers_file_is_404(app, client, carrier, other_carrier, api_key):
    their_key = create_api_key(app, other_carrier)
    theirs = post(client, other_carrier, their_key.key, CARD).get_json()
    assert_problem(
        client.get(f"/api/v1/tacho_files/{theirs['id']}", headers=bearer(api_key.key)), 404
    )
    assert_problem(
        client.get(f"/api/v1/tacho_files/{uuid.uuid4()}", headers=bearer(api_key.key)), 404
    )

    # A correctly signed link naming our carrier and their file opens nothing.
    bestand_id = in_carrier(
        app,
        other_carrier.id,
        lambda: (
            service.get_file(
                carrier_id=other_carrier.id, tacho_file_id=uuid.UUID(theirs["id"])
            ).bestand_id
        ),
    )
    exp = int(time.time()) + 60
    with app.app_context():
        sig = files._signature(carrier.id, bestand_id, exp)
    forged = f"/bestanden/{carrier.id}/{bestand_id}?{urlencode({'exp': exp, 'sig': sig})}"
    assert fetch(client, forged).status_code == 404


def test_the_bytes_are_not_reachable_through_the_files_api(app, client, carrier, api_key):
    created = post(client, carrier, api_key.key, CARD).get_json()
    bestand_id = in_carrier(
        app,
        carrier.id,
        lambda: (
            service.get_file(
                carrier_id=carrier.id, tacho_file_id=uuid.UUID(created["id"])
            ).bestand_id
        ),
    )
    response = client.get(f"/api/v1/bestanden/{bestand_id}", headers=bearer(api_key.key))
    assert_problem(response, 404)
    refused = client.post(
        "/api/v1/bestanden",
        data={"soort": "tacho", "file": (io.BytesIO(CARD), "kaart.ddd")},
        content_type="multipart/form-data",
        headers=bearer(api_key.key),
    )
    assert_problem(refused, 422, "soort")


def test_an_overview_without_days_has_no_period(client, carrier, api_key):
    data = overview_1("WDB9634031L123456", "45BLK6", date(2026, 12, 1))
    body = post(client, carrier, api_key.key, data).get_json()
    assert body["periode_van"] is None and body["periode_tot"] is None
    assert body["periode_uit_bestand"] is False
    assert body["kenteken"] == "45-BLK-6"
