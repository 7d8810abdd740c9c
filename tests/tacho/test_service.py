"""The tacho service: recognised by content, stored once, linked, listed, handed out."""

from __future__ import annotations

import hashlib
import io
import time
import uuid
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from factories import create_driver, create_vehicle, in_carrier
from sqlalchemy import func, select
from tacho.samples import card_file, overview_1, vu_file_1, vu_file_2

from portal.audit.service import SYSTEM
from portal.errors import Conflict, Forbidden, NotFound, ValidationFailed
from portal.extensions import db
from portal.files import service as files
from portal.files.models import StoredFile
from portal.tacho import service
from portal.tacho.intake import uploads
from portal.tacho.models import TachoFile

CARD = card_file(first_day=date(2026, 10, 1), days=28)
VU = vu_file_1(kenteken="BX12AB", first_day=date(2026, 11, 2), days=7)
AMSTERDAM = ZoneInfo("Europe/Amsterdam")


def stored_bytes(app) -> list[Path]:
    folder = Path(app.config["INSTANCE_PATH"]) / "bestanden"
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def fields(app, carrier, ref, *names):
    """Some fields of a stored file, read in its carrier's scope."""
    return in_carrier(
        app,
        carrier.id,
        lambda: service.get_file(carrier_id=carrier.id, tacho_file_id=ref.id),
        lambda row: tuple(getattr(row, name) for name in names),
    )


def rows(app, carrier, model):
    return in_carrier(
        app,
        carrier.id,
        lambda: db.session.scalar(
            select(func.count()).select_from(model).where(model.transporteur_id == carrier.id)
        ),
    )


def test_a_card_download_is_stored_with_what_it_says(app, carrier, store_tacho):
    ref, nieuw = store_tacho(carrier, CARD, "C_20261029_1200_J_DE_VRIES_NB00000123456700.DDD")
    assert nieuw

    def check():
        row = service.get_file(carrier_id=carrier.id, tacho_file_id=ref.id)
        stored = files.get_file(carrier_id=carrier.id, file_id=row.bestand_id)
        assert row.soort == "bestuurderskaart"
        assert row.generatie == "1"
        assert row.bestandsnaam == "C_20261029_1200_J_DE_VRIES_NB00000123456700.DDD"
        assert row.sha256 == hashlib.sha256(CARD).hexdigest() == stored.sha256
        assert row.grootte == len(CARD) == stored.grootte
        assert (row.kaartnummer, row.houder) == ("NB00000123456700", "JAN DE VRIES")
        assert row.periode_van == datetime(2026, 10, 1, tzinfo=UTC)
        assert row.periode_tot == datetime(2026, 10, 29, tzinfo=UTC)
        assert row.periode_uit_bestand
        assert row.geupload_door == "Els Vos"
        assert stored.soort == "tacho"
        assert stored.content_type == "application/octet-stream"
        _row, stream = files.open_signed(
            carrier_id=carrier.id,
            file_id=stored.id,
            exp=int(time.time()) + 60,
            sig=files._signature(carrier.id, stored.id, int(time.time()) + 60),
        )
        with stream:
            assert stream.read() == CARD
        (entry,) = service.history(carrier_id=carrier.id, tacho_file_id=ref.id)
        assert entry.action == "uploaded"

    in_carrier(app, carrier.id, check)


def test_the_same_file_again_answers_the_existing_record_and_is_stored_once(
    app, carrier, store_tacho
):
    first, nieuw = store_tacho(carrier, CARD, "kaart.ddd")
    again, nieuw_again = store_tacho(carrier, CARD, "kaart-opnieuw.DDD")

    assert nieuw and not nieuw_again
    assert again.id == first.id
    assert again.naam == "kaart.ddd"  # the first upload's record, unchanged
    assert rows(app, carrier, TachoFile) == 1
    assert rows(app, carrier, StoredFile) == 1
    assert len(stored_bytes(app)) == 1


def test_the_same_file_is_another_carriers_own_record(app, carrier, other_carrier, store_tacho):
    mine, _ = store_tacho(carrier, CARD)
    theirs, nieuw = store_tacho(other_carrier, CARD)
    assert nieuw and theirs.id != mine.id
    assert rows(app, other_carrier, TachoFile) == 1


