"""The planners' vehicle pages: list, create and edit with errors at the field, deactivation
and QR rotation after confirmation, the sticker sheet, and who drives what."""

from __future__ import annotations

import re
import uuid

import pytest
from factories import create_driver, create_user, csrf_from, driver_token, in_carrier, login


@pytest.fixture
def browser(client, planner):
    login(client, planner)
    return client


def form_token(browser, path: str) -> str:
    return csrf_from(browser.get(path).get_data(as_text=True))


def post_form(browser, path: str, data: dict, form_path: str | None = None):
    token = form_token(browser, form_path or path)
    return browser.post(path, data={"csrf_token": token, **data})


def field_error(html: str, field: str) -> str:
    match = re.search(rf'id="{field}-error"[^>]*>([^<]+)<', html)
    return match.group(1) if match else ""


# --- access ---------------------------------------------------------------------------


def test_only_planners_see_the_vehicle_pages(app, client, carrier):
    assert client.get("/voertuigen").status_code == 302  # to the sign-in page
    author = create_user(app, carrier, "author")
    login(client, author)
    for path in ("/voertuigen", "/voertuigen/nieuw", "/voertuigen/sessies", "/voertuigen/qr"):
        assert client.get(path).status_code == 403, path


def test_an_empty_list_says_what_to_do(browser):
    html = browser.get("/voertuigen").get_data(as_text=True)
    assert "Nog geen voertuigen." in html and "Voertuig toevoegen" in html
    assert 'aria-current="page">Voertuigen<' in html  # the navigation points at this section


TRACTOR = "opleggertrekker"


# --- create ---------------------------------------------------------------------------


def test_a_planner_adds_a_vehicle_and_its_plate_is_painted(browser, app, carrier):
    response = post_form(
        browser,
        "/voertuigen/nieuw",
        {
            "kenteken": "vzh 56 e",
            "soort": "opleggertrekker",
            "omschrijving": "DAF XF 480",
            "capaciteit": "30,5",
            "capaciteit_eenheid": "ton",
            "kenmerk_kooiaap": "y",
            "opmerkingen": "APK in maart",
        },
    )
    assert response.status_code == 303
    page = browser.get(response.headers["Location"])
    html = page.get_data(as_text=True)
    assert "Voertuig VZH-56-E is toegevoegd" in html
    assert "VZH-56-E" in html and "Opleggertrekker" in html
    assert "30,5 ton" in html and "Kooiaap (meeneemheftruck)" in html
    assert "APK in maart" in html and "Aangemaakt" in html  # the change history


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"kenteken": ""}, "kenteken", "Vul het kenteken in."),
        ({"kenteken": "DE-HH-1234"}, "kenteken", "6 letters en cijfers"),
        ({"kenteken": "AB-1C-2D"}, "kenteken", "geen Nederlands kenteken"),
        ({"kenteken": "BX*12*LP"}, "kenteken", "alleen letters, cijfers en streepjes"),
        ({"kenteken": "BX-12-LP", "capaciteit": "30"}, "capaciteit_eenheid", "eenheid"),
        ({"kenteken": "BX-12-LP", "capaciteit_eenheid": "ton"}, "capaciteit", "capaciteit in"),
        (
            {"kenteken": "BX-12-LP", "capaciteit": "dertig", "capaciteit_eenheid": "ton"},
            "capaciteit",
            "Vul een getal in",
        ),
        (
            {"kenteken": "BX-12-LP", "capaciteit": "-3", "capaciteit_eenheid": "ton"},
            "capaciteit",
            "groter dan 0",
        ),
        ({"kenteken": "BX-12-LP", "soort": "raket"}, "soort", "Ongeldige keuze"),
        ({"kenteken": "BX-12-LP", "omschrijving": "x" * 201}, "omschrijving", "200"),
    ],
)
def test_a_bad_field_is_shown_at_the_field_and_nothing_is_saved(browser, app, carrier, data,
                                                                field, message):  # fmt: skip
    from portal.fleet import service

    response = post_form(browser, "/voertuigen/nieuw", {"soort": "vrachtwagen", **data})
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert message in field_error(html, field), field_error(html, field) or html
    assert "Het voertuig is niet opgeslagen" in html
    assert 'aria-invalid="true"' in html
    count = in_carrier(app, carrier.id, lambda: len(service.list_vehicles(carrier_id=carrier.id)))
    assert count == 0


