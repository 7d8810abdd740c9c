"""The board's query string read as a BoardQuery: view, day, range and filters, and how a
bad value falls back (it filters nothing; the form holds the error for the page)."""

from __future__ import annotations

import uuid
from datetime import date
from types import SimpleNamespace

import pytest
from conftest import base_config
from werkzeug.datastructures import MultiDict

from portal import create_app
from portal.tasks.pages.board import FILTER_NAMES, STATUS_WEEK, BoardQuery
from portal.tasks.pages.forms import UNASSIGNED

TODAY = date(2031, 3, 12)
DRIVER = SimpleNamespace(id=uuid.uuid4(), naam="Jan de Vries")
VEHICLE = SimpleNamespace(id=uuid.uuid4(), kenteken="BX-12-AB", label="BX-12-AB")


@pytest.fixture(scope="module")
def form_app(tmp_path_factory):
    """An app for the form's context only: BoardQuery reads no table."""
    folder = tmp_path_factory.mktemp("board-query")
    return create_app({**base_config(folder), "SQLALCHEMY_DATABASE_URI": "sqlite://"})


@pytest.fixture
def read(form_app):
    def read(query: str = "", **pairs) -> BoardQuery:
        args = MultiDict([*(p.split("=", 1) for p in query.split("&") if p), *pairs.items()])
        with form_app.test_request_context():
            return BoardQuery.from_args(args, drivers=[DRIVER], vehicles=[VEHICLE], today=TODAY)

    return read


def test_no_query_is_todays_day_view_without_filters(read):
    query = read()
    assert (query.view, query.day, query.van, query.tot) == ("dag", TODAY, TODAY, TODAY)
    assert (query.chauffeur, query.vehicle, query.type, query.status, query.search) == (None,) * 5
    assert query.args == {}
    assert query.form.datum.data == TODAY  # the input shows the day in use
    filters = query.filters(limit=10)
    assert (filters.van, filters.tot, filters.limit) == (TODAY, TODAY, 10)
    assert filters.chauffeur_id is filters.vehicle_id is filters.search is None
    assert (filters.types, filters.statuses, filters.unassigned) == ((), (), False)


def test_another_day_stays_in_the_url_and_today_does_not(read):
    query = read("datum=2031-03-15")
    assert query.day == query.van == query.tot == date(2031, 3, 15)
    assert query.args == {"datum": "2031-03-15"}
    assert read(f"datum={TODAY.isoformat()}").args == {}


@pytest.mark.parametrize(
    "datum", ["2024-02-30", "gisteren", "0001-01-01", "9999-12-31", "2031-3-15x"]
)
def test_a_bad_day_falls_back_to_today_with_the_error_at_its_field(read, datum):
    query = read(datum=datum)
    assert query.day == TODAY and query.args == {}
    assert query.form.datum.errors


def test_the_status_view_shows_a_week_from_the_day_by_default(read):
    query = read("weergave=status&datum=2031-03-10")
    assert query.view == "status"
    assert (query.van, query.tot) == (date(2031, 3, 10), date(2031, 3, 10 + STATUS_WEEK - 1))
    assert query.args == {"weergave": "status", "datum": "2031-03-10"}
    assert (query.form.van.data, query.form.tot.data) == (query.van, query.tot)


def test_the_status_view_takes_a_range_and_an_empty_one_means_every_date(read):
    ranged = read("weergave=status&van=2031-03-10&tot=2031-03-31")
    assert (ranged.van, ranged.tot) == (date(2031, 3, 10), date(2031, 3, 31))
    assert ranged.args == {"weergave": "status", "van": "2031-03-10", "tot": "2031-03-31"}
    everything = read("weergave=status&van=&tot=")
    assert everything.van is everything.tot is None
    assert everything.args == {"weergave": "status", "van": "", "tot": ""}
    assert (everything.filters(limit=1).van, everything.filters(limit=1).tot) == (None, None)


def test_a_range_that_ends_before_it_starts_has_no_end(read):
    query = read("weergave=status&van=2030-01-10&tot=2030-01-01")
    assert (query.van, query.tot) == (date(2030, 1, 10), None)
    assert query.args["tot"] == "" and query.form.tot.errors


def test_an_unknown_view_is_the_day_view(read):
    query = read(weergave="maand")
    assert query.view == "dag" and "weergave" not in query.args
    assert query.form.weergave.errors


def test_a_driver_of_the_carrier_filters_and_another_does_not(read):
    query = read(chauffeur=str(DRIVER.id))
    assert query.chauffeur == str(DRIVER.id) and query.args == {"chauffeur": str(DRIVER.id)}
    assert query.filters(limit=1).chauffeur_id == DRIVER.id
    for value in (str(uuid.uuid4()), "x"):
        other = read(chauffeur=value)
        assert other.chauffeur is None and other.args == {} and other.form.chauffeur.errors
        assert other.filters(limit=1).chauffeur_id is None


def test_unassigned_selects_the_tasks_without_a_driver(read):
    filters = read(chauffeur=UNASSIGNED).filters(limit=1)
    assert filters.unassigned is True and filters.chauffeur_id is None


def test_a_vehicle_of_the_carrier_filters_and_a_bad_one_does_not(read):
    assert read(voertuig=str(VEHICLE.id)).filters(limit=1).vehicle_id == VEHICLE.id
    bad = read(voertuig="abc")
    assert bad.vehicle is None and bad.filters(limit=1).vehicle_id is None
    assert bad.form.voertuig.errors


def test_status_and_type_filter_and_an_unknown_status_does_not(read):
    query = read("status=gestart&type=voer_leveren")
    filters = query.filters(limit=1)
    assert (filters.statuses, filters.types) == (("gestart",), ("voer_leveren",))
    assert query.args == {"type": "voer_leveren", "status": "gestart"}
    unknown = read(status="klaar")
    assert unknown.status is None and unknown.filters(limit=1).statuses == ()


def test_the_search_is_stripped_and_a_blank_or_too_long_one_searches_nothing(read):
    query = read(q="  epe ")
    assert query.search == "epe" and query.args == {"q": "epe"}
    assert read(q="   ").search is None
    assert read(q="   ").filters(limit=1).search is None
    too_long = read(q="x" * 101)
    assert too_long.search is None and "q" not in too_long.args and too_long.form.q.errors


def test_the_tidy_query_lists_the_filters_in_their_order(read):
    query = read(
        q="mest", status="gepland", type="mest_laden", voertuig=str(VEHICLE.id),
        chauffeur=str(DRIVER.id), datum="2031-03-13",
    )  # fmt: skip
    assert list(query.args) == ["datum", *FILTER_NAMES]
    assert query.filters(limit=1).van == date(2031, 3, 13)
