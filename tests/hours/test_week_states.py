"""Where a planner stands with each week: the overview names every week's state, approving
a week that has not ended asks first, the payroll export opens on the period still to
export, and a driver without a payroll number is named before the file is made."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from factories import create_driver, csrf_from, login

from hours.support import approve, at, record_day
from hours.test_corrections import correct, long_monday
from hours.test_payroll import export, set_payroll_number
from portal.hours.totals import IsoWeek

WEEKS = {"2026-W45": "2026-11-02", "2026-W46": "2026-11-09", "2026-W48": "2026-11-23"}
PAYROLL = "/uren/loonexport"


def text_of(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.get_data(as_text=True)))


def work(app, carrier, driver, day: str):
    record_day(app, carrier, driver, at(day, "07:00"), at(day, "15:00"),
               [("rijden", at(day, "07:00"), at(day, "15:00"))])  # fmt: skip


def chips(html: str, driver_id) -> dict[str, tuple[str, str]]:
    """The week chips of a driver's row: week number -> (state, visible text)."""
    row = re.search(rf'<tr id="uren-{driver_id}">(.*?)</tr>', html, re.S).group(1)
    found = re.findall(r'data-state="([a-z_]+)"[^>]*>(.*?)</a>', row, re.S)
    out = {}
    for state, inner in found:
        text = " ".join(re.sub(r"<[^>]+>", " ", inner).split())
        out[re.search(r"W(\d+)", text).group(1)] = (state, text)
    return out


def test_the_overview_names_each_weeks_state(app, client, carrier, driver, planner):
    for day in WEEKS.values():
        work(app, carrier, driver, day)
    long_monday(app, carrier, driver)  # week 47
    set_payroll_number(app, carrier, driver, "00123")
    approve(app, carrier, driver, "2026-W45", planner)
    approve(app, carrier, driver, "2026-W46", planner)
    login(client, planner)
    assert export(client, van="2026-W45", tot="2026-W45").status_code == 303
    monday = client.get(f"/uren/{driver.user_token}/2026-W47")
    activity = re.search(r"/uren/activiteiten/([0-9a-f-]+)/wijzigen", monday.get_data(as_text=True))
    saved = correct(client, activity.group(1), soort="rijden", begin="2026-11-16T06:30",
                    einde="2026-11-16T13:00", reden="Volgens de tachograaf")  # fmt: skip
    assert saved.status_code == 303

    page = client.get("/uren", query_string={"van": "2026-11-02", "tot": "2026-11-29"})
    found = chips(page.get_data(as_text=True), driver.id)
    assert {week: state for week, (state, _text) in found.items()} == {
        "45": "geexporteerd",
        "46": "goedgekeurd",
        "47": "wacht_op_chauffeur",
        "48": "open",
    }
    assert found["45"][1] == "⇪ W45 geëxporteerd"
    assert found["46"][1] == "✓ W46 goedgekeurd"
    assert found["47"][1] == "… W47 wacht op chauffeur"
    assert found["48"][1] == "○ W48 open"

    with client.session_transaction() as session:
        session["taal"] = "en"
    page = client.get("/uren", query_string={"van": "2026-11-02", "tot": "2026-11-29"})
    found = chips(page.get_data(as_text=True), driver.id)
    assert [text for _state, text in found.values()] == [
        "⇪ W45 exported",
        "✓ W46 approved",
        "… W47 waiting for driver",
        "○ W48 open",
    ]


def current_week() -> IsoWeek:
    return IsoWeek.of(datetime.now(ZoneInfo("Europe/Amsterdam")).date())


