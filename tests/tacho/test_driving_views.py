"""The planners' driving-time pages: remaining driving time, infringements with their export
for the driver's signature, a driver's 28 days and one day (card and app side by side), the
card number form and the download deadlines. Data is made as a user makes it: a generated
card download uploaded through the tacho service, hours recorded through the hours service.
"""

from __future__ import annotations

import io
import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from factories import create_carrier, create_driver, create_user, create_vehicle, csrf_from, login
from hours.support import record_day

from portal.tacho.ddd import VehicleUse
from portal.tacho.ddd.build import card_file, changes_from_timeline

CARD = "NB12345678901000"
DASH = "\u2013"  # an en dash between two times


def at(day: date, clock: str) -> datetime:
    hour, minute = (int(part) for part in clock.split(":"))
    return datetime.combine(day, time(hour, minute), tzinfo=UTC)


def text_of(response) -> str:
    """What a reader sees: the page without its tags, spaces collapsed."""
    text = re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))
    text = text.replace("&amp;", "&").replace("&#39;", "'").replace("&#34;", '"')
    return re.sub(r"\s+", " ", text)


def html_of(response) -> str:
    return re.sub(r"\s+", " ", response.get_data(as_text=True))


def today() -> date:
    return datetime.now(UTC).date()


def days_ago(n: int) -> date:
    return today() - timedelta(days=n)


def card_download(days: dict, downloaded: datetime, number: str = CARD) -> bytes:
    return card_file(
        kaartnummer=number,
        achternaam="Rijder",
        voornamen="Piet",
        dagen=days,
        download_time=downloaded,
    )


def week_of_driving() -> tuple[dict, datetime]:
    """Three days ago: 5 h driving without a break (an infringement of art. 7) and 3 h more;
    two days ago: the card unused; yesterday: 2 h driving; downloaded yesterday evening."""
    d1, d3 = days_ago(3), days_ago(1)
    timeline = [
        (at(d1, "00:00"), "rust"),
        (at(d1, "04:00"), "rijden"),
        (at(d1, "09:00"), "rust"),
        (at(d1, "09:45"), "werk"),
        (at(d1, "10:15"), "rijden"),
        (at(d1, "13:15"), "rust"),
        (at(d3, "06:00"), "rijden"),
        (at(d3, "08:00"), "werk"),
        (at(d3, "08:30"), "rust"),
    ]
    days = changes_from_timeline(timeline)
    # The card was not used two days ago: no record of that day at all.
    days.pop(days_ago(2))
    return days, at(d3, "20:00")


@pytest.fixture
def browser(client, planner):
    login(client, planner)
    return client


@pytest.fixture
def piet(app, carrier, store_tacho):
    """A driver with a card download of three days and hours in the app on two of them."""
    driver = create_driver(app, carrier, "Piet Rijder")
    days, downloaded = week_of_driving()
    store_tacho(
        carrier,
        card_download(days, downloaded),
        f"C_{downloaded:%Y%m%d_%H%M}_P_Rijder_{CARD}.DDD",
        driver_id=driver.id,
    )
    d0, d2, d3 = days_ago(5), days_ago(2), days_ago(1)
    # The driver has used the app since five days ago (before it, there is nothing to compare).
    record_day(
        app, carrier, driver, at(d0, "07:00"), at(d0, "07:20"),
        [("overig_werk", at(d0, "07:00"), at(d0, "07:20"))],
    )  # fmt: skip
    # Two days ago: a work day in the app, no card at all.
    record_day(
        app,
        carrier,
        driver,
        at(d2, "07:00"),
        at(d2, "11:00"),
        [("laden", at(d2, "07:00"), at(d2, "09:00")), ("rijden", at(d2, "09:00"), at(d2, "11:00"))],
    )
    # Yesterday: the app says 1 h driving where the card says 2 h.
    record_day(
        app,
        carrier,
        driver,
        at(d3, "06:00"),
        at(d3, "08:30"),
        [("rijden", at(d3, "06:00"), at(d3, "07:00")), ("laden", at(d3, "07:00"), at(d3, "08:30"))],
    )
    return driver


# --- access -----------------------------------------------------------------------------


