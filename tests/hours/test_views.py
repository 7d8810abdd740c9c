"""Hours in the portal: the overview with its totals and sorting, a driver's week with the
timeline, approving and reopening, a planner's correction, and the payroll export."""

from __future__ import annotations

import csv
import io
import re
from datetime import date, timedelta

import pytest
from factories import bearer, create_driver, create_user, csrf_from, driver_token, login

from hours.support import (
    API,
    KINDS,
    WORK_KINDS,
    activity_ids,
    at,
    expected_minutes,
    generate_month,
    record_day,
    store_month,
)
from portal.hours.pages.timeline import hm


@pytest.fixture
def browser(client, planner):
    login(client, planner)
    return client


def row_of(html: str, row_id: str) -> str:
    match = re.search(rf'<tr id="{row_id}"[^>]*>(.*?)</tr>', html, re.S)
    assert match, f"no row {row_id}"
    return match.group(1)


def cell(row: str, soort: str) -> str:
    match = re.search(rf'data-soort="{soort}">(.*?)</td>', row, re.S)
    assert match, soort
    return re.sub(r"<[^>]+>", "", match.group(1)).strip()


def shown(minutes: int) -> str:
    return hm(minutes) if minutes else "\u2013"


# --- the overview ----------------------------------------------------------------------------


def test_the_overview_sums_a_generated_month(app, browser, carrier):
    drivers = [create_driver(app, carrier, naam) for naam in ("Anna Smit", "Bram Visser")]
    first, last = date(2026, 10, 1), date(2026, 10, 31)
    plan = generate_month(
        11, [d.id for d in drivers], first - timedelta(days=1), last + timedelta(days=1)
    )
    store_month(app, carrier, plan)
    expected = expected_minutes(plan, first, last)

    page = browser.get("/uren?van=2026-10-01&tot=2026-10-31")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    totals = dict.fromkeys(KINDS, 0)
    for driver in drivers:
        row = row_of(html, f"uren-{driver.id}")
        mine = {k: sum(day[k] for day in expected[driver.id].values()) for k in KINDS}
        for kind in KINDS:
            assert cell(row, kind) == shown(mine[kind]), (driver.naam, kind)
            totals[kind] += mine[kind]
        assert cell(row, "werktijd") == hm(sum(mine[k] for k in WORK_KINDS))
        weeks = re.findall(r"/uren/[\w-]+/(2026-W\d\d)", row)
        assert sorted(set(weeks)) == [f"2026-W{n}" for n in range(40, 45)]
    foot = re.search(r"<tfoot>(.*?)</tfoot>", html, re.S).group(1)
    assert cell(foot, "rijden") == hm(totals["rijden"])
    assert cell(foot, "werktijd") == hm(sum(totals[k] for k in WORK_KINDS))


def test_the_overview_sorts_on_the_server(app, browser, carrier):
    busy = create_driver(app, carrier, "Anna Smit")
    quiet = create_driver(app, carrier, "Zeger de Wit")
    idle = create_driver(app, carrier, "Mo Haddou")
    record_day(app, carrier, busy, at("2026-11-16", "06:00"), at("2026-11-16", "12:00"),
               [("rijden", at("2026-11-16", "06:00"), at("2026-11-16", "11:00"))])  # fmt: skip
    record_day(app, carrier, quiet, at("2026-11-16", "06:00"), at("2026-11-16", "12:00"),
               [("rijden", at("2026-11-16", "06:00"), at("2026-11-16", "07:00")),
                ("pauze", at("2026-11-16", "07:00"), at("2026-11-16", "11:00"))])  # fmt: skip

    def order(query: str) -> list[str]:
        html = browser.get(f"/uren?week=2026-W47{query}").get_data(as_text=True)
        return re.findall(r'<tr id="uren-([0-9a-f-]+)"', html)

    ids = {busy.id: "busy", quiet.id: "quiet", idle.id: "idle"}
    named = lambda found: [ids[__import__("uuid").UUID(i)] for i in found]  # noqa: E731
    assert named(order("")) == ["busy", "idle", "quiet"]  # by name
    assert named(order("&sort=naam&richting=desc")) == ["quiet", "idle", "busy"]
    assert named(order("&sort=werktijd&richting=desc")) == ["busy", "quiet", "idle"]
    assert named(order("&sort=pauze&richting=desc")) == ["quiet", "busy", "idle"]
    assert named(order("&sort=werktijd")) == ["idle", "quiet", "busy"]
    html = browser.get("/uren?week=2026-W47&sort=werktijd&richting=desc").get_data(as_text=True)
    assert 'aria-sort="descending"' in html
    # A header link turns the direction of its own column and keeps the period.
    assert 'href="/uren?week=2026-W47&amp;sort=werktijd"' in html