@pytest.mark.parametrize(
    ("data", "name", "soort"),
    [
        (CARD, "foto.jpg", "bestuurderskaart"),
        (VU, "C_kaart_van_jan.C1B", "voertuigeenheid"),
        (vu_file_2(), "download", "voertuigeenheid"),
    ],
)
def test_the_kind_comes_from_the_content_not_the_name(app, carrier, store_tacho, data, name, soort):
    ref, _ = store_tacho(carrier, data, name)
    assert fields(app, carrier, ref, "soort") == (soort,)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\x89PNG\r\n\x1a\n" + bytes(64), "unknown"),
        (b"", "empty"),
        (CARD[:-20], "card_structure"),
        (VU[:500], "vu_structure"),
        (card_file(card_type=4), "other_card"),
    ],
    ids=["png", "empty", "broken-card", "broken-vu", "company-card"],
)
def test_anything_else_is_refused_and_leaves_nothing(app, carrier, store_tacho, data, reason):
    with pytest.raises(service.Refused) as caught:
        store_tacho(carrier, data, "bestand.ddd")
    assert caught.value.reason == reason
    assert caught.value.errors[0]["field"] == "file"
    assert rows(app, carrier, TachoFile) == 0
    assert rows(app, carrier, StoredFile) == 0
    assert stored_bytes(app) == []


def test_a_file_over_the_limit_is_refused(app, carrier, store_tacho):
    app.config["FILE_MAX_BYTES"] = 1000
    with pytest.raises(service.Refused) as caught:
        store_tacho(carrier, CARD)
    assert caught.value.reason == "too_large"
    assert caught.value.params["limit"] == 1000


def test_the_limit_is_ten_megabytes_at_most(app):
    app.config["FILE_MAX_BYTES"] = 50 * 1024 * 1024
    with app.app_context():
        assert service.max_bytes() == 10 * 1024 * 1024


def test_a_given_driver_and_vehicle_are_linked(app, carrier, store_tacho):
    driver = create_driver(app, carrier, "Piet Bakker")
    vehicle = create_vehicle(app, carrier, "VZH-56-E")
    ref, _ = store_tacho(carrier, CARD, driver_id=driver.id, vehicle_id=vehicle.id)
    assert fields(app, carrier, ref, "chauffeur_id", "vehicle_id") == (driver.id, vehicle.id)


def test_another_carriers_driver_or_vehicle_is_refused_at_the_field(
    app, carrier, other_carrier, store_tacho
):
    driver = create_driver(app, other_carrier)
    vehicle = create_vehicle(app, other_carrier)
    with pytest.raises(ValidationFailed) as caught:
        store_tacho(carrier, CARD, driver_id=driver.id, vehicle_id=vehicle.id)
    assert {e["field"] for e in caught.value.errors} == {"chauffeur", "vehicle_id"}
    assert rows(app, carrier, TachoFile) == 0


def test_a_vehicle_unit_follows_the_vehicle_with_its_registration(app, carrier, store_tacho):
    vehicle = create_vehicle(app, carrier, "BX-12-AB")
    ref, _ = store_tacho(carrier, VU)
    assert fields(app, carrier, ref, "vehicle_id", "kenteken", "vin") == (
        vehicle.id,
        "BX-12-AB",  # a Dutch plate as painted
        "XLRTEH4300G123456",
    )


def test_a_card_follows_the_driver_of_an_earlier_download_of_the_same_card(
    app, carrier, store_tacho
):
    driver = create_driver(app, carrier, "Jan de Vries")
    store_tacho(carrier, CARD, driver_id=driver.id)
    later, _ = store_tacho(carrier, card_file(first_day=date(2026, 10, 29), days=28))
    other_card, _ = store_tacho(carrier, card_file(card_number="NB00000999999900"))

    assert fields(app, carrier, later, "chauffeur_id") == (driver.id,)
    assert fields(app, carrier, other_card, "chauffeur_id") == (None,)


def test_two_uploads_of_the_same_file_at_once_store_one(app, carrier, store_tacho, monkeypatch):
    first, _ = store_tacho(carrier, CARD)
    real = uploads._by_sha
    calls = []

    def blind_once(carrier_id, sha256):
        # The first look finds nothing, as when another request inserts meanwhile.
        calls.append(sha256)
        return None if len(calls) == 1 else real(carrier_id, sha256)

    monkeypatch.setattr(uploads, "_by_sha", blind_once)
    again, nieuw = store_tacho(carrier, CARD)
    assert not nieuw and again.id == first.id
    assert rows(app, carrier, TachoFile) == 1
    assert rows(app, carrier, StoredFile) == 1
    assert len(stored_bytes(app)) == 1


# --- the list ----------------------------------------------------------------------------


def _list(app, carrier, **filters):
    def read():
        page = service.list_files(carrier_id=carrier.id, filters=service.TachoFilters(**filters))
        return [row.id for row in page.files], page.total

    return in_carrier(app, carrier.id, read)