def test_a_plate_the_carrier_has_is_refused_also_written_differently(browser, app, carrier,
                                                                     make_vehicle):  # fmt: skip
    from portal.audit.service import SYSTEM
    from portal.fleet import service

    make_vehicle(carrier, "BX-12-LP")
    response = post_form(browser, "/voertuigen/nieuw", {"kenteken": "bx12lp", "soort": TRACTOR})
    assert response.status_code == 422
    assert "Er is al een voertuig met kenteken BX-12-LP." in field_error(
        response.get_data(as_text=True), "kenteken"
    )
    parked = make_vehicle(carrier, "VZH-56-E")
    in_carrier(
        app,
        carrier.id,
        lambda: service.set_active(
            carrier_id=carrier.id, vehicle_id=parked.id, actief=False, actor=SYSTEM
        ),
    )
    again = post_form(browser, "/voertuigen/nieuw", {"kenteken": "vzh56e", "soort": TRACTOR})
    assert "gedeactiveerd voertuig met kenteken VZH-56-E" in field_error(
        again.get_data(as_text=True), "kenteken"
    )


def test_another_carrier_may_have_the_same_plate(browser, other_carrier, make_vehicle):
    make_vehicle(other_carrier, "BX-12-LP")
    response = post_form(browser, "/voertuigen/nieuw", {"kenteken": "BX-12-LP", "soort": TRACTOR})
    assert response.status_code == 303


def test_without_a_csrf_token_nothing_is_created(browser, app, carrier):
    from portal.fleet import service

    response = browser.post("/voertuigen/nieuw", data={"kenteken": "BX-12-LP"})
    assert response.status_code == 400
    count = in_carrier(app, carrier.id, lambda: len(service.list_vehicles(carrier_id=carrier.id)))
    assert count == 0


# --- the list -------------------------------------------------------------------------


def test_the_list_searches_filters_and_shows_who_drives(browser, app, client, carrier, driver,
                                                        make_vehicle, payload_of,
                                                        calls):  # fmt: skip
    from portal.audit.service import SYSTEM
    from portal.fleet import service

    make_vehicle(carrier, "BX-12-LP", soort="oplegger", omschrijving="Mesttank")
    truck = make_vehicle(carrier, "VZH-56-E", soort="opleggertrekker", kooiaap=True)
    old = make_vehicle(carrier, "12-BLK-3")
    in_carrier(
        app,
        carrier.id,
        lambda: service.set_active(carrier_id=carrier.id, vehicle_id=old.id, actief=False,
                                   actor=SYSTEM),
    )  # fmt: skip
    calls.active(driver_token(client, driver), payload_of(truck))

    html = browser.get("/voertuigen").get_data(as_text=True)
    assert "2 actieve voertuigen" in html
    assert html.index("BX-12-LP") < html.index("VZH-56-E")  # by plate
    assert "12-BLK-3" not in html
    row = re.search(rf'<tr id="vehicle-{truck.id}">.*?</tr>', html, re.S).group(0)
    assert "Jan Chauffeur" in row and "sinds" in row

    found = browser.get("/voertuigen?q=bx12").get_data(as_text=True)
    assert "BX-12-LP" in found and "VZH-56-E" not in found and "1 voertuig gevonden" in found
    assert "Mesttank" in browser.get("/voertuigen?q=mesttank").get_data(as_text=True)
    inactive = browser.get("/voertuigen?status=inactief").get_data(as_text=True)
    assert "12-BLK-3" in inactive and "BX-12-LP" not in inactive
    every = browser.get("/voertuigen?status=alle").get_data(as_text=True)
    assert "3 voertuigen gevonden" in every
    trekkers = browser.get("/voertuigen?soort=opleggertrekker").get_data(as_text=True)
    assert "VZH-56-E" in trekkers and "Kooiaap" in trekkers and "BX-12-LP" not in trekkers
    nothing = browser.get("/voertuigen?q=zzz").get_data(as_text=True)
    assert "Geen voertuigen gevonden." in nothing