def test_a_bad_period_is_shown_at_its_field(browser):
    response = browser.get("/uren?week=2026-W99")
    assert response.status_code == 422
    assert "Geen geldige week" in response.get_data(as_text=True)
    response = browser.get("/uren?van=2026-11-30&tot=2026-11-01")
    assert response.status_code == 422
    assert "De einddatum ligt voor de begindatum." in response.get_data(as_text=True)


def test_hours_are_for_planners(app, client, carrier):
    author = create_user(app, carrier, "author")
    login(client, author)
    assert client.get("/uren").status_code == 403


def test_the_overview_runs_a_fixed_number_of_queries(app, browser, carrier, count_queries):
    def load() -> int:
        with count_queries() as counter:
            assert browser.get("/uren?week=2026-W47").status_code == 200
        return counter.count

    def add(n: int):
        driver = create_driver(app, carrier, f"Chauffeur {n}")
        record_day(app, carrier, driver, at("2026-11-16", "06:00"), at("2026-11-16", "12:00"),
                   [("rijden", at("2026-11-16", "06:00"), at("2026-11-16", "11:00"))])  # fmt: skip

    add(0)
    load()
    few = load()
    for n in range(1, 8):
        add(n)
    assert load() == few


# --- a driver's week -------------------------------------------------------------------------


def test_the_week_page_draws_the_timeline_and_the_totals(app, browser, carrier, driver):
    record_day(
        app,
        carrier,
        driver,
        at("2026-11-17", "20:00"),
        at("2026-11-18", "04:00"),
        [
            ("laden", at("2026-11-17", "20:00"), at("2026-11-17", "21:00")),
            ("rijden", at("2026-11-17", "21:00"), at("2026-11-18", "01:30")),
            ("pauze", at("2026-11-18", "01:30"), at("2026-11-18", "02:00")),
        ],
    )
    page = browser.get(f"/uren/{driver.user_token}/2026-W47")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    svg = re.search(r"<svg class=\"timeline-chart\".*?</svg>", html, re.S).group(0)
    # The drive crosses midnight: a bar on Tuesday's row and one on Wednesday's.
    rows = {part[:10]: part for part in svg.split('<g class="tl-row" data-day="')[1:]}
    assert rows["2026-11-17"].count("tl-bar-rijden") == 1
    assert rows["2026-11-18"].count("tl-bar-rijden") == 1
    assert "Rijden · di 17 nov 21:00\u2013wo 18 nov 01:30 (4:30)" in svg
    assert 'fill="url(#tl-laden)"' in svg and '<pattern id="tl-laden"' in svg
    # Totals per day: Tuesday 1:00 + 3:00 of driving, Wednesday 1:30 and a break.
    tuesday = row_of(
        html.replace('<tr data-day="2026-11-17">', '<tr id="dag-2026-11-17">'), "dag-2026-11-17"
    )
    assert cell(tuesday, "rijden") == "3:00" and cell(tuesday, "werktijd") == "4:00"
    week = html[html.index('<tr data-day="week">') :]
    assert cell(week, "werktijd") == "5:30" and cell(week, "totaal") == "6:00"
    assert "Week goedkeuren" in html


def test_a_week_crossing_the_clock_change_is_footnoted(app, browser, carrier, driver):
    record_day(app, carrier, driver, at("2026-10-24", "22:00"), at("2026-10-25", "05:00"),
               [("rijden", at("2026-10-24", "23:00"), at("2026-10-25", "04:00"))])  # fmt: skip
    html = browser.get(f"/uren/{driver.user_token}/2026-W43").get_data(as_text=True)
    assert "duurt 25 uur" in html
    sunday = row_of(html.replace('<tr data-day="2026-10-25">', '<tr id="zondag">'), "zondag")
    assert cell(sunday, "rijden") == "5:00"