def test_the_pages_are_for_planners(app, client, carrier, driver):
    pages = [
        "/rijtijden",
        "/rijtijden/overtredingen",
        "/rijtijden/downloads",
        f"/rijtijden/chauffeurs/{driver.id}",
        f"/rijtijden/chauffeurs/{driver.id}/dagen/{days_ago(1).isoformat()}",
    ]
    for page in pages:
        assert client.get(page).status_code == 302  # sign in first
    login(client, create_user(app, carrier, "author"))
    for page in pages:
        assert client.get(page).status_code == 403, page


def test_another_carriers_driver_is_404(app, browser):
    other = create_carrier(app, "Kuipers Veevervoer")
    stranger = create_driver(app, other, "Kees Vreemd")
    day = days_ago(1).isoformat()
    assert browser.get(f"/rijtijden/chauffeurs/{stranger.id}").status_code == 404
    assert browser.get(f"/rijtijden/chauffeurs/{stranger.id}/dagen/{day}").status_code == 404
    # A POST too, even without a CSRF token: the driver is looked up first.
    response = browser.post(
        f"/rijtijden/chauffeurs/{stranger.id}/kaartnummer", data={"kaartnummer": CARD}
    )
    assert response.status_code == 404


def test_a_day_that_is_no_date_or_in_the_future_is_404(browser, driver):
    base = f"/rijtijden/chauffeurs/{driver.id}/dagen"
    assert browser.get(f"{base}/gisteren").status_code == 404
    assert browser.get(f"{base}/{(today() + timedelta(days=2)).isoformat()}").status_code == 404


def test_the_tachograph_page_has_tabs_to_the_new_pages(browser):
    html = html_of(browser.get("/tachograaf"))
    for path in ("/rijtijden", "/rijtijden/overtredingen", "/rijtijden/downloads"):
        assert f'href="{path}"' in html


# --- remaining driving time -------------------------------------------------------------


def test_remaining_time_lists_every_active_driver(app, browser, carrier, piet):
    create_driver(app, carrier, "Anna Zonder")
    response = browser.get("/rijtijden")
    assert response.status_code == 200
    text = text_of(response)
    assert "Piet Rijder" in text and "Anna Zonder" in text
    # A driver with data comes before one without, who says so.
    assert text.index("Piet Rijder") < text.index("Anna Zonder")
    assert "Geen gegevens: geen kaartdownload en geen uren in de app" in text
    row = re.search(rf'<tr id="rt-{piet.id}">(.*?)</tr>', html_of(response)).group(1)
    row_text = re.sub(r"<[^>]+>", " ", row)
    assert re.search(r"\d+ u( \d\d)?|\d+ min|onbekend", row_text)
    assert "kaart tot" in row_text
    assert f'href="/rijtijden/chauffeurs/{piet.id}"' in row


def test_the_remaining_time_page_reads_a_fixed_number_of_queries(
    app, browser, carrier, count_queries
):
    def load() -> int:
        with count_queries() as q:
            assert browser.get("/rijtijden").status_code == 200
        return q.count

    create_driver(app, carrier, "Een")
    once = load()
    for n in range(4):
        create_driver(app, carrier, f"Chauffeur {n}")
    assert load() == once


# --- a driver's 28 days and one day -------------------------------------------------------


def test_the_driver_page_shows_card_and_app_side_by_side(browser, piet):
    response = browser.get(f"/rijtijden/chauffeurs/{piet.id}")
    assert response.status_code == 200
    text, html = text_of(response), html_of(response)
    # Three days ago: 8 h driving on the card, no work day in the app.
    assert "Rijden op de kaart zonder werkdag in de app (8 u)" in text
    # Two days ago: 4 h work in the app (2 h loading, 2 h driving), nothing on the card.
    assert "Werk in de app dat niet op de kaart staat (4 u)" in text
    # Yesterday: the card has 1 h more driving than the app.
    assert "Meer rijden op de kaart dan in de app (1 u)" in text
    # The bars are labelled for screen readers, in UTC.
    assert f'aria-label="Kaart: Rijden 04:00{DASH}09:00 UTC (5 u)"' in html
    assert f'aria-label="App: Rijden 09:00{DASH}11:00 UTC (2 u)"' in html
    day = days_ago(3).isoformat()
    assert f'href="/rijtijden/chauffeurs/{piet.id}/dagen/{day}"' in html
    # The day's totals, card and app.
    row = re.search(rf'<tr id="dag-{day}"[^>]*>(.*?)</tr>', html).group(1)
    assert "8 u" in row
    # The findings of these days, with the export for the driver's signature.
    assert "Rijden zonder onderbreking 5 u (max. 4 u 30): 30 min te lang" in text
    assert f"chauffeur={piet.id}" in html and "formaat=xlsx" in html
    # An earlier window.
    earlier = (today() - timedelta(days=28)).isoformat()
    assert f"tot={earlier}" in html