def test_approving_a_week_that_has_not_ended_asks_first(client, driver, planner):
    login(client, planner)
    week = current_week()
    url = f"/uren/{driver.user_token}/{week.label}/goedkeuren"
    confirm = client.get(url)
    assert "Deze week is nog niet om: hij loopt tot en met zondag" in text_of(confirm)
    token = csrf_from(confirm.get_data(as_text=True))
    # A post without that answer (an old form, a script) gets the question, not an approval.
    asked = client.post(url, data={"csrf_token": token})
    assert asked.status_code == 200
    assert "Deze week is nog niet om" in text_of(asked)
    week_page = client.get(f"/uren/{driver.user_token}/{week.label}").get_data(as_text=True)
    assert 'id="week-status">Nog niet goedgekeurd<' in week_page
    # The button of the question approves it.
    form = asked.get_data(as_text=True)
    assert 'name="voor_einde" value="ja"' in form
    done = client.post(url, data={"csrf_token": token, "voor_einde": "ja"})
    assert done.status_code == 303
    assert "is goedgekeurd" in text_of(client.get(done.headers["Location"]))


def test_a_week_that_has_ended_is_approved_without_the_extra_question(
    app, client, carrier, driver, planner
):
    work(app, carrier, driver, "2026-11-16")
    login(client, planner)
    url = f"/uren/{driver.user_token}/2026-W47/goedkeuren"
    confirm = client.get(url)
    assert "nog niet om" not in text_of(confirm)
    done = client.post(url, data={"csrf_token": csrf_from(confirm.get_data(as_text=True))})
    assert done.status_code == 303


def test_the_payroll_export_opens_on_the_first_period_not_exported(
    app, client, carrier, driver, planner
):
    from portal.hours.pages.payroll import month_weeks

    login(client, planner)
    today = datetime.now(ZoneInfo("Europe/Amsterdam")).date()
    last_month = today.replace(day=1) - timedelta(days=1)
    month_before = last_month.replace(day=1) - timedelta(days=1)

    def opens_on(month) -> bool:
        first, last = month_weeks(month)
        page = client.get(PAYROLL).get_data(as_text=True)
        return f'value="{first.label}"' in page and f'value="{last.label}"' in page

    # Nothing approved or exported: last month, as before.
    assert opens_on(last_month)
    # A week of the month before approved and not exported: the page opens on that month.
    for month in (month_before, last_month):
        monday = month.replace(day=8) + timedelta(days=(7 - month.replace(day=8).weekday()) % 7)
        work(app, carrier, driver, monday.isoformat())
        approve(app, carrier, driver, IsoWeek.of(monday).label, planner)
    assert opens_on(month_before)
    first, last = month_weeks(month_before)
    assert export(client, van=first.label, tot=last.label).status_code == 303
    # That one exported: last month, with its week still to export.
    assert opens_on(last_month)
    first, last = month_weeks(last_month)
    assert export(client, van=first.label, tot=last.label).status_code == 303
    # Everything exported: the month after the last exported one, this month.
    assert opens_on(today)


def test_a_driver_without_a_payroll_number_is_named_before_the_export(
    app, client, carrier, driver, planner
):
    colleague = create_driver(app, carrier, "Piet Zonder")
    for who in (driver, colleague):
        work(app, carrier, who, "2026-11-16")
        approve(app, carrier, who, "2026-W47", planner)
    set_payroll_number(app, carrier, driver, "00123")
    login(client, planner)
    query = {"van": "2026-W47", "tot": "2026-W47"}
    page = client.get(PAYROLL, query_string=query)
    warning = re.search(
        r'id="zonder-personeelsnummer">(.*?)</div>', page.get_data(as_text=True), re.S
    ).group(1)
    assert "1 chauffeur in deze export heeft geen personeelsnummer" in warning
    assert "Piet Zonder" in warning and "Jan Chauffeur" not in warning
    assert f"/chauffeurs/{colleague.id}/bewerken" in warning
    confirm = client.get(f"{PAYROLL}/export", query_string={**query, "formaat": "csv"})
    assert "Piet Zonder" in text_of(confirm)
    assert "heeft geen personeelsnummer" in text_of(confirm)

    # With the number filled in, nobody is named.
    set_payroll_number(app, carrier, colleague, "00124")
    page = client.get(PAYROLL, query_string=query).get_data(as_text=True)
    assert "zonder-personeelsnummer" not in page
