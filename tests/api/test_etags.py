"""Every ETag the API hands out is accepted back as If-Match: the bare version, the form a
compressed answer carries ("2:gzip"), a weak form, a list, and `*`; a stale or malformed one
is 412. The clients here ask for gzip as httpx, OkHttp and browsers do by default."""

from __future__ import annotations

import gzip
from datetime import timedelta

import orjson
import pytest
from conftest import backend_config
from factories import (
    Ref,
    bearer,
    create_api_key,
    create_carrier,
    create_driver,
    create_task,
    driver_token,
    in_carrier,
)
from hours.support import at, record_day

from portal import create_app
from portal.extensions import db

API = "/api/v1"
GZIP = {"Accept-Encoding": "gzip, deflate"}
# Long enough that the answer passes the compression threshold (1 KiB), as real ones do.
NOTES = "Laadklep rechts klemt; sleutel bij de portier. " * 25


def json_of(response):
    """The JSON of an answer, unpacked as the client's HTTP library does."""
    raw = response.get_data()
    if response.headers.get("Content-Encoding") == "gzip":
        raw = gzip.decompress(raw)
    return orjson.loads(raw)


def received_etag(response) -> str:
    """The ETag exactly as a gzip-accepting client receives it, checked to be the compressed
    form (so a test built on it fails when only the bare version is accepted)."""
    assert response.status_code in (200, 201), response.get_data()
    assert response.headers["Content-Encoding"] == "gzip"
    etag = response.headers["ETag"]
    assert etag.endswith(':gzip"'), etag
    return etag


# --- a task ----------------------------------------------------------------------------


@pytest.fixture
def task(app, carrier, driver):
    return create_task(app, carrier, driver, omschrijving=NOTES)


def patch_task(client, api_key, task, if_match: str | None, naam: str = "Mest laden Hengelo"):
    headers = {**bearer(api_key.key), **GZIP}
    if if_match is not None:
        headers["If-Match"] = if_match
    return client.patch(f"{API}/taken/{task.id}", json={"naam": naam}, headers=headers)


def test_a_tasks_etag_from_a_gzip_answer_is_accepted_as_if_match(client, api_key, task):
    etag = received_etag(
        client.get(f"{API}/taken/{task.id}", headers={**bearer(api_key.key), **GZIP})
    )
    assert etag == '"1:gzip"'

    changed = patch_task(client, api_key, task, etag)
    assert changed.status_code == 200, changed.get_data()
    assert changed.headers["ETag"] == '"2:gzip"'

    stale = patch_task(client, api_key, task, etag, naam="Mest laden Borne")
    assert stale.status_code == 412
    assert stale.mimetype == "application/problem+json"
    assert "changed meanwhile" in json_of(stale)["detail"]

    # The new ETag, as the PATCH answered it, is good for the next change.
    again = patch_task(client, api_key, task, changed.headers["ETag"], naam="Mest laden Borne")
    assert again.status_code == 200


@pytest.mark.parametrize(
    "if_match",
    [
        'W/"1"',  # a proxy that weakened the tag when it compressed the answer (nginx)
        'W/"1:gzip"',
        '"1:br"',  # Flask-Compress with brotli or zstd
        '"1:zstd"',
        '"1-gzip"',  # Apache's mod_deflate
        '"7", "1:gzip"',  # a list: any current one will do
        '"7",W/"1"',
        "*",
        '"1"',
    ],
)
def test_every_form_of_the_current_version_is_accepted(client, api_key, task, if_match):
    response = patch_task(client, api_key, task, if_match)
    assert response.status_code == 200, response.get_data()
    assert json_of(response)["naam"] == "Mest laden Hengelo"


@pytest.mark.parametrize(
    "if_match", ['"7"', '"7:gzip"', 'W/"7"', '"6", "7:gzip"', '"abc"', '""', "", '"1:gzip:x"']
)
def test_a_stale_or_malformed_if_match_is_412_and_changes_nothing(client, api_key, task, if_match):
    response = patch_task(client, api_key, task, if_match)
    assert response.status_code == 412, response.get_data()
    assert response.mimetype == "application/problem+json"
    shown = client.get(f"{API}/taken/{task.id}", headers=bearer(api_key.key))
    assert shown.get_json()["naam"] == "Mest laden Enter"
    assert shown.headers["ETag"] == '"1"'


def test_without_if_match_the_change_is_unconditional(client, api_key, task):
    assert patch_task(client, api_key, task, None).status_code == 200


# --- a vehicle -------------------------------------------------------------------------


def test_a_vehicles_etag_from_a_gzip_answer_is_accepted_as_if_match(app, client, carrier):
    from portal.fleet import service

    key = create_api_key(app, carrier)
    vehicle = in_carrier(
        app,
        carrier.id,
        lambda: service.create_vehicle(
            carrier_id=carrier.id, kenteken="BX-12-LP", opmerkingen=NOTES
        ),
        lambda v: Ref(v.id, carrier.id),
    )
    url = f"{API}/voertuigen/{vehicle.id}"
    etag = received_etag(client.get(url, headers={**bearer(key.key), **GZIP}))
    assert etag == '"1:gzip"'

    def patch(if_match: str, soort: str):
        return client.patch(
            url, json={"soort": soort}, headers={**bearer(key.key), **GZIP, "If-Match": if_match}
        )

    changed = patch(etag, "oplegger")
    assert changed.status_code == 200, changed.get_data()
    assert json_of(changed)["versie"] == 2
    assert patch(etag, "bestelbus").status_code == 412
    assert patch('W/"2"', "bestelbus").status_code == 200
    assert patch('"3", "4:gzip"', "vrachtwagen").status_code == 200
    assert patch("*", "oplegger").status_code == 200
    assert patch("3", "bestelbus").status_code == 412  # stale by now
    assert patch("not-a-tag", "bestelbus").status_code == 412