def test_days_after_the_newest_download_are_not_compared_yet(app, browser, carrier, store_tacho):
    """The card was read three days ago; yesterday's work in the app is not "missing from
    the card": the download with that day has not been uploaded yet."""
    driver = create_driver(app, carrier, "Piet Later")
    days, _downloaded = week_of_driving()
    read_on = days_ago(3)
    kept = {day: changes for day, changes in days.items() if day <= read_on}
    downloaded = at(read_on, "20:00")
    store_tacho(
        carrier,
        card_download(kept, downloaded),
        f"C_{downloaded:%Y%m%d_%H%M}_P_Later_{CARD}.DDD",
        driver_id=driver.id,
    )
    yesterday = days_ago(1)
    record_day(
        app, carrier, driver, at(yesterday, "07:00"), at(yesterday, "11:00"),
        [("laden", at(yesterday, "07:00"), at(yesterday, "11:00"))],
    )  # fmt: skip
    page = text_of(browser.get(f"/rijtijden/chauffeurs/{driver.id}"))
    assert "Werk in de app dat niet op de kaart staat" not in page
    day = text_of(browser.get(f"/rijtijden/chauffeurs/{driver.id}/dagen/{yesterday}"))
    assert "Nog geen kaartdownload met deze dag" in day
    assert "Deze dag staat nog in geen kaartdownload: er is nog niets te vergelijken." in day


def test_an_earlier_window_shows_its_own_days(browser, piet):
    earlier = today() - timedelta(days=28)
    response = browser.get(f"/rijtijden/chauffeurs/{piet.id}?tot={earlier.isoformat()}")
    assert response.status_code == 200
    text = text_of(response)
    assert "Rijden op de kaart zonder werkdag" not in text
    assert f'id="dag-{earlier.isoformat()}"' in html_of(response)
    assert "28 dagen later" in text


def test_the_day_view_lists_the_cards_changes_and_the_totals(browser, piet):
    day = days_ago(3)
    response = browser.get(f"/rijtijden/chauffeurs/{piet.id}/dagen/{day.isoformat()}")
    assert response.status_code == 200
    text, html = text_of(response), html_of(response)
    assert f"04:00{DASH}09:00" in text
    # Amsterdam is an hour ahead of UTC in winter, two in summer.
    local = at(day, "04:00").astimezone(ZoneInfo("Europe/Amsterdam"))
    assert f"{local:%H:%M}" in text
    assert "in de tachograaf" in text
    totals = re.search(r'<table class="rt-table rt-totals">(.*?)</table>', html).group(1)
    totals = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", totals))
    assert "Rijden 8 u — Werk 30 min —" in totals  # the card's; no work day in the app
    assert "Rijden op de kaart zonder werkdag in de app (8 u)" in text
    previous = (day - timedelta(days=1)).isoformat()
    following = (day + timedelta(days=1)).isoformat()
    assert f"/dagen/{previous}" in html and f"/dagen/{following}" in html
    assert f'aria-label="Kaart: Rijden 10:15{DASH}13:15 UTC (3 u)"' in html


# --- the card number -------------------------------------------------------------------


