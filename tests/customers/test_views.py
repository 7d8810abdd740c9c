"""The planners' customer pages: the list with search and its empty state, create and edit
with errors at the field, places, deactivation and deletion after a confirmation."""

from __future__ import annotations

import re
import uuid

import pytest
from factories import create_user, csrf_from, login


@pytest.fixture
def browser(client, planner):
    login(client, planner)
    return client


def post_form(browser, path: str, data: dict, form_path: str | None = None):
    token = csrf_from(browser.get(form_path or path).get_data(as_text=True))
    return browser.post(path, data={"csrf_token": token, **data})


def field_error(html: str, field: str) -> str:
    match = re.search(rf'id="{field}-error"[^>]*>([^<]+)<', html)
    return match.group(1) if match else ""


def field_value(html: str, field: str) -> str:
    match = re.search(rf'<input[^>]*id="{field}"[^>]*value="([^"]*)"', html) or re.search(
        rf'<input[^>]*value="([^"]*)"[^>]*id="{field}"', html
    )
    return match.group(1) if match else ""


def test_only_planners_see_the_customer_pages(app, client, carrier):
    assert client.get("/klanten").status_code == 302  # to the sign-in page
    login(client, create_user(app, carrier, "author"))
    for path in ("/klanten", "/klanten/nieuw"):
        assert client.get(path).status_code == 403, path


def test_an_empty_list_says_what_to_do_and_the_navigation_has_the_section(browser):
    html = browser.get("/klanten").get_data(as_text=True)
    assert "Nog geen klanten." in html and "Klant toevoegen" in html
    assert 'aria-current="page">Klanten<' in html


def test_a_planner_adds_a_customer_and_then_its_places(browser):
    response = post_form(
        browser,
        "/klanten/nieuw",
        {
            "naam": "Maatschap Ter Horst",
            "debiteurnummer": "10023",
            "btw_nummer": "nl 123456789 b01",
            "factuur_email": "facturen@terhorst.nl",
            "opmerkingen": "",
        },
    )
    assert response.status_code == 303
    page = response.headers["Location"]
    html = browser.get(page).get_data(as_text=True)
    assert "Klant Maatschap Ter Horst is toegevoegd." in html
    assert "NL123456789B01" in html and "Nog geen laad- of losadressen." in html

    response = post_form(
        browser,
        f"{page}/locaties/nieuw",
        {
            "naam": "Erf Enter",
            "soort": "laden",
            "adres": "Hengelosestraat 12",
            "postcode": "7468ab",
            "stad": "Enter",
            "land": "NL",
            "locatie_lat": "52,2936",
            "locatie_lng": "6,5714",
            "openingstijden": "ma-vr 6:00-17:00",
            "contactpersoon": "Gerrit ter Horst",
            "telefoon": "06 12345678",
            "opmerkingen": "Via de achterste inrit, niet over het erf.",
        },
    )
    assert response.status_code == 303
    html = browser.get(page).get_data(as_text=True)
    assert "Locatie Erf Enter is toegevoegd." in html
    assert "Hengelosestraat 12, 7468 AB Enter" in html
    assert "Via de achterste inrit" in html and "52.29360" in html


def test_a_refused_form_keeps_what_was_typed_and_names_the_field(browser, carrier,
                                                                  make_customer):  # fmt: skip
    make_customer(carrier, "Eerste", debiteurnummer="10023")
    response = post_form(
        browser,
        "/klanten/nieuw",
        {
            "naam": "Tweede klant",
            "debiteurnummer": "10023",
            "btw_nummer": "NL12345",
            "factuur_email": "",
        },
    )
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "De klant is niet opgeslagen." in html
    assert field_error(html, "btw_nummer").startswith("Een Nederlands btw-nummer is NL")
    assert field_error(html, "debiteurnummer") == "Een andere klant heeft dit debiteurnummer al."
    assert field_value(html, "naam") == "Tweede klant"
    assert field_value(html, "btw_nummer") == "NL12345"


def test_a_place_with_one_coordinate_is_refused_at_the_other(browser, carrier, make_customer):
    customer = make_customer(carrier, "Klant")
    response = post_form(
        browser,
        f"/klanten/{customer.id}/locaties/nieuw",
        {"naam": "Erf", "soort": "beide", "land": "NL", "locatie_lat": "52,3"},
    )
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert field_error(html, "locatie_lng").startswith("Vul breedte- en lengtegraad allebei in")
    assert field_value(html, "locatie_lat") == "52,3"


def test_search_finds_a_customer_by_the_city_of_a_place(browser, carrier, make_customer):
    make_customer(carrier, "Maatschap Ter Horst", places=({"naam": "Erf", "stad": "Enter"},))
    make_customer(carrier, "De Heus Voeders", places=({"naam": "Fabriek", "stad": "Ede"},))
    html = browser.get("/klanten?q=enter").get_data(as_text=True)
    assert "Maatschap Ter Horst" in html and "De Heus Voeders" not in html
    assert "1 klant gevonden" in html
    fragment = browser.get("/klanten?q=ede", headers={"HX-Request": "true"})
    assert "De Heus Voeders" in fragment.get_data(as_text=True)
    assert "<html" not in fragment.get_data(as_text=True)
    assert "Geen klanten gevonden." in browser.get("/klanten?q=zwolle").get_data(as_text=True)