def test_the_filter_form_refreshes_only_the_results_through_htmx(browser, carrier, make_vehicle):
    make_vehicle(carrier, "BX-12-LP")
    response = browser.get("/voertuigen?q=bx&status=alle", headers={"HX-Request": "true"})
    html = response.get_data(as_text=True)
    assert html.lstrip().startswith('<div id="vehicle-results"')
    assert "<html" not in html
    assert response.headers["HX-Push-Url"] == "/voertuigen?q=bx&status=alle"
    assert "HX-Request" in response.headers["Vary"]


def test_the_list_pages_by_fifty(browser, app, carrier):
    from portal.fleet import service

    def many():
        for n in range(52):
            service.create_vehicle(carrier_id=carrier.id, kenteken=f"BX-{n:02d}-LP")

    in_carrier(app, carrier.id, many)
    first = browser.get("/voertuigen").get_data(as_text=True)
    assert "BX-49-LP" in first and "BX-50-LP" not in first
    assert "Pagina 1 van 2" in first and "1\u201350 getoond" in first
    second = browser.get("/voertuigen?pagina=2").get_data(as_text=True)
    assert "BX-50-LP" in second and "BX-51-LP" in second and "BX-49-LP" not in second


def test_the_list_runs_a_fixed_number_of_queries(browser, app, client, carrier, make_vehicle,
                                                 payload_of, calls, count_queries):  # fmt: skip
    def add(n: int) -> None:
        vehicle = make_vehicle(carrier, f"BX-{n:02d}-LP")
        driver = create_driver(app, carrier, f"Chauffeur {n}")
        calls.active(driver_token(client, driver), payload_of(vehicle))

    def run(path: str) -> int:
        browser.get(path)
        with count_queries() as counter:
            assert browser.get(path).status_code == 200
        return counter.count

    for n in range(2):
        add(n)
    few = {path: run(path) for path in ("/voertuigen", "/voertuigen/sessies", "/voertuigen/qr")}
    for n in range(2, 14):
        add(n)
    for path, count in few.items():
        assert run(path) == count, path


# --- edit -----------------------------------------------------------------------------


def test_editing_keeps_the_version_and_a_stale_one_is_refused(browser, app, carrier,
                                                              make_vehicle):  # fmt: skip
    from portal.audit.service import SYSTEM
    from portal.fleet import service

    tank = make_vehicle(carrier, "BX-12-LP", soort="oplegger")
    path = f"/voertuigen/{tank.id}/bewerken"
    form = browser.get(path).get_data(as_text=True)
    assert 'value="BX-12-LP"' in form and 'name="versie" type="hidden" value="1"' in form
    token = csrf_from(form)
    # Someone else saves first.
    in_carrier(
        app,
        carrier.id,
        lambda: service.update_vehicle(carrier_id=carrier.id, vehicle_id=tank.id,
                                       data={"omschrijving": "Ander"}, actor=SYSTEM),
    )  # fmt: skip
    data = {"csrf_token": token, "kenteken": "BX-12-LP", "soort": "oplegger", "versie": "1",
            "omschrijving": "Mijne"}  # fmt: skip
    stale = browser.post(path, data=data)
    assert stale.status_code == 412
    html = stale.get_data(as_text=True)
    assert "intussen gewijzigd" in html and 'value="Mijne"' in html
    assert 'name="versie" type="hidden" value="2"' in html
    again = browser.post(path, data={**data, "versie": "2"})
    assert again.status_code == 303
    row = in_carrier(
        app,
        carrier.id,
        lambda: service.get_vehicle(carrier_id=carrier.id, vehicle_id=tank.id).omschrijving,
    )
    assert row == "Mijne"
    page = browser.get(f"/voertuigen/{tank.id}").get_data(as_text=True)
    assert "<del>Ander</del> → <ins>Mijne</ins>" in page


def test_editing_to_a_plate_in_use_is_an_error_at_the_field(browser, carrier, make_vehicle):
    make_vehicle(carrier, "VZH-56-E")
    tank = make_vehicle(carrier, "BX-12-LP")
    path = f"/voertuigen/{tank.id}/bewerken"
    response = post_form(browser, path, {"kenteken": "vzh-56e", "soort": "oplegger", "versie": "1"})
    assert response.status_code == 422
    assert "VZH-56-E" in field_error(response.get_data(as_text=True), "kenteken")


# --- deactivate, activate, rotate -----------------------------------------------------