def test_the_card_number_form_shows_errors_at_the_field_and_saves(app, browser, carrier):
    driver = create_driver(app, carrier, "Kaart Loos")
    page = f"/rijtijden/chauffeurs/{driver.id}"
    token = csrf_from(browser.get(page).get_data(as_text=True))
    response = browser.post(f"{page}/kaartnummer", data={"kaartnummer": "12", "csrf_token": token})
    assert response.status_code == 422
    html = html_of(response)
    assert 'id="rt-kaartnummer-error"' in html
    assert "Een kaartnummer heeft 13 tot 16 letters en cijfers" in text_of(response)
    assert 'aria-invalid="true"' in html

    response = browser.post(
        f"{page}/kaartnummer", data={"kaartnummer": "nb 1234 5678 9010 00", "csrf_token": token}
    )
    assert response.status_code == 303
    page_after = browser.get(page)
    assert "Het kaartnummer is opgeslagen." in text_of(page_after)
    assert 'value="NB12345678901000"' in html_of(page_after)

    other = create_driver(app, carrier, "Ander Persoon")
    response = browser.post(
        f"/rijtijden/chauffeurs/{other.id}/kaartnummer",
        data={"kaartnummer": "NB12345678901000", "csrf_token": token},
    )
    assert response.status_code == 422
    assert "Dit kaartnummer hoort al bij Kaart Loos." in text_of(response)

    response = browser.post(f"{page}/kaartnummer", data={"wissen": "1", "csrf_token": token})
    assert response.status_code == 303
    assert "Het kaartnummer is gewist." in text_of(browser.get(page))


def test_a_card_number_set_later_brings_the_cards_days(app, browser, carrier, store_tacho):
    """A download stored before anyone had the card shows up once the number is set."""
    driver = create_driver(app, carrier, "Laat Gekoppeld")
    days, downloaded = week_of_driving()
    store_tacho(carrier, card_download(days, downloaded), "kaart.ddd")
    page = f"/rijtijden/chauffeurs/{driver.id}"
    finding = "Rijden zonder onderbreking 5 u (max. 4 u 30): 30 min te lang"
    assert finding not in text_of(browser.get(page))
    token = csrf_from(browser.get(page).get_data(as_text=True))
    browser.post(f"{page}/kaartnummer", data={"kaartnummer": CARD, "csrf_token": token})
    text = text_of(browser.get(page))
    assert finding in text
    # The driver never used the app: the card's days are not called differences.
    assert "Rijden op de kaart zonder werkdag" not in text


# --- infringements and their export ------------------------------------------------------


def test_the_findings_page_words_each_infringement(browser, piet):
    response = browser.get("/rijtijden/overtredingen")
    assert response.status_code == 200
    text, html = text_of(response), html_of(response)
    assert "Rijden zonder onderbreking 5 u (max. 4 u 30): 30 min te lang" in text
    assert "561/2006 art. 7" in text
    assert 'class="rt-badge rt-ernst-ernstig"' in html
    assert "Piet Rijder" in text
    # Filtering on a severity that is not there leaves the empty state.
    response = browser.get("/rijtijden/overtredingen?ernst=zeer_ernstig_max")
    assert "Geen overtredingen gevonden." in text_of(response)


def test_a_bad_period_is_shown_at_its_field(browser):
    response = browser.get("/rijtijden/overtredingen?van=2026-11-10&tot=2026-11-01")
    assert response.status_code == 422
    assert "De einddatum ligt voor de begindatum." in text_of(response)
    # Its export goes back to the page rather than exporting another period.
    response = browser.get("/rijtijden/overtredingen?van=2026-11-10&tot=2026-11-01&formaat=csv")
    assert response.status_code == 303
    assert "formaat" not in response.headers["Location"]


def test_the_xlsx_export_is_laid_out_for_the_drivers_signature(browser, piet):
    from openpyxl import load_workbook

    response = browser.get(f"/rijtijden/overtredingen?chauffeur={piet.id}&formaat=xlsx")
    assert response.status_code == 200
    assert response.mimetype.endswith("spreadsheetml.sheet")
    book = load_workbook(io.BytesIO(response.data))
    assert book.sheetnames == ["Piet Rijder"]
    cells = [
        [c for c in row if c is not None] for row in book["Piet Rijder"].iter_rows(values_only=True)
    ]
    flat = [value for row in cells for value in row]
    assert "Chauffeur" in flat and "Piet Rijder" in flat and CARD in flat
    assert "Rijden zonder onderbreking 5 u (max. 4 u 30): 30 min te lang" in flat
    assert "561/2006 art. 7" in flat
    assert ["Handtekening chauffeur"] in cells and ["Datum"] in cells
    # The signature lines come after the rows.
    row = next(i for i, r in enumerate(cells) if "561/2006 art. 7" in r)
    assert cells.index(["Handtekening chauffeur"]) > row


