"""Each role lands on its first allowed section, sees only the sections it may open, and a
forbidden page explains itself and leads somewhere useful."""

from __future__ import annotations

import re

import pytest
from factories import create_user, csrf_from, login

ALL_SECTIONS = [
    "/taken",
    "/reeksen",
    "/planning/voorstellen",
    "/klanten",
    "/facturatie",
    "/vragenlijsten",
    "/antwoorden",
    "/chauffeurs",
    "/voertuigen",
    "/uren",
    "/tachograaf",
    "/berichten",
    "/beheer",
]
EXPECTED = {
    "planner": ("/taken", [s for s in ALL_SECTIONS if s != "/beheer"]),
    "author": ("/vragenlijsten", ["/vragenlijsten", "/antwoorden"]),
    "admin": ("/taken", ALL_SECTIONS),
}


def nav_links(html: str) -> list[str]:
    """The section links of the bar (the wide list; the phone menu holds the same)."""
    bar = html[html.index('class="nav-sections"') : html.index('class="nav-tools"')]
    return re.findall(r'<li class="nav-section"><a href="([^"]+)"', bar)


def menu_links(html: str) -> list[str]:
    menu = html[html.index('class="dropdown nav-menu"') : html.index("</details>")]
    return re.findall(r'<a href="([^"]+)"', menu)


@pytest.mark.parametrize("rol", ["planner", "author", "admin"])
def test_each_role_lands_on_its_first_allowed_section(app, client, carrier, rol):
    response = login(client, create_user(app, carrier, rol))
    assert response.status_code == 303
    assert response.headers["Location"] == EXPECTED[rol][0]
    assert client.get(EXPECTED[rol][0]).status_code == 200
    # Signed in already, the sign-in page and the site's root send them there too.
    assert client.get("/login").headers["Location"] == EXPECTED[rol][0]
    assert client.get("/").headers["Location"] == EXPECTED[rol][0]


def test_the_root_sends_a_visitor_to_sign_in_without_a_detour(client):
    assert client.get("/").headers["Location"] == "/login"


@pytest.mark.parametrize("rol", ["planner", "author", "admin"])
def test_the_navigation_shows_exactly_the_sections_the_role_may_open(app, client, carrier, rol):
    login(client, create_user(app, carrier, rol))
    html = client.get(EXPECTED[rol][0]).get_data(as_text=True)
    assert nav_links(html) == EXPECTED[rol][1]
    assert menu_links(html) == EXPECTED[rol][1]
    for path in ALL_SECTIONS:
        expected = 200 if path in EXPECTED[rol][1] else 403
        assert client.get(path).status_code == expected, path


def test_the_brand_leads_to_the_landing_section(app, client, carrier):
    login(client, create_user(app, carrier, "author"))
    html = client.get("/vragenlijsten").get_data(as_text=True)
    assert '<a href="/vragenlijsten" class="brand">' in html


def test_a_forbidden_page_explains_and_links_to_the_landing_section(app, client, carrier):
    login(client, create_user(app, carrier, "author"))
    response = client.get("/taken")
    html = response.get_data(as_text=True)
    assert response.status_code == 403
    assert "Deze pagina is voor planners." in html
    assert "Je bent aangemeld als auteur" in html
    assert 'href="/vragenlijsten"' in html and "Naar Vragenlijsten" in html
    main = html[html.index('<main id="main"') :]
    assert 'href="/taken"' not in main  # not back to the page that refused


def test_the_forbidden_page_reads_in_english(app, client, carrier):
    login(client, create_user(app, carrier, "planner"))
    token = csrf_from(client.get("/taken").get_data(as_text=True))
    client.post("/taal", data={"taal": "en", "next": "/taken", "csrf_token": token})
    html = client.get("/beheer").get_data(as_text=True)
    assert "This page is for admins." in html
    assert "You are signed in as planner" in html
    assert "Go to Tasks" in html


def test_an_author_reads_the_answers(app, client, carrier):
    login(client, create_user(app, carrier, "author"))
    assert client.get("/antwoorden").status_code == 200


def test_the_not_found_page_leads_to_the_landing_section(app, client, carrier):
    login(client, create_user(app, carrier, "author"))
    html = client.get("/bestaat-niet").get_data(as_text=True)
    assert "Naar Vragenlijsten" in html