def test_deactivating_asks_first_ends_the_session_and_keeps_the_history(
    browser, app, client, carrier, driver, make_vehicle, payload_of, calls, vehicle_row
):
    tank = make_vehicle(carrier, "BX-12-LP")
    calls.active(driver_token(client, driver), payload_of(tank))
    path = f"/voertuigen/{tank.id}/deactiveren"
    confirm = browser.get(path).get_data(as_text=True)
    assert "Voertuig BX-12-LP deactiveren?" in confirm
    assert "Jan Chauffeur rijdt nu met dit voertuig; die sessie wordt beëindigd." in confirm
    assert browser.post(path).status_code == 400  # no CSRF token: nothing happens
    assert vehicle_row(tank)["actief"] is True
    done = post_form(browser, path, {})
    assert done.status_code == 303
    assert vehicle_row(tank)["actief"] is False
    page = browser.get(done.headers["Location"]).get_data(as_text=True)
    assert "is gedeactiveerd" in page and "Weer actief maken" in page
    assert "voertuig gedeactiveerd" in page  # the session's end in the history
    assert "Jan Chauffeur" in page
    reactivate = post_form(
        browser, f"/voertuigen/{tank.id}/activeren", {}, form_path=done.headers["Location"]
    )
    assert reactivate.status_code == 303 and vehicle_row(tank)["actief"] is True


def test_rotating_the_qr_asks_first_and_the_old_sticker_stops_working(
    browser, client, carrier, driver, make_vehicle, payload_of, calls
):
    tank = make_vehicle(carrier, "BX-12-LP")
    old = payload_of(tank)
    path = f"/voertuigen/{tank.id}/qr-vernieuwen"
    confirm = browser.get(path).get_data(as_text=True)
    assert "Nieuwe QR-sticker voor BX-12-LP?" in confirm and "werkt daarna niet meer" in confirm
    done = post_form(browser, path, {})
    assert done.status_code == 303 and done.headers["Location"] == f"/voertuigen/{tank.id}/qr"
    sheet = browser.get(done.headers["Location"]).get_data(as_text=True)
    assert "Nieuwe QR-sticker (versie 2)" in sheet
    new = payload_of(tank)
    assert f'data-qr-payload="{new}"' in sheet and old not in sheet
    token = driver_token(client, driver)
    session_id = calls.start(token).get_json()["id"]
    assert calls.validate(token, session_id, old).get_json()["reden"] == "rotated"
    assert calls.validate(token, session_id, new).status_code == 200


# --- stickers -------------------------------------------------------------------------


def test_the_sticker_sheet_has_a_label_per_active_vehicle(browser, app, carrier, make_vehicle,
                                                          payload_of):  # fmt: skip
    from portal.audit.service import SYSTEM
    from portal.fleet import service

    tank = make_vehicle(carrier, "BX-12-LP", soort="oplegger")
    truck = make_vehicle(carrier, "VZH-56-E", soort="opleggertrekker")
    old = make_vehicle(carrier, "12-BLK-3")
    in_carrier(
        app,
        carrier.id,
        lambda: service.set_active(carrier_id=carrier.id, vehicle_id=old.id, actief=False,
                                   actor=SYSTEM),
    )  # fmt: skip
    html = browser.get("/voertuigen/qr").get_data(as_text=True)
    payloads = re.findall(r'data-qr-payload="([^"]+)"', html)
    assert payloads == [payload_of(tank), payload_of(truck)]
    assert html.count("<svg") == 2 and 'class="sticker-plate">BX-12-LP<' in html
    assert "Van der Berg Agrotransport" in html and "2 QR-stickers" in html
    assert "data-print" in html and "js/fleet.js" in html
    only = browser.get("/voertuigen/qr?soort=opleggertrekker").get_data(as_text=True)
    assert re.findall(r'data-qr-payload="([^"]+)"', only) == [payload_of(truck)]
    one = browser.get(f"/voertuigen/{tank.id}/qr").get_data(as_text=True)
    assert re.findall(r'data-qr-payload="([^"]+)"', one) == [payload_of(tank)]
    assert "QR-sticker van BX-12-LP" in one


# --- who drives what ------------------------------------------------------------------