def _at(app, carrier, ref, moment):
    def move():
        row = service.get_file(carrier_id=carrier.id, tacho_file_id=ref.id)
        row.geupload_op = moment

    in_carrier(app, carrier.id, move)


def test_the_list_filters_by_driver_vehicle_kind_and_period(app, carrier, store_tacho):
    jan = create_driver(app, carrier, "Jan")
    truck = create_vehicle(app, carrier, "BX-34-CD")
    card, _ = store_tacho(carrier, CARD, driver_id=jan.id)  # 1-28 Oct
    vu, _ = store_tacho(carrier, VU, vehicle_id=truck.id)  # 2-8 Nov
    bare, _ = store_tacho(carrier, overview_1("WDB9634031L123456", "45BLK6", date(2026, 12, 1)))
    _at(app, carrier, bare, datetime(2026, 12, 1, 9, tzinfo=UTC))  # no period: the upload

    def day(d):
        return datetime.combine(d, datetime.min.time(), AMSTERDAM).astimezone(UTC)

    assert _list(app, carrier, chauffeur_id=jan.id)[0] == [card.id]
    assert _list(app, carrier, vehicle_id=truck.id)[0] == [vu.id]
    assert set(_list(app, carrier, soort="voertuigeenheid")[0]) == {vu.id, bare.id}
    assert _list(app, carrier, van=day(date(2026, 10, 20)), tot=day(date(2026, 10, 21)))[0] == [
        card.id
    ]
    # The card's last (UTC) day is 28 October: it ends 29 October 01:00 in Amsterdam, so
    # from the 30th on it is out; the VU starts 2 November 00:00 UTC, after 1 November ends.
    assert _list(app, carrier, van=day(date(2026, 10, 29)))[0][-1] == card.id
    assert _list(app, carrier, van=day(date(2026, 10, 30)), tot=day(date(2026, 11, 2)))[0] == []
    assert _list(app, carrier, van=day(date(2026, 11, 8)))[0] == [bare.id, vu.id]
    assert _list(app, carrier, van=day(date(2026, 12, 1)), tot=day(date(2026, 12, 2)))[0] == [
        bare.id
    ]


def test_the_list_is_newest_upload_first_and_paged(app, carrier, store_tacho):
    refs = []
    for n in range(5):
        ref, _ = store_tacho(carrier, card_file(first_day=date(2026, 1, 1) + timedelta(days=n)))
        _at(app, carrier, ref, datetime(2026, 3, 1, tzinfo=UTC) + timedelta(hours=n))
        refs.append(ref.id)
    newest_first = list(reversed(refs))
    assert _list(app, carrier) == (newest_first, 5)
    assert _list(app, carrier, limit=2, offset=2) == (newest_first[2:4], 5)


def test_the_list_takes_two_queries_however_many_files(app, carrier, store_tacho, count_queries):
    for n in range(6):
        store_tacho(carrier, card_file(days=2 + n))
    with count_queries() as counted:
        assert _list(app, carrier)[1] == 6
    assert counted.count == 2, counted.statements


def test_another_carriers_file_is_not_found(app, carrier, other_carrier, store_tacho):
    ref, _ = store_tacho(other_carrier, CARD)
    with pytest.raises(NotFound):
        in_carrier(
            app, carrier.id, lambda: service.get_file(carrier_id=carrier.id, tacho_file_id=ref.id)
        )
    assert _list(app, carrier) == ([], 0)


# --- links, period, signed links ---------------------------------------------------------


def test_linking_and_unlinking_is_kept_in_the_history(app, carrier, store_tacho):
    driver = create_driver(app, carrier)
    vehicle = create_vehicle(app, carrier)
    ref, _ = store_tacho(carrier, CARD)

    def act():
        service.link(
            carrier_id=carrier.id,
            tacho_file_id=ref.id,
            actor=SYSTEM,
            driver_id=driver.id,
            vehicle_id=vehicle.id,
        )
        service.link(carrier_id=carrier.id, tacho_file_id=ref.id, actor=SYSTEM, driver_id=None)
        row = service.get_file(carrier_id=carrier.id, tacho_file_id=ref.id)
        actions = [e.action for e in service.history(carrier_id=carrier.id, tacho_file_id=ref.id)]
        return row.chauffeur_id, row.vehicle_id, actions

    assert in_carrier(app, carrier.id, act) == (None, vehicle.id, ["uploaded", "linked", "linked"])


def test_linking_to_another_carriers_driver_is_refused(app, carrier, other_carrier, store_tacho):
    foreign = create_driver(app, other_carrier)
    ref, _ = store_tacho(carrier, CARD)
    with pytest.raises(ValidationFailed):
        in_carrier(
            app,
            carrier.id,
            lambda: service.link(
                carrier_id=carrier.id, tacho_file_id=ref.id, actor=SYSTEM, driver_id=foreign.id
            ),
        )