# --- a work day ------------------------------------------------------------------------


def test_a_work_days_etag_from_a_gzip_answer_is_accepted_as_if_match(app, client, carrier, driver):
    t0 = at("2026-11-16", "06:00")
    day = record_day(
        app,
        carrier,
        driver,
        t0,
        None,
        activities=[
            (kind, t0 + timedelta(minutes=30 * i), t0 + timedelta(minutes=30 * i + 30))
            for i, kind in enumerate(["laden", "rijden", "lossen", "wachten", "rijden", "laden"])
        ],
    )
    token = driver_token(client, driver)
    url = f"{API}/werkdagen/{day.id}"

    def patch(if_match: str | None, opmerking: str):
        headers = {**bearer(token), **GZIP}
        if if_match is not None:
            headers["If-Match"] = if_match
        return client.patch(url, json={"opmerking": opmerking}, headers=headers)

    # The work day's answer (with its activities) is what a gzip client holds.
    etag = received_etag(patch(None, "Veel file bij Deventer"))
    changed = patch(etag, "Veel file bij Deventer en Hengelo")
    assert changed.status_code == 200, changed.get_data()
    new = received_etag(changed)
    assert new != etag
    assert patch(etag, "stale").status_code == 412
    assert patch("W/" + new, "weak").status_code == 200
    assert patch('"1", "999"', "a list without the current one").status_code == 412
    assert patch("*", "any version").status_code == 200


# --- another encoding ------------------------------------------------------------------


@pytest.fixture
def brotli_app(backend, request, tmp_path):
    """The app compressing with brotli only."""
    app = create_app({**backend_config(backend, request, tmp_path), "COMPRESS_ALGORITHM": ["br"]})
    yield app
    with app.app_context():
        db.engine.dispose()


def test_a_brotli_answers_etag_is_accepted_back(brotli_app):
    """Whatever the compressor names its coding, the ETag it rewrote is accepted back."""
    app = brotli_app
    carrier = create_carrier(app)
    key = create_api_key(app, carrier)
    task = create_task(app, carrier, create_driver(app, carrier), omschrijving=NOTES)
    client = app.test_client()
    shown = client.get(
        f"{API}/taken/{task.id}", headers={**bearer(key.key), "Accept-Encoding": "br"}
    )
    assert shown.headers["Content-Encoding"] == "br"
    assert shown.headers["ETag"] == '"1:br"'
    changed = client.patch(
        f"{API}/taken/{task.id}",
        json={"naam": "Mest laden Hengelo"},
        headers={**bearer(key.key), "If-Match": shown.headers["ETag"]},
    )
    assert changed.status_code == 200, changed.get_data()


# --- a status move ---------------------------------------------------------------------


def test_a_status_move_honours_if_match_from_a_gzip_answer(client, api_key, task):
    etag = received_etag(
        client.get(f"{API}/taken/{task.id}", headers={**bearer(api_key.key), **GZIP})
    )

    def move(status: str, if_match: str):
        return client.patch(
            f"{API}/taken/{task.id}/status",
            json={"status": status},
            headers={**bearer(api_key.key), **GZIP, "If-Match": if_match},
        )

    moved = move("ontvangen", etag)
    assert moved.status_code == 200, moved.get_data()
    assert json_of(moved)["status"] == "ontvangen"
    stale = move("gestart", etag)
    assert stale.status_code == 412
    assert json_of(stale)["etag"] == moved.headers["ETag"].removesuffix(':gzip"') + '"'
    assert (
        json_of(client.get(f"{API}/taken/{task.id}", headers=bearer(api_key.key)))["status"]
        == "ontvangen"
    )
    assert move("gestart", moved.headers["ETag"]).status_code == 200


# --- If-None-Match ---------------------------------------------------------------------


@pytest.mark.parametrize("form", ["{tag}", "W/{tag}", '{bare}:br"', '"7", {tag}', "*"])
def test_a_get_with_a_current_if_none_match_is_304_compressed_or_not(client, api_key, task, form):
    url = f"{API}/taken/{task.id}"
    for encoding in ("gzip", "identity"):
        first = client.get(url, headers={**bearer(api_key.key), "Accept-Encoding": encoding})
        tag = first.headers["ETag"]
        wanted = form.format(tag=tag, bare=tag.split(":")[0].removesuffix('"'))
        again = client.get(
            url,
            headers={**bearer(api_key.key), "Accept-Encoding": encoding, "If-None-Match": wanted},
        )
        assert again.status_code == 304, (encoding, wanted)
        assert again.get_data() == b""
        # The ETag names the version the client holds, in the form it holds it.
        assert again.headers["ETag"] in (tag, wanted, '"1"')


def test_a_get_with_a_stale_if_none_match_answers_the_task(client, api_key, task):
    url = f"{API}/taken/{task.id}"
    again = client.get(url, headers={**bearer(api_key.key), "If-None-Match": '"7:gzip", W/"8"'})
    assert again.status_code == 200
    assert again.get_json()["id"] == str(task.id)