def test_an_unknown_week_or_driver_is_404(browser, driver):
    assert browser.get(f"/uren/{driver.user_token}/2026-W54").status_code == 404
    assert browser.get("/uren/onbekend/2026-W47").status_code == 404


def test_approving_locks_the_week_for_the_app_and_the_portal_until_reopened(
    app, browser, client, carrier, driver, monday
):
    activity_id = monday.activity_id
    week_url = f"/uren/{driver.user_token}/2026-W47"

    confirm = browser.get(f"{week_url}/goedkeuren")
    assert "Week 47 van Jan Chauffeur goedkeuren?" in confirm.get_data(as_text=True)
    assert browser.post(f"{week_url}/goedkeuren").status_code == 400  # no CSRF token
    approved = browser.post(
        f"{week_url}/goedkeuren", data={"csrf_token": csrf_from(confirm.get_data(as_text=True))}
    )
    assert approved.status_code == 303
    page = browser.get(week_url).get_data(as_text=True)
    assert "Week 47 van Jan Chauffeur is goedgekeurd." in page
    assert 'id="week-status">Goedgekeurd<' in page
    assert "/wijzigen" not in page  # no correction links in a locked week

    # The driver app is refused ...
    token = driver_token(app.test_client(), driver)
    refused = app.test_client().patch(
        f"{API}/activiteiten/{activity_id}", json={"soort": "laden"}, headers=bearer(token)
    )
    assert refused.status_code == 409
    # ... and so is a planner's correction, with the reason on the page.
    edit = browser.get(f"/uren/activiteiten/{activity_id}/wijzigen")
    assert "Week 2026-W47 is goedgekeurd: heropen de week om iets te wijzigen." in edit.get_data(
        as_text=True
    )
    posted = browser.post(
        f"/uren/activiteiten/{activity_id}/wijzigen",
        data={
            "csrf_token": csrf_from(edit.get_data(as_text=True)),
            "soort": "laden",
            "begin": "2026-11-16T06:00",
            "einde": "2026-11-16T08:00",
        },
    )
    assert posted.status_code == 409

    # Reopening needs a reason, which is kept.
    form = browser.get(f"{week_url}/heropenen")
    token_field = csrf_from(form.get_data(as_text=True))
    empty = browser.post(f"{week_url}/heropenen", data={"csrf_token": token_field, "reden": " "})
    assert empty.status_code == 422
    assert "Geef een reden op" in empty.get_data(as_text=True)
    reopened = browser.post(
        f"{week_url}/heropenen",
        data={"csrf_token": token_field, "reden": "Rijtijd maandag klopte niet"},
    )
    assert reopened.status_code == 303
    page = browser.get(week_url).get_data(as_text=True)
    assert "Rijtijd maandag klopte niet" in page
    assert "Week goedkeuren" in page
    again = app.test_client().patch(
        f"{API}/activiteiten/{activity_id}", json={"soort": "laden"}, headers=bearer(token)
    )
    assert again.status_code == 200


def test_a_planner_corrects_an_activity_under_the_same_rules(app, browser, carrier, driver):
    day = record_day(
        app,
        carrier,
        driver,
        at("2026-11-16", "06:00"),
        at("2026-11-16", "15:00"),
        [
            ("rijden", at("2026-11-16", "06:00"), at("2026-11-16", "08:00")),
            ("laden", at("2026-11-16", "08:00"), at("2026-11-16", "09:00")),
        ],
    )
    _, loading = activity_ids(app, carrier, day)
    url = f"/uren/activiteiten/{loading}/wijzigen"
    form = browser.get(url).get_data(as_text=True)
    assert 'value="2026-11-16T08:00"' in form  # the carrier's clock
    token = csrf_from(form)
    clash = browser.post(
        url,
        data={
            "csrf_token": token,
            "soort": "laden",
            "begin": "2026-11-16T07:30",
            "einde": "2026-11-16T09:00",
            "reden": "Laden begon eerder",
        },
    )
    assert clash.status_code == 409
    assert "Dit overlapt met rijden van ma 16 nov 06:00 tot ma 16 nov 08:00." in clash.get_data(
        as_text=True
    )
    outside = browser.post(
        url,
        data={
            "csrf_token": token,
            "soort": "laden",
            "begin": "2026-11-16T14:00",
            "einde": "2026-11-16T16:00",
            "reden": "Laden was 's middags",
        },
    )
    assert outside.status_code == 422
    assert "Dit valt buiten de werkdag" in outside.get_data(as_text=True)
    saved = browser.post(
        url,
        data={
            "csrf_token": token,
            "soort": "lossen",
            "begin": "2026-11-16T08:15",
            "einde": "2026-11-16T09:30",
            "opmerking": "Lossen bij Agrifirm",
            "reden": "Was lossen, niet laden",
        },
    )
    assert saved.status_code == 303
    page = browser.get(saved.headers["Location"]).get_data(as_text=True)
    assert "De activiteit is gecorrigeerd; de chauffeur ziet de correctie in de app." in page
    assert "Lossen bij Agrifirm" in page
    assert "Was lossen, niet laden" in page  # the correction with its reason