def test_the_csv_export_has_a_block_per_driver_with_signature_lines(browser, piet):
    response = browser.get("/rijtijden/overtredingen?formaat=csv")
    assert response.status_code == 200
    body = response.data.decode("utf-8-sig")
    lines = body.split("\r\n")
    assert "Chauffeur;Piet Rijder" in lines
    assert "Begin;Eind;Wat;Artikel;Ernst;Soort;Bron" in lines
    found = [line for line in lines if "Rijden zonder onderbreking" in line]
    assert found and "561/2006 art. 7;Ernstig;Overtreding;kaart" in found[0]
    signature = lines.index(next(line for line in lines if line.startswith("Handtekening")))
    assert signature > lines.index(found[0])
    assert lines[signature + 1].startswith("Datum;")


def test_the_pages_speak_english(browser, piet):
    english = {"Accept-Language": "en"}
    text = text_of(browser.get("/rijtijden/overtredingen", headers=english))
    assert "Driving without a break 5 h (max. 4 h 30): 30 min too long" in text
    assert "Serious" in text
    text = text_of(browser.get(f"/rijtijden/chauffeurs/{piet.id}", headers=english))
    assert "Driving on the card without a work day in the app (8 h)" in text
    body = browser.get("/rijtijden/overtredingen?formaat=csv", headers=english).data
    assert "Driver signature" in body.decode("utf-8-sig")


# --- download deadlines ----------------------------------------------------------------


def test_the_deadlines_put_what_is_overdue_first(app, browser, carrier, piet, store_tacho):
    late = create_driver(app, carrier, "Te Laat")
    old = days_ago(40)
    days = changes_from_timeline([(at(old, "00:00"), "rust"), (at(old, "06:00"), "rijden")])
    store_tacho(
        carrier,
        card_download(days, at(old, "12:00"), number="NB99999999999000"),
        "oud.ddd",
        driver_id=late.id,
    )
    create_vehicle(app, carrier)
    response = browser.get("/rijtijden/downloads")
    assert response.status_code == 200
    text = text_of(response)
    # Deadlines count the carrier's days; the card's days here are UTC days. Between
    # midnight in Amsterdam and midnight UTC the carrier's today is a day ahead.
    ahead = int(datetime.now(ZoneInfo("Europe/Amsterdam")).date() > today())
    assert f"{12 + ahead} dagen te laat" in text
    assert "Te laat" in text and "Nooit gedownload" in text and "Op tijd" in text
    assert text.index("Te Laat") < text.index("Piet Rijder")
    assert f"nog {27 - ahead} dagen" in text  # Piet's card, downloaded yesterday
    assert f'href="/rijtijden/chauffeurs/{late.id}"' in html_of(response)


def test_without_drivers_or_vehicles_the_deadlines_say_so(browser):
    assert "Geen chauffeurs of voertuigen met een tachograaf." in text_of(
        browser.get("/rijtijden/downloads")
    )


# --- the driver's own page ---------------------------------------------------------------


def test_the_driver_page_shows_the_remaining_time_panel(app, browser, carrier, piet):
    response = browser.get(f"/chauffeurs/{piet.id}")
    assert response.status_code == 200
    text = text_of(response)
    assert "Rijtijden" in text and "Vandaag nog" in text
    assert f'href="/rijtijden/chauffeurs/{piet.id}"' in html_of(response)
    empty = create_driver(app, carrier, "Nog Niets")
    assert "Geen gegevens" in text_of(browser.get(f"/chauffeurs/{empty.id}"))


def test_the_vehicles_of_a_day_are_shown_as_their_plates_are_painted(
    app, browser, carrier, store_tacho
):
    driver = create_driver(app, carrier, "Piet Kenteken")
    days, downloaded = week_of_driving()
    day = days_ago(3)
    use = VehicleUse(at(day, "04:00"), at(day, "13:15"), 1000, 1420, "OT48KX", "NL")
    data = card_file(
        kaartnummer=CARD, achternaam="Kenteken", voornamen="Piet", dagen=days,
        download_time=downloaded, vehicles=[use],
    )  # fmt: skip
    store_tacho(carrier, data, "C_kenteken.DDD", driver_id=driver.id)
    page = html_of(browser.get(f"/rijtijden/chauffeurs/{driver.id}/dagen/{day}"))
    assert '<span class="plate">OT-48-KX</span>' in page
    assert '<span class="plate">OT-48-KX</span>' in html_of(
        browser.get(f"/rijtijden/chauffeurs/{driver.id}")
    )