def test_the_list_is_sorted_by_name_and_paged(browser, carrier, make_customer):
    for n in range(52):
        make_customer(carrier, f"Klant {n:02d}")
    first = browser.get("/klanten").get_data(as_text=True)
    assert first.index("Klant 00") < first.index("Klant 01") and "Klant 50" not in first
    assert "Klant 51" in browser.get("/klanten?pagina=2").get_data(as_text=True)


def test_the_list_runs_a_fixed_number_of_queries(browser, carrier, make_customer,
                                                 count_queries):  # fmt: skip
    def run() -> int:
        browser.get("/klanten")
        with count_queries() as counter:
            assert browser.get("/klanten").status_code == 200
        return counter.count

    for n in range(2):
        make_customer(carrier, f"Klant {n}", places=({"naam": "Erf", "stad": "Enter"},))
    few = run()
    for n in range(2, 14):
        make_customer(carrier, f"Klant {n}", places=({"naam": "Erf"}, {"naam": "Silo"}))
    assert run() == few


def test_a_planner_edits_a_customer(browser, carrier, make_customer):
    customer = make_customer(carrier, "Ter Horst")
    form = browser.get(f"/klanten/{customer.id}/bewerken").get_data(as_text=True)
    assert field_value(form, "naam") == "Ter Horst"
    response = post_form(
        browser,
        f"/klanten/{customer.id}/bewerken",
        {"naam": "Maatschap Ter Horst", "btw_nummer": "DE123456789"},
    )
    assert response.status_code == 303
    html = browser.get(f"/klanten/{customer.id}").get_data(as_text=True)
    assert "Maatschap Ter Horst" in html and "DE123456789" in html


def test_a_planner_edits_and_removes_a_place(browser, carrier, make_customer, make_place):
    customer = make_customer(carrier, "Klant")
    place = make_place(customer, naam="Erf", stad="Enter")
    base = f"/klanten/{customer.id}/locaties/{place.id}"
    form = browser.get(f"{base}/bewerken").get_data(as_text=True)
    assert field_value(form, "stad") == "Enter"
    response = post_form(
        browser,
        f"{base}/bewerken",
        {"naam": "Erf Enter", "soort": "lossen", "land": "NL", "stad": "Enschede"},
    )
    assert response.status_code == 303
    html = browser.get(f"/klanten/{customer.id}").get_data(as_text=True)
    assert "Erf Enter" in html and "Enschede" in html and "Lossen" in html

    confirm = browser.get(f"{base}/verwijderen").get_data(as_text=True)
    assert "Locatie Erf Enter verwijderen?" in confirm
    assert post_form(browser, f"{base}/verwijderen", {}).status_code == 303
    html = browser.get(f"/klanten/{customer.id}").get_data(as_text=True)
    assert "Locatie Erf Enter is verwijderd." in html and "Nog geen laad- of losadressen." in html


def test_a_planner_deactivates_after_a_confirmation_and_activates_again(
    browser, carrier, make_customer
):
    customer = make_customer(carrier, "Oud-klant")
    page = f"/klanten/{customer.id}"
    confirm = browser.get(f"{page}/deactiveren").get_data(as_text=True)
    assert "Klant Oud-klant deactiveren?" in confirm and "Ja, deactiveer" in confirm
    assert post_form(browser, f"{page}/deactiveren", {}).status_code == 303
    html = browser.get(page).get_data(as_text=True)
    assert "Deze klant is gedeactiveerd." in html
    assert "Oud-klant" not in browser.get("/klanten").get_data(as_text=True)
    assert "Oud-klant" in browser.get("/klanten?status=inactief").get_data(as_text=True)
    assert post_form(browser, f"{page}/activeren", {}, form_path=page).status_code == 303
    assert "Klant Oud-klant is weer actief." in browser.get(page).get_data(as_text=True)


def test_a_planner_deletes_an_unused_customer_with_its_places(browser, carrier, make_customer):
    customer = make_customer(carrier, "Vergissing", places=({"naam": "Erf"},))
    confirm = browser.get(f"/klanten/{customer.id}/verwijderen").get_data(as_text=True)
    assert "De klant en zijn 1 locatie worden verwijderd." in confirm
    response = post_form(browser, f"/klanten/{customer.id}/verwijderen", {})
    assert response.status_code == 303 and response.headers["Location"] == "/klanten"
    assert browser.get(f"/klanten/{customer.id}").status_code == 404


def test_another_carriers_customer_is_404(browser, other_carrier, make_customer):
    foreign = make_customer(other_carrier, "Van een ander", places=({"naam": "Erf"},))
    assert browser.get(f"/klanten/{foreign.id}").status_code == 404
    assert browser.get(f"/klanten/{foreign.id}/bewerken").status_code == 404
    assert browser.post(f"/klanten/{foreign.id}/deactiveren").status_code == 404
    assert browser.get(f"/klanten/{uuid.uuid4()}/locaties/nieuw").status_code == 404