def test_who_drives_what_and_the_history_per_driver_and_vehicle(
    browser, app, client, carrier, driver, make_vehicle, payload_of, calls
):
    tank = make_vehicle(carrier, "BX-12-LP")
    truck = make_vehicle(carrier, "VZH-56-E")
    jan = driver_token(client, driver)
    first = calls.active(jan, payload_of(truck))
    calls.end(jan, first)
    calls.active(jan, payload_of(tank))
    piet = create_driver(app, carrier, "Piet Bakker")
    calls.start(driver_token(client, piet))  # waiting for a scan

    html = browser.get("/voertuigen/sessies").get_data(as_text=True)
    now = re.search(r'<table class="striped fleet-current".*?</table>', html, re.S).group(0)
    assert "BX-12-LP" in now and "Jan Chauffeur" in now and "VZH-56-E" not in now
    assert "Wacht op scan" in html and "nog niet gescand" in html
    assert "door de chauffeur" in html

    mine = browser.get(f"/voertuigen/sessies?chauffeur={driver.id}").get_data(as_text=True)
    assert (
        "Sessies van Jan Chauffeur" in mine and "Piet Bakker" not in mine.split("Geschiedenis")[1]
    )
    assert "Naar de chauffeur" in mine
    per_vehicle = browser.get(f"/voertuigen/{truck.id}").get_data(as_text=True)
    assert "Jan Chauffeur" in per_vehicle and "Niemand." in per_vehicle
    assert browser.get("/voertuigen/sessies?chauffeur=zomaar").status_code == 200


def test_a_planner_ends_a_session_after_confirmation(browser, app, client, carrier, driver,
                                                     make_vehicle, payload_of, calls,
                                                     session_row):  # fmt: skip
    tank = make_vehicle(carrier, "BX-12-LP")
    session_id = calls.active(driver_token(client, driver), payload_of(tank))
    path = f"/voertuigen/sessies/{session_id}/beeindigen?terug=/voertuigen/{tank.id}"
    confirm = browser.get(path).get_data(as_text=True)
    assert "Sessie van Jan Chauffeur beëindigen?" in confirm and "BX-12-LP" in confirm
    done = post_form(browser, f"/voertuigen/sessies/{session_id}/beeindigen",
                     {"terug": f"/voertuigen/{tank.id}"}, form_path=path)  # fmt: skip
    assert done.status_code == 303 and done.headers["Location"] == f"/voertuigen/{tank.id}"
    row = session_row(carrier, session_id)
    assert row["status"] == "ended" and row["einde_reden"] == "kantoor"
    page = browser.get(done.headers["Location"]).get_data(as_text=True)
    assert "De sessie van Jan Chauffeur op BX-12-LP is beëindigd." in page
    assert "door kantoor" in page
    # An outside address to return to is not followed.
    again = post_form(
        browser,
        f"/voertuigen/sessies/{session_id}/beeindigen",
        {"terug": "https://example.com/"},
        form_path="/voertuigen/sessies",
    )
    assert again.headers["Location"] == "/voertuigen/sessies"


def test_another_carriers_vehicle_and_session_are_404(browser, app, client, other_carrier,
                                                      make_vehicle, payload_of, calls):  # fmt: skip
    theirs = make_vehicle(other_carrier, "BX-12-LP")
    sanne = create_driver(app, other_carrier, "Sanne Kuipers")
    session_id = calls.active(driver_token(client, sanne), payload_of(theirs))
    for path, post in (
        (f"/voertuigen/{theirs.id}", False),
        (f"/voertuigen/{theirs.id}/bewerken", True),
        (f"/voertuigen/{theirs.id}/qr", False),
        (f"/voertuigen/{theirs.id}/deactiveren", True),
        (f"/voertuigen/{theirs.id}/qr-vernieuwen", True),
        (f"/voertuigen/sessies/{session_id}/beeindigen", True),
        (f"/voertuigen/{uuid.uuid4()}", False),
    ):
        assert browser.get(path).status_code == 404, path
        if post:  # also without a CSRF token: the 404 comes first
            assert browser.post(path).status_code == 404, path
    assert browser.post(f"/voertuigen/{theirs.id}/activeren").status_code == 404
    html = browser.get("/voertuigen/sessies").get_data(as_text=True)
    assert "Sanne" not in html and "Op dit moment rijdt niemand." in html