def test_a_file_without_its_own_period_gets_one_from_a_planner(app, carrier, store_tacho):
    ref, _ = store_tacho(carrier, overview_1("WDB9634031L123456", "45BLK6", date(2026, 12, 1)))

    def give():
        row = service.set_period(
            carrier_id=carrier.id,
            tacho_file_id=ref.id,
            van=date(2026, 11, 1),
            tot=date(2026, 11, 30),
            actor=SYSTEM,
        )
        return row.periode_van, row.periode_tot, row.periode_uit_bestand

    van, tot, from_file = in_carrier(app, carrier.id, give)
    assert van == datetime(2026, 11, 1, tzinfo=UTC)  # days are UTC days, as on the file
    assert tot == datetime(2026, 12, 1, tzinfo=UTC)  # the end of 30 November
    assert not from_file


@pytest.mark.parametrize(
    ("van", "tot", "field"),
    [
        (date(2026, 11, 2), None, "periode_tot"),
        (date(2026, 11, 2), date(2026, 11, 1), "periode_tot"),
    ],
)
def test_half_a_period_or_one_that_ends_first_is_refused(
    app, carrier, store_tacho, van, tot, field
):
    ref, _ = store_tacho(carrier, overview_1("WDB9634031L123456", "45BLK6", date(2026, 12, 1)))
    with pytest.raises(ValidationFailed) as caught:
        in_carrier(
            app,
            carrier.id,
            lambda: service.set_period(
                carrier_id=carrier.id,
                tacho_file_id=ref.id,
                van=van,
                tot=tot,
                actor=SYSTEM,
            ),
        )
    assert caught.value.errors[0]["field"] == field


def test_the_period_a_file_states_is_not_overwritten(app, carrier, store_tacho):
    ref, _ = store_tacho(carrier, CARD)
    with pytest.raises(Conflict):
        in_carrier(
            app,
            carrier.id,
            lambda: service.set_period(
                carrier_id=carrier.id,
                tacho_file_id=ref.id,
                van=date(2026, 1, 1),
                tot=date(2026, 1, 2),
                actor=SYSTEM,
            ),
        )


def _open(app, carrier, url: str):
    from urllib.parse import parse_qs, urlsplit

    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    _, carrier_part, file_part = parts.path.rsplit("/", 2)
    with app.app_context():
        _row, stream = files.open_signed(
            carrier_id=uuid.UUID(carrier_part),
            file_id=uuid.UUID(file_part),
            exp=int(query["exp"]),
            sig=query["sig"],
        )
        with stream:
            return stream.read()


def test_a_shared_link_opens_the_bytes_until_it_expires(app, carrier, store_tacho):
    ref, _ = store_tacho(carrier, CARD)
    link = in_carrier(
        app,
        carrier.id,
        lambda: service.share_link(
            carrier_id=carrier.id, tacho_file_id=ref.id, seconds=3600, actor=SYSTEM
        ),
    )
    assert 3590 <= (link.expires_at - datetime.now(UTC)).total_seconds() <= 3600
    assert _open(app, carrier, link.url) == CARD
    actions = in_carrier(
        app,
        carrier.id,
        lambda: [e.action for e in service.history(carrier_id=carrier.id, tacho_file_id=ref.id)],
    )
    assert actions == ["uploaded", "link_created"]

    expired = in_carrier(
        app,
        carrier.id,
        lambda: service.signed_link(
            carrier_id=carrier.id,
            tacho_file=service.get_file(carrier_id=carrier.id, tacho_file_id=ref.id),
            seconds=-1,
        ),
    )
    with pytest.raises(Forbidden):
        _open(app, carrier, expired.url)
    with pytest.raises(Forbidden):
        _open(app, carrier, link.url.replace("exp=", "exp=1"))


def test_only_the_offered_validities_make_a_shared_link(app, carrier, store_tacho):
    ref, _ = store_tacho(carrier, CARD)
    with pytest.raises(ValidationFailed):
        in_carrier(
            app,
            carrier.id,
            lambda: service.share_link(
                carrier_id=carrier.id, tacho_file_id=ref.id, seconds=999_999, actor=SYSTEM
            ),
        )


def test_post_bestanden_can_not_store_a_tachograph_file(app, carrier):
    with pytest.raises(ValidationFailed):
        in_carrier(
            app,
            carrier.id,
            lambda: files.store_file(
                carrier_id=carrier.id,
                stream=io.BytesIO(CARD),
                filename="kaart.ddd",
                soort="tacho",
                actor=SYSTEM,
            ),
        )
