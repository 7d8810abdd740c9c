"""The planners' tachograph pages: list, filters, upload (with and without JavaScript), one
file's page with links, period and a download link, and the download."""

from __future__ import annotations

import io
import re
import uuid
from datetime import date
from urllib.parse import urlsplit

import pytest
from factories import create_driver, create_user, create_vehicle, csrf_from, in_carrier, login
from tacho.samples import card_file, overview_1, vu_file_1

from portal.tacho import service

CARD = card_file(first_day=date(2026, 10, 1), days=28)
VU = vu_file_1(kenteken="BX12AB", first_day=date(2026, 11, 2), days=7)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(40)
DASH = "\u2013"  # an en dash between the first and last day


@pytest.fixture
def browser(client, planner):
    login(client, planner)
    return client


def token_of(client, path: str = "/tachograaf") -> str:
    return csrf_from(client.get(path).get_data(as_text=True))


def upload(client, *files, path="/tachograaf/upload", headers=None, **form):
    data = {
        "csrf_token": token_of(client),
        "bestanden": [(io.BytesIO(content), name) for name, content in files],
        **form,
    }
    return client.post(path, data=data, content_type="multipart/form-data", headers=headers)


JSON_UPLOAD = "/tachograaf/upload.json"  # one file per request, as tacho-upload.js sends


def html_of(response) -> str:
    return re.sub(r"\s+", " ", response.get_data(as_text=True))


def text_of(response) -> str:
    """What a reader sees: the page without its tags, spaces collapsed."""
    text = re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))
    return re.sub(r"\s+", " ", text.replace("&amp;", "&"))


def file_ids(app, carrier) -> list[uuid.UUID]:
    def read():
        page = service.list_files(carrier_id=carrier.id, filters=service.TachoFilters())
        return [row.id for row in page.files]

    return in_carrier(app, carrier.id, read)


# --- access and the empty list -------------------------------------------------------------


def test_the_section_is_for_planners(app, client, carrier):
    assert client.get("/tachograaf").status_code == 302  # sign in first
    author = create_user(app, carrier, "author")
    login(client, author)
    assert client.get("/tachograaf").status_code == 403


def test_an_empty_list_says_what_to_do(browser):
    response = browser.get("/tachograaf")
    assert response.status_code == 200
    html = html_of(response)
    assert "Nog geen tachograafbestanden." in html
    assert 'name="bestanden" multiple' in html
    assert 'enctype="multipart/form-data"' in html
    assert "js/tacho-upload.js" in html
    assert 'aria-current="page">Tachograaf<' in html  # the navigation points here


# --- uploading ------------------------------------------------------------------------------


def test_several_files_upload_at_once_and_each_says_how_it_went(app, browser, carrier):
    response = upload(browser, ("kaart.DDD", CARD), ("voertuig.V1B", VU), ("foto.DDD", PNG))

    assert response.status_code == 422  # one of them was refused
    html = text_of(response)
    assert "kaart.DDD Geüpload als Bestuurderskaart." in html
    assert "voertuig.V1B Geüpload als Voertuigeenheid." in html
    assert "foto.DDD Geen tachograafbestand" in html
    assert "2 bestanden" in html
    assert len(file_ids(app, carrier)) == 2


def test_the_same_file_again_says_it_was_already_uploaded(app, browser, carrier):
    assert upload(browser, ("kaart.DDD", CARD)).status_code == 200
    response = upload(browser, ("kaart-kopie.DDD", CARD))

    assert response.status_code == 200
    html = text_of(response)
    assert "al eerder geüpload" in html
    assert "1 bestand" in html
    assert len(file_ids(app, carrier)) == 1


