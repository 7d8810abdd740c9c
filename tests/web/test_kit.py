"""The portal's request kit: pages of a list, the page asked for, moments worded one way."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from flask import g, render_template_string

from portal import create_app
from portal.web.kit import (
    MAX_PAGE,
    Pager,
    errors_at_fields,
    format_when,
    page_arg,
    parse_uuid,
    safe_back,
)


@pytest.fixture
def app(tmp_path):
    return create_app(
        {"TESTING": True, "SECRET_KEY": "kit", "SQLALCHEMY_DATABASE_URI": "sqlite://"}
    )


@pytest.mark.parametrize(
    ("query", "page"),
    [("", 1), ("pagina=3", 3), ("pagina=0", 1), ("pagina=-4", 1), ("pagina=abc", 1),
     (f"pagina={10**30}", MAX_PAGE), (f"pagina={MAX_PAGE + 1}", MAX_PAGE)],
)  # fmt: skip
def test_the_page_asked_for_is_a_bounded_whole_number(app, query, page):
    with app.test_request_context(f"/?{query}"):
        assert page_arg() == page


def test_a_counted_list_knows_its_pages_rows_and_neighbours():
    pager = Pager(page=2, per_page=50).counted(120)
    assert (pager.pages, pager.offset, pager.first, pager.last) == (3, 50, 51, 100)
    assert pager.has_prev and pager.has_next
    last = Pager(page=3, per_page=50, total=120)
    assert (last.first, last.last, last.has_next) == (101, 120, False)
    assert Pager(page=1, per_page=50, total=0).pages == 1  # an empty list is one page


def test_a_list_in_memory_past_its_end_shows_its_last_page():
    pager, rows = Pager(page=9, per_page=2).of(list(range(5)))
    assert (pager.page, pager.pages, rows) == (3, 3, [4])


def test_the_pager_links_keep_the_filters_and_leave_page_one_out(app):
    template = (
        '{% from "_macros/pager.html" import pager_nav with context %}'
        "{{ pager_nav(pager, 'drivers.index', {'q': 'jan'}, target='#driver-results') }}"
    )
    with app.test_request_context("/"):
        html = render_template_string(template, pager=Pager(2, 50, 120))
        only = render_template_string(template, pager=Pager(1, 50, 20))
        assert Pager(2, 50, 120).url("drivers.index", q="jan") == "/chauffeurs?q=jan&pagina=2"
        assert Pager(1, 50, 120).url("drivers.index") == "/chauffeurs"
    assert 'href="/chauffeurs?pagina=1&amp;q=jan" rel="prev" hx-get=' in html
    assert 'href="/chauffeurs?pagina=3&amp;q=jan" rel="next"' in html
    assert 'hx-target="#driver-results"' in html
    assert "Pagina 2 van 3" in html
    assert only.strip() == ""  # one page: no pager at all


def test_moments_are_worded_per_kind(app):
    moment = datetime(2026, 11, 24, 7, 30, tzinfo=UTC)  # 08:30 in Amsterdam
    with app.test_request_context("/"):
        assert format_when(moment) == "di 24 nov 08:30"
        assert format_when(moment, "date_time") == "24 nov 2026 08:30"
        assert format_when(None, empty="—") == "—"
        # "recent" needs the carrier's zone; a moment long ago reads as a date and time.
        g.carrier_zone = ZoneInfo("Europe/Amsterdam")
        assert (
            format_when(moment - timedelta(days=400), "recent") == "20 okt 2025 09:30"
        )  # summer time
        now = datetime.now(UTC).replace(second=0, microsecond=0)
        assert len(format_when(now, "recent")) == 5  # today: the time alone (HH:mm)


@pytest.mark.parametrize(
    ("target", "back"),
    [("/voertuigen?pagina=2", "/voertuigen?pagina=2"), ("/voertuigen/12", "/voertuigen/12"),
     ("/taken", "/"), (None, "/"), ("", "/"), ("https://evil.example/voertuigen", "/"),
     ("//evil.example/voertuigen", "/"), ("///voertuigen.evil.example", "/"),
     ("/\\evil.example", "/"), ("/voertuigen x", "/"), ("voertuigen", "/"),
     ("/voertuigen\x00", "/")],
)  # fmt: skip
def test_the_way_back_stays_on_the_pages_it_names(target, back):
    assert safe_back(target, within="/voertuigen", fallback="/") == back


def test_the_way_back_to_one_page_takes_that_page_with_any_query():
    assert safe_back("/taken?dag=2026-11-28", within="/taken", fallback="/", exact=True) == (
        "/taken?dag=2026-11-28"
    )
    assert safe_back("/taken/12", within="/taken", fallback="/", exact=True) == "/"


def test_a_uuid_is_read_or_none():
    assert str(parse_uuid("0b5f6a2e-8d0c-4f3e-9a1b-2c3d4e5f6a7b")).startswith("0b5f6a2e")
    assert parse_uuid("12") is None
    assert parse_uuid("") is None
    assert parse_uuid(None) is None


def test_errors_are_worded_by_their_code_at_their_field(app):
    from flask_wtf import FlaskForm
    from wtforms import StringField

    class Form(FlaskForm):
        naam = StringField()

    wording = {
        "required": "Vul de naam in.",
        "too_long": "Hoogstens %(max)s tekens.",
        "in_use": lambda error: f"{error['field']} is al in gebruik.",
    }
    errors = [
        {"field": "naam", "code": "required", "message": "required"},
        {"field": "naam", "code": "too_long", "message": "too long", "params": {"max": 30}},
        {"field": "email", "code": "in_use", "message": "already in use"},
        {"field": "email", "code": "unknown", "message": "not known here"},
    ]
    with app.test_request_context("/", method="POST"):
        form = Form(meta={"csrf": False})
        general = errors_at_fields(form, errors, wording)
        assert form.naam.errors == ["Vul de naam in.", "Hoogstens 30 tekens."]
    assert general == ["email is al in gebruik.", "email: not known here"]