# --- the export ------------------------------------------------------------------------------


def test_the_export_holds_the_same_numbers_as_the_api(app, browser, client, carrier, api_key):
    from openpyxl import load_workbook

    drivers = [create_driver(app, carrier, naam) for naam in ("Anna Smit", "=Bram Visser")]
    first, last = date(2026, 10, 1), date(2026, 10, 31)
    plan = generate_month(5, [d.id for d in drivers], first, last)
    store_month(app, carrier, plan)
    api = (
        app.test_client()
        .get(
            f"{API}/transporteurs/{carrier.id}/uren",
            query_string={"van": "2026-10-01", "tot": "2026-10-31"},
            headers=bearer(api_key.key),
        )
        .get_json()
    )
    per_day = {(row["naam"], d["datum"]): d for row in api for d in row["per_dag"]}

    raw = browser.get("/uren/export.csv?van=2026-10-01&tot=2026-10-31")
    assert raw.status_code == 200
    assert (
        raw.headers["Content-Disposition"] == "attachment; filename=uren-2026-10-01-2026-10-31.csv"
    )
    body = raw.get_data()
    assert body.startswith("\ufeff".encode())
    lines = list(csv.reader(io.StringIO(body.decode("utf-8-sig")), delimiter=";"))
    header, lines = lines[0], lines[1:]
    assert header[:4] == ["chauffeur", "datum", "week", "rijden_min"]
    assert len(lines) == len(per_day)
    for line in lines:
        values = dict(zip(header, line, strict=True))
        naam = values["chauffeur"].removeprefix("'")  # a formula is defused
        api_day = per_day[(naam, values["datum"])]
        for kind in KINDS:
            assert int(values[f"{kind}_min"]) == api_day["minuten"][kind]
        assert values["werktijd_uren"] == str(api_day["werktijd_uren"]).replace(
            ".", ","
        ).removesuffix(",0")
    assert any(line[0] == "'=Bram Visser" for line in lines)

    xlsx = browser.get("/uren/export.xlsx?van=2026-10-01&tot=2026-10-31")
    book = load_workbook(io.BytesIO(xlsx.get_data()))
    sheet = book["Uren per dag"]
    rows = list(sheet.iter_rows(values_only=True))
    header, rows = list(rows[0]), rows[1:]
    assert len(rows) == len(per_day)
    for row in rows:
        values = dict(zip(header, row, strict=True))
        api_day = per_day[(values["chauffeur"], values["datum"].date().isoformat())]
        assert values["werktijd_min"] == api_day["werktijd_minuten"]
        assert values["werktijd_uren"] == pytest.approx(api_day["werktijd_uren"])
        assert values["rijden_min"] == api_day["minuten"]["rijden"]
    totals = {r[0]: r for r in book["Totalen"].iter_rows(values_only=True)}
    for row in api:
        assert (
            totals[row["naam"]][list(totals["chauffeur"]).index("werktijd_min")]
            == row["totaal"]["werktijd_minuten"]
        )


def test_an_export_of_a_bad_period_goes_back_to_the_page(browser):
    response = browser.get("/uren/export.csv?van=2026-11-30&tot=2026-11-01")
    assert response.status_code == 303
    assert response.headers["Location"].startswith("/uren?")