def test_no_file_chosen_is_said_at_the_field(browser):
    response = browser.post(
        "/tachograaf/upload",
        data={"csrf_token": token_of(browser)},
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    assert "Kies een of meer tachograafbestanden." in text_of(response)


def test_one_file_per_request_answers_json_for_the_progress_bars(app, browser, carrier):
    first = upload(browser, ("kaart.DDD", CARD), path=JSON_UPLOAD)
    again = upload(browser, ("kaart.DDD", CARD), path=JSON_UPLOAD)
    refused = upload(browser, ("foto.png", PNG), path=JSON_UPLOAD)

    assert first.status_code == 201
    assert first.get_json()["resultaat"] == "nieuw"
    assert first.get_json()["soort"] == "Bestuurderskaart"
    assert first.get_json()["url"].startswith("/tachograaf/")
    assert again.status_code == 200
    assert again.get_json()["resultaat"] == "dubbel"
    assert "al eerder geüpload" in again.get_json()["bericht"]
    assert refused.status_code == 422
    assert refused.get_json()["resultaat"] == "fout"
    assert refused.get_json()["bericht"].startswith("Geen tachograafbestand")


def test_the_form_tells_the_script_where_one_file_goes(browser):
    html = html_of(browser.get("/tachograaf"))
    assert f'data-upload-url="{JSON_UPLOAD}"' in html
    assert 'action="/tachograaf/upload"' in html


def test_the_page_upload_answers_html_whatever_the_request_accepts(browser):
    response = upload(browser, ("kaart.DDD", CARD), headers={"Accept": "application/json"})
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert "Geüpload als Bestuurderskaart." in text_of(response)


def test_the_json_upload_without_a_file_or_token_is_refused(browser):
    response = browser.post(
        JSON_UPLOAD, data={"csrf_token": token_of(browser)}, content_type="multipart/form-data"
    )
    assert response.status_code == 422
    assert response.get_json() == {
        "resultaat": "fout",
        "bericht": "Kies een of meer tachograafbestanden.",
    }
    response = browser.post(
        JSON_UPLOAD,
        data={"bestanden": [(io.BytesIO(CARD), "kaart.DDD")]},
        content_type="multipart/form-data",
    )
    assert response.status_code == 400


def test_a_json_upload_over_the_request_limit_answers_413_in_json(app, browser):
    token = token_of(browser)
    app.config["MAX_CONTENT_LENGTH"] = 10_000
    response = browser.post(
        JSON_UPLOAD,
        data={"csrf_token": token, "bestanden": [(io.BytesIO(bytes(20_000)), "a.ddd")]},
        content_type="multipart/form-data",
    )
    assert response.status_code == 413
    assert response.get_json()["resultaat"] == "fout"
    assert "Te veel tegelijk" in response.get_json()["bericht"]


def test_a_refused_company_card_says_what_it_is(browser):
    response = upload(browser, ("bedrijf.DDD", card_file(card_type=4)))
    assert "dit is de download van een bedrijfskaart" in text_of(response)


def test_a_file_over_the_limit_is_refused_with_the_limit(app, browser):
    app.config["FILE_MAX_BYTES"] = 1536
    assert "tot 1,5 kB per bestand" in text_of(browser.get("/tachograaf"))
    response = upload(browser, ("groot.DDD", CARD))
    assert "Te groot: een tachograafbestand is hooguit 1,5 kB." in text_of(response)


def test_a_request_over_the_request_limit_is_refused_plainly(app, browser):
    token = token_of(browser)
    app.config["MAX_CONTENT_LENGTH"] = 10_000
    response = browser.post(
        "/tachograaf/upload",
        data={"csrf_token": token, "bestanden": [(io.BytesIO(bytes(20_000)), "a.ddd")]},
        content_type="multipart/form-data",
    )
    assert response.status_code == 413
    assert "Te veel tegelijk" in text_of(response)


def test_the_upload_links_the_chosen_driver_and_vehicle(app, browser, carrier):
    driver = create_driver(app, carrier, "Piet Bakker")
    vehicle = create_vehicle(app, carrier, "VZH-56-E")
    upload(browser, ("kaart.DDD", CARD), chauffeur=str(driver.id), voertuig=str(vehicle.id))

    html = text_of(browser.get("/tachograaf"))
    assert "Piet Bakker" in html
    assert "VZH-56-E" in html


def test_an_upload_without_a_csrf_token_is_refused(browser):
    response = browser.post(
        "/tachograaf/upload",
        data={"bestanden": [(io.BytesIO(CARD), "kaart.DDD")]},
        content_type="multipart/form-data",
    )
    assert response.status_code == 400


# --- the list --------------------------------------------------------------------------------


def test_the_list_shows_kind_holder_period_and_uploader(browser, planner):
    upload(browser, ("C_NB00000123456700.DDD", CARD))
    html = text_of(browser.get("/tachograaf"))
    assert "Bestuurderskaart" in html
    assert "C_NB00000123456700.DDD" in html
    assert "JAN DE VRIES" in html  # the name on the card, not linked to a driver yet
    assert f"1 okt 2026 {DASH} 28 okt 2026" in html
    assert "Downloaden" in html


def test_the_filters_narrow_the_list_and_htmx_gets_the_region(app, browser, carrier):
    driver = create_driver(app, carrier, "Henk Jansen")
    upload(browser, ("kaart.DDD", CARD), chauffeur=str(driver.id))
    upload(browser, ("voertuig.DDD", VU))

    assert "voertuig.DDD" not in text_of(browser.get(f"/tachograaf?chauffeur={driver.id}"))
    only_vu = text_of(browser.get("/tachograaf?soort=voertuigeenheid"))
    assert "voertuig.DDD" in only_vu and "kaart.DDD" not in only_vu
    in_november = text_of(browser.get("/tachograaf?van=2026-11-03&tot=2026-11-04"))
    assert "voertuig.DDD" in in_november and "kaart.DDD" not in in_november

    fragment = browser.get("/tachograaf?soort=bestuurderskaart", headers={"HX-Request": "true"})
    assert fragment.status_code == 200
    assert fragment.get_data(as_text=True).lstrip().startswith("{#") is False
    assert 'id="tacho-results"' in fragment.get_data(as_text=True)
    assert "<html" not in fragment.get_data(as_text=True)
    assert fragment.headers["HX-Push-Url"] == "/tachograaf?soort=bestuurderskaart"


def test_an_empty_selection_says_so_and_a_reversed_period_is_pointed_out(browser):
    upload(browser, ("kaart.DDD", CARD))
    html = text_of(browser.get("/tachograaf?van=2027-01-01"))
    assert "Geen bestanden gevonden." in html
    html = text_of(browser.get("/tachograaf?van=2026-11-05&tot=2026-11-01"))
    assert "De einddatum ligt voor de begindatum." in html


def test_the_list_pages(app, browser, monkeypatch):
    from portal.tacho.pages import upload as upload_views

    monkeypatch.setattr(upload_views, "PAGE_SIZE", 2)
    for n in range(5):
        upload(browser, (f"kaart-{n}.DDD", card_file(days=2 + n)))
    html = text_of(browser.get("/tachograaf"))
    assert "kaart-4.DDD" in html and "kaart-3.DDD" in html and "kaart-2.DDD" not in html
    assert "Pagina 1 van 3" in html
    html = text_of(browser.get("/tachograaf?pagina=3"))
    assert "kaart-0.DDD" in html and "kaart-1.DDD" not in html


def test_the_list_runs_a_fixed_number_of_queries(app, browser, carrier, count_queries):
    driver = create_driver(app, carrier)
    vehicle = create_vehicle(app, carrier)
    upload(
        browser, ("a.DDD", card_file(days=3)), chauffeur=str(driver.id), voertuig=str(vehicle.id)
    )
    with count_queries() as counted:
        browser.get("/tachograaf")
    few = counted.count
    for n in range(4):
        upload(
            browser,
            (f"b{n}.DDD", card_file(days=5 + n)),
            chauffeur=str(driver.id),
            voertuig=str(vehicle.id),
        )
    with count_queries() as counted:
        browser.get("/tachograaf")
    assert counted.count == few


# --- one file ----------------------------------------------------------------------------------


def _first_file(app, carrier) -> uuid.UUID:
    return file_ids(app, carrier)[0]


def test_a_files_page_shows_what_it_is(app, browser, carrier):
    upload(browser, ("kaart.DDD", CARD))
    file_id = _first_file(app, carrier)
    html = text_of(browser.get(f"/tachograaf/{file_id}"))
    assert "NB00000123456700" in html
    assert "JAN DE VRIES" in html
    assert "Digitale tachograaf (1e generatie)" in html
    assert f"1 okt 2026 {DASH} 28 okt 2026" in html
    assert "Geüpload" in html  # in the history
    assert "Periode opslaan" not in html  # the card states its own period


def test_linking_and_unlinking_on_the_files_page(app, browser, carrier):
    driver = create_driver(app, carrier, "Anna de Boer")
    vehicle = create_vehicle(app, carrier, "BX-34-CD")
    upload(browser, ("kaart.DDD", CARD))
    file_id = _first_file(app, carrier)
    page = f"/tachograaf/{file_id}"

    response = browser.post(
        f"{page}/koppelen",
        data={
            "csrf_token": token_of(browser, page),
            "chauffeur": str(driver.id),
            "voertuig": str(vehicle.id),
        },
    )
    assert response.status_code == 303
    html = text_of(browser.get(page))
    assert "De koppeling is opgeslagen." in html
    assert "Ontkoppel Anna de Boer" in html and "Ontkoppel BX-34-CD" in html
    assert "Koppeling gewijzigd" in html

    browser.post(f"{page}/koppelen", data={"csrf_token": token_of(browser, page), "chauffeur": ""})
    html = text_of(browser.get(page))
    assert "Ontkoppel Anna de Boer" not in html
    assert "Ontkoppel BX-34-CD" in html  # the vehicle stays

    bad = browser.post(
        f"{page}/koppelen",
        data={"csrf_token": token_of(browser, page), "chauffeur": str(uuid.uuid4())},
    )
    assert bad.status_code == 422
    assert "Kies uit de lijst." in text_of(bad)


def test_a_file_without_its_own_period_gets_one(app, browser, carrier):
    upload(browser, ("overzicht.DDD", overview_1("WDB9634031L123456", "45BLK6", date(2026, 12, 1))))
    file_id = _first_file(app, carrier)
    page = f"/tachograaf/{file_id}"
    assert "Periode opslaan" in text_of(browser.get(page))

    half = browser.post(
        f"{page}/periode", data={"csrf_token": token_of(browser, page), "van": "2026-11-01"}
    )
    assert half.status_code == 422
    assert "Vul beide dagen in, of laat beide leeg." in text_of(half)

    done = browser.post(
        f"{page}/periode",
        data={"csrf_token": token_of(browser, page), "van": "2026-11-01", "tot": "2026-11-30"},
    )
    assert done.status_code == 303
    html = text_of(browser.get(page))
    assert f"1 nov 2026 {DASH} 30 nov 2026" in html
    assert "ingevuld door een planner" in html


def test_a_download_link_is_made_for_the_chosen_time_and_works_without_signing_in(
    app, browser, carrier
):
    upload(browser, ("kaart.DDD", CARD))
    page = f"/tachograaf/{_first_file(app, carrier)}"
    response = browser.post(
        f"{page}/downloadlink", data={"csrf_token": token_of(browser, page), "geldigheid": "86400"}
    )
    assert response.status_code == 200
    html = html_of(response)
    assert "Geldig tot" in html
    link = re.search(r'id="shared-url" value="([^"]+)"', html).group(1).replace("&amp;", "&")
    assert link.startswith("http://localhost/bestanden/")
    assert "Downloadlink gemaakt" in html  # in the history

    anonymous = app.test_client()
    download = anonymous.get(urlsplit(link).path + "?" + urlsplit(link).query, buffered=True)
    assert download.status_code == 200
    assert download.data == CARD

    refused = browser.post(
        f"{page}/downloadlink", data={"csrf_token": token_of(browser, page), "geldigheid": "5"}
    )
    assert refused.status_code == 422


def test_the_download_button_gives_the_bytes(app, browser, carrier):
    upload(browser, ("kaart.DDD", CARD))
    file_id = _first_file(app, carrier)
    response = browser.get(f"/tachograaf/{file_id}/download")
    assert response.status_code == 303
    target = response.headers["Location"]
    assert target.startswith("/bestanden/")
    download = browser.get(target, buffered=True)
    assert download.data == CARD
    assert "kaart.DDD" in download.headers["Content-Disposition"]


def test_another_carriers_file_is_404_on_every_page(app, client, carrier, other_carrier, planner):
    other_planner = create_user(app, other_carrier)
    login(client, other_planner)
    upload(client, ("kaart.DDD", CARD))
    theirs = _first_file(app, other_carrier)
    client.post("/logout", data={"csrf_token": token_of(client)})
    login(client, planner)
    base = f"/tachograaf/{theirs}"
    for path in (base, f"{base}/download"):
        assert client.get(path).status_code == 404, path
    for path in (f"{base}/koppelen", f"{base}/periode", f"{base}/downloadlink"):
        assert client.post(path, data={}).status_code == 404, path


EDGES = ("0001-01-01", "9999-12-31", "1999-12-31", "2100-01-01")


@pytest.mark.parametrize("day", EDGES)
def test_dates_at_the_calendars_edges_are_refused_at_the_field_not_a_500(
    app, browser, carrier, driver, day
):
    """Every date filter of the portal: a day outside 2000-2099 is named at its field."""
    pages = [
        f"/tachograaf?van={day}",
        f"/tachograaf?tot={day}",
        f"/rijtijden/overtredingen?van={day}",
        f"/rijtijden/overtredingen?tot={day}",
        f"/taken?datum={day}",
        f"/taken?weergave=status&van={day}",
        f"/taken?weergave=status&tot={day}",
        f"/chauffeurs/{driver.id}/rit?datum={day}",
    ]
    for page in pages:
        response = browser.get(page)
        assert response.status_code in (200, 422), page
        assert "Kies een datum tussen 2000 en 2099." in text_of(response), page

    upload(browser, ("overzicht.DDD", overview_1("WDB9634031L123456", "45BLK6", date(2026, 12, 1))))
    file_page = f"/tachograaf/{_first_file(app, carrier)}"
    refused = browser.post(
        f"{file_page}/periode",
        data={"csrf_token": token_of(browser, file_page), "van": "2026-11-01", "tot": day},
    )
    assert refused.status_code == 422
    assert "Kies een datum tussen 2000 en 2099." in text_of(refused)
    assert "Periode opslaan" in text_of(browser.get(file_page))  # nothing stored
