"""The admin section (/beheer) as an admin meets it: users, invitations and password links,
API keys and the carrier's settings; only admins get in."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

import pytest
from factories import Ref, bearer, create_api_key, create_user, csrf_from, in_carrier, login
from sqlalchemy import select

from portal.accounts.models import SCOPES, ApiKey, User
from portal.audit.models import AuditEntry
from portal.extensions import db

PAGES = ("/beheer", "/beheer/gebruikers/nieuw", "/beheer/api-sleutels", "/beheer/instellingen")


@pytest.fixture
def admin(app, carrier):
    return create_user(app, carrier, "admin", email="els@example.nl")


@pytest.fixture
def as_admin(client, admin):
    login(client, admin)
    return client


def token_of(client, path: str = "/beheer") -> str:
    return csrf_from(client.get(path).get_data(as_text=True))


def link_in(html: str) -> str:
    match = re.search(
        r'id="password-link" type="text" value="http://localhost(/wachtwoord/[^"]+)"', html
    )
    assert match, "no password link on the page"
    return match.group(1)


def invite(client, email="nieuw@example.nl", rol="author", naam="Nina Nieuw"):
    return client.post(
        "/beheer/gebruikers/nieuw",
        data={"csrf_token": token_of(client), "naam": naam, "email": email, "rol": rol},
    )


def audited(app, carrier, action: str) -> int:
    return in_carrier(
        app,
        carrier.id,
        lambda: len(
            list(
                db.session.scalars(
                    select(AuditEntry).where(
                        AuditEntry.transporteur_id == carrier.id, AuditEntry.action == action
                    )
                )
            )
        ),
    )


# --- who may open it ------------------------------------------------------------------


@pytest.mark.parametrize("rol", ["planner", "author"])
def test_only_admins_may_open_the_admin_section(app, client, carrier, rol):
    login(client, create_user(app, carrier, rol))
    for path in PAGES:
        assert client.get(path).status_code == 403, path


def test_signed_out_the_admin_section_asks_to_sign_in(client):
    response = client.get("/beheer")
    assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_the_admin_section_is_built_not_a_stub(as_admin):
    html = as_admin.get("/beheer").get_data(as_text=True)
    assert "nog niet gebouwd" not in html
    assert "Gebruiker uitnodigen" in html and "API-sleutels" in html and "Instellingen" in html


# --- users ----------------------------------------------------------------------------


def test_the_user_list_shows_name_email_role_and_state(app, as_admin, carrier, admin):
    author = create_user(app, carrier, "author", email="auteur@example.nl")
    html = as_admin.get("/beheer").get_data(as_text=True)
    assert "auteur@example.nl" in html and "Auteur" in html and "Beheerder" in html
    assert f'href="/beheer/gebruikers/{author.id}"' in html


def test_inviting_shows_a_one_time_link_that_sets_the_password(app, as_admin, carrier):
    response = invite(as_admin)
    html = response.get_data(as_text=True)
    assert response.status_code == 201
    assert "Je ziet deze link maar één keer." in html
    assert response.headers["Cache-Control"] == "no-store"
    path = link_in(html)
    assert "Uitgenodigd" in as_admin.get("/beheer").get_data(as_text=True)

    newcomer = app.test_client()
    page = newcomer.get(path)
    assert page.status_code == 200 and "Welkom bij Rijplan" in page.get_data(as_text=True)
    done = newcomer.post(
        path,
        data={
            "csrf_token": csrf_from(page.get_data(as_text=True)),
            "password": "mijn eigen wachtwoord",
            "confirm": "mijn eigen wachtwoord",
        },
    )
    assert done.status_code == 303 and done.headers["Location"].startswith("/login")
    newcomer_ref = Ref(uuid.uuid4(), email="nieuw@example.nl")
    signed_in = login(newcomer, newcomer_ref, "mijn eigen wachtwoord")
    assert signed_in.headers["Location"] == "/vragenlijsten"  # an author's landing
    assert audited(app, carrier, "invited") == 1 and audited(app, carrier, "signed_up") == 1


def test_a_password_link_used_twice_says_it_no_longer_works(app, as_admin):
    path = link_in(invite(as_admin).get_data(as_text=True))
    visitor = app.test_client()
    token = csrf_from(visitor.get(path).get_data(as_text=True))
    form = {
        "csrf_token": token,
        "password": "mijn eigen wachtwoord",
        "confirm": "mijn eigen wachtwoord",
    }
    assert visitor.post(path, data=form).status_code == 303
    again = visitor.get(path)
    assert again.status_code == 404
    assert "Deze link werkt niet (meer)" in again.get_data(as_text=True)
    form["csrf_token"] = csrf_from(again.get_data(as_text=True))
    assert visitor.post(path, data=form).status_code == 404


def test_an_expired_password_link_says_it_expired(app, as_admin, carrier):
    path = link_in(invite(as_admin).get_data(as_text=True))

    def expire():
        user = db.session.scalar(select(User).where(User.email == "nieuw@example.nl"))
        user.link_verloopt_op -= timedelta(days=30)

    in_carrier(app, carrier.id, expire)
    response = app.test_client().get(path)
    assert response.status_code == 410
    assert "Deze link is verlopen" in response.get_data(as_text=True)
    assert "Uitnodiging verlopen" in as_admin.get("/beheer").get_data(as_text=True)


def test_the_password_form_says_what_is_wrong_at_the_field(app, as_admin):
    path = link_in(invite(as_admin).get_data(as_text=True))
    visitor = app.test_client()
    token = csrf_from(visitor.get(path).get_data(as_text=True))
    short = visitor.post(path, data={"csrf_token": token, "password": "kort", "confirm": "kort"})
    assert short.status_code == 422
    assert "Minstens 10 tekens." in short.get_data(as_text=True)
    unequal = visitor.post(
        path,
        data={"csrf_token": token, "password": "lang genoeg 123", "confirm": "anders 1234567"},
    )
    assert "De wachtwoorden zijn niet gelijk." in unequal.get_data(as_text=True)
    assert visitor.get(path).status_code == 200  # still usable after mistakes


def test_a_password_link_post_without_csrf_token_is_refused(app, as_admin):
    path = link_in(invite(as_admin).get_data(as_text=True))
    visitor = app.test_client()
    response = visitor.post(path, data={"password": "x" * 12, "confirm": "x" * 12})
    assert response.status_code in (400, 422)
    assert visitor.get(path).status_code == 200  # the link still works


def test_an_invitation_with_bad_input_shows_errors_at_the_fields_and_keeps_them(as_admin, admin):
    response = as_admin.post(
        "/beheer/gebruikers/nieuw",
        data={"csrf_token": token_of(as_admin), "naam": "", "email": "geen", "rol": "planner"},
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert 'id="naam-error"' in html and 'id="email-error"' in html
    assert 'value="geen"' in html
    taken = as_admin.post(
        "/beheer/gebruikers/nieuw",
        data={
            "csrf_token": token_of(as_admin),
            "naam": "Els",
            "email": admin.email,
            "rol": "admin",
        },
    )
    assert taken.status_code == 422
    assert "Dit e-mailadres heeft al een gebruiker" in taken.get_data(as_text=True)


def test_writes_without_a_csrf_token_are_refused(app, as_admin, carrier):
    other = create_user(app, carrier, "planner")
    for path in (
        "/beheer/gebruikers/nieuw",
        f"/beheer/gebruikers/{other.id}",
        f"/beheer/gebruikers/{other.id}/deactiveren",
        f"/beheer/gebruikers/{other.id}/afmelden",
        "/beheer/api-sleutels/nieuw",
        "/beheer/instellingen",
    ):
        assert as_admin.post(path, data={"naam": "x", "rol": "admin"}).status_code == 400, path
    assert as_admin.get(f"/beheer/gebruikers/{other.id}").status_code == 200


def test_another_carriers_user_and_key_are_404_for_every_method(app, as_admin, other_carrier):
    foreign_user = create_user(app, other_carrier, "admin")
    foreign_key = create_api_key(app, other_carrier)
    paths = [
        f"/beheer/gebruikers/{foreign_user.id}",
        f"/beheer/gebruikers/{foreign_user.id}/deactiveren",
        f"/beheer/gebruikers/{foreign_user.id}/activeren",
        f"/beheer/gebruikers/{foreign_user.id}/wachtwoordlink",
        f"/beheer/gebruikers/{foreign_user.id}/afmelden",
        f"/beheer/api-sleutels/{foreign_key.id}/intrekken",
        f"/beheer/gebruikers/{uuid.uuid4()}",
    ]
    token = token_of(as_admin)
    for path in paths:
        if not path.endswith("/activeren"):
            assert as_admin.get(path).status_code == 404, path
        assert as_admin.post(path, data={"csrf_token": token}).status_code == 404, path


def test_changing_name_and_role_is_saved_and_shown_in_the_history(app, as_admin, carrier):
    planner = create_user(app, carrier, "planner")
    response = as_admin.post(
        f"/beheer/gebruikers/{planner.id}",
        data={"csrf_token": token_of(as_admin), "naam": "Piet Plan", "rol": "author"},
    )
    assert response.status_code == 303
    html = as_admin.get(f"/beheer/gebruikers/{planner.id}").get_data(as_text=True)
    assert "Piet Plan" in html
    assert "Rol: Planner → Auteur" in html


def test_the_last_admin_can_not_demote_themselves(as_admin, admin):
    response = as_admin.post(
        f"/beheer/gebruikers/{admin.id}",
        data={"csrf_token": token_of(as_admin), "naam": "Els", "rol": "planner"},
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 409
    assert 'id="rol-error"' in html and "laatste actieve beheerder" in html
    assert as_admin.get("/beheer").status_code == 200  # still admin


def test_an_admin_can_not_deactivate_themselves(as_admin, admin):
    confirm = as_admin.get(f"/beheer/gebruikers/{admin.id}/deactiveren")
    html = confirm.get_data(as_text=True)
    assert "Je kunt jezelf niet deactiveren" in html and "Ja, deactiveren" not in html
    refused = as_admin.post(
        f"/beheer/gebruikers/{admin.id}/deactiveren", data={"csrf_token": token_of(as_admin)}
    )
    assert refused.status_code == 409
    assert "Je kunt jezelf niet deactiveren" in refused.get_data(as_text=True)
    assert as_admin.get("/beheer").status_code == 200


def test_deactivating_signs_the_user_out_and_refuses_their_sign_in(app, as_admin, carrier):
    planner = create_user(app, carrier, "planner")
    theirs = app.test_client()
    login(theirs, planner)
    assert theirs.get("/taken").status_code == 200
    confirm = as_admin.get(f"/beheer/gebruikers/{planner.id}/deactiveren")
    assert "Ja, deactiveren" in confirm.get_data(as_text=True)
    response = as_admin.post(
        f"/beheer/gebruikers/{planner.id}/deactiveren", data={"csrf_token": token_of(as_admin)}
    )
    assert response.status_code == 303
    assert theirs.get("/taken").status_code == 302
    assert login(app.test_client(), planner).status_code == 401
    assert "Gedeactiveerd" in as_admin.get("/beheer").get_data(as_text=True)
    assert audited(app, carrier, "deactivated") == 1


def test_sign_out_everywhere_ends_every_session_of_the_user(app, as_admin, carrier):
    planner = create_user(app, carrier, "planner")
    laptop, phone = app.test_client(), app.test_client()
    login(laptop, planner)
    login(phone, planner)
    response = as_admin.post(
        f"/beheer/gebruikers/{planner.id}/afmelden", data={"csrf_token": token_of(as_admin)}
    )
    assert response.status_code == 303
    assert laptop.get("/taken").status_code == 302 and phone.get("/taken").status_code == 302
    assert login(app.test_client(), planner).status_code == 303  # the password still works
    assert audited(app, carrier, "signed_out") == 1


def test_a_reset_link_lets_a_user_choose_a_new_password(app, as_admin, carrier):
    planner = create_user(app, carrier, "planner")
    confirm = as_admin.get(f"/beheer/gebruikers/{planner.id}/wachtwoordlink")
    assert "Het huidige wachtwoord blijft werken" in confirm.get_data(as_text=True)
    response = as_admin.post(
        f"/beheer/gebruikers/{planner.id}/wachtwoordlink", data={"csrf_token": token_of(as_admin)}
    )
    path = link_in(response.get_data(as_text=True))
    visitor = app.test_client()
    page = visitor.get(path)
    assert "Nieuw wachtwoord kiezen" in page.get_data(as_text=True)
    visitor.post(
        path,
        data={
            "csrf_token": csrf_from(page.get_data(as_text=True)),
            "password": "een nieuw wachtwoord",
            "confirm": "een nieuw wachtwoord",
        },
    )
    assert login(app.test_client(), planner).status_code == 401  # the old one is gone
    assert login(app.test_client(), planner, "een nieuw wachtwoord").status_code == 303


# --- API keys -------------------------------------------------------------------------


def test_a_new_key_is_shown_once_with_the_chosen_scopes(app, as_admin, carrier):
    form = as_admin.get("/beheer/api-sleutels/nieuw").get_data(as_text=True)
    for scope in SCOPES:
        assert f'value="{scope}"' in form, scope
    response = as_admin.post(
        "/beheer/api-sleutels/nieuw",
        data={"csrf_token": csrf_from(form), "naam": "TMS", "scopes": [SCOPES[0], SCOPES[-1]]},
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 201
    assert "je ziet hem maar één keer" in html
    plain = re.search(r'id="api-key-value" type="text" value="(rpk_[^"]+)"', html).group(1)
    stored = in_carrier(
        app,
        carrier.id,
        lambda: db.session.scalar(select(ApiKey).where(ApiKey.naam == "TMS")),
        lambda k: (k.scopes, k.prefix),
    )
    assert stored[0].split() == [SCOPES[0], SCOPES[-1]]
    listing = as_admin.get("/beheer/api-sleutels").get_data(as_text=True)
    assert stored[1] in listing and plain not in listing
    assert "nog nooit" in listing


def test_a_key_without_scopes_or_name_is_refused_at_the_fields(as_admin):
    response = as_admin.post(
        "/beheer/api-sleutels/nieuw", data={"csrf_token": token_of(as_admin), "naam": ""}
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Kies minstens één recht." in html and "Geef de sleutel een naam." in html


def test_a_used_key_shows_when_it_was_last_used(app, as_admin, api_key):
    app.test_client().get("/api/v1/openapi.json", headers=bearer(api_key.key))
    app.test_client().get(
        f"/api/v1/transporteurs/{api_key.carrier_id}/chauffeurs", headers=bearer(api_key.key)
    )
    html = as_admin.get("/beheer/api-sleutels").get_data(as_text=True)
    row = html[html.index(f'id="api-key-{api_key.id}"') :]
    row = row[: row.index("</tr>")]
    assert "nog nooit" not in row


def test_revoking_a_key_asks_first_and_then_the_key_stops_working(app, as_admin, carrier, api_key):
    confirm = as_admin.get(f"/beheer/api-sleutels/{api_key.id}/intrekken")
    assert "Ja, intrekken" in confirm.get_data(as_text=True)
    path = f"/api/v1/transporteurs/{carrier.id}/chauffeurs"
    assert app.test_client().get(path, headers=bearer(api_key.key)).status_code != 401
    response = as_admin.post(
        f"/beheer/api-sleutels/{api_key.id}/intrekken", data={"csrf_token": token_of(as_admin)}
    )
    assert response.status_code == 303
    assert app.test_client().get(path, headers=bearer(api_key.key)).status_code == 401
    assert "Ingetrokken op" in as_admin.get("/beheer/api-sleutels").get_data(as_text=True)
    assert audited(app, carrier, "revoked") == 1


# --- settings -------------------------------------------------------------------------


def settings_form(client, **changes):
    data = {
        "csrf_token": token_of(client, "/beheer/instellingen"),
        "naam": "Van der Berg Agrotransport",
        "tijdzone": "Europe/Amsterdam",
        "thuisbasis_straat": "Hengelosestraat 12",
        "thuisbasis_postcode": "7511 je",
        "thuisbasis_plaats": "Enschede",
        "thuisbasis_land": "NL",
        "thuisbasis_lat": "52,2215",
        "thuisbasis_lng": "6,8937",
    }
    return client.post("/beheer/instellingen", data={**data, **changes})


def test_settings_are_saved_and_shown(as_admin, app, carrier):
    response = settings_form(as_admin, naam="Van der Berg Agro")
    assert response.status_code == 303
    html = as_admin.get("/beheer/instellingen").get_data(as_text=True)
    assert 'value="Van der Berg Agro"' in html and 'value="7511 JE"' in html
    assert 'value="52,2215"' in html  # shown the Dutch way
    assert "Van der Berg Agro" in as_admin.get("/beheer").get_data(as_text=True)  # in the bar
    assert audited(app, carrier, "settings_updated") == 1


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"tijdzone": "Europe/Enschede"}, "tijdzone", "Deze tijdzone kennen we niet."),
        ({"naam": ""}, "naam", "Vul de naam in."),
        ({"thuisbasis_postcode": "75111"}, "thuisbasis_postcode", "vier cijfers en twee letters"),
        ({"thuisbasis_lat": "noord"}, "thuisbasis_lat", "Vul een getal in"),
        ({"thuisbasis_lat": "95"}, "thuisbasis_lat", "tussen -90 en 90"),
        ({"thuisbasis_lng": ""}, "thuisbasis_lng", "Vul de lengtegraad ook in"),
    ],
)
def test_bad_settings_are_shown_at_their_field_and_keep_the_input(
    as_admin, changes, field, message
):
    response = settings_form(as_admin, **changes)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert f'id="{field}-error"' in html and message in html
    assert 'value="Hengelosestraat 12"' in html  # nothing typed is lost


def test_the_time_zone_is_a_choice_of_iana_zones_by_region(as_admin, app, carrier):
    html = as_admin.get("/beheer/instellingen").get_data(as_text=True)
    select = re.search(r'<select[^>]*name="tijdzone".*?</select>', html, re.S).group(0)
    assert '<optgroup label="Veelgebruikt">' in select and '<optgroup label="Europa">' in select
    assert re.search(
        r'<option selected value="Europe/Amsterdam">Amsterdam \(UTC\+0[12]:00\)', select
    )
    assert 'value="America/Argentina/Buenos_Aires">Buenos Aires (UTC-03:00)' in select
    assert 'value="US/Eastern"' not in select  # legacy aliases are not offered
    assert settings_form(as_admin, tijdzone="Europe/Lisbon").status_code == 303
    html = as_admin.get("/beheer/instellingen").get_data(as_text=True)
    assert '<option selected value="Europe/Lisbon">Lissabon' in html
    # A zone stored earlier as a legacy alias stays chosen, so saving changes nothing.
    assert settings_form(as_admin, tijdzone="CET").status_code == 303
    assert '<option selected value="CET">CET</option>' in as_admin.get(
        "/beheer/instellingen"
    ).get_data(as_text=True)


def test_the_settings_page_is_english_on_request(as_admin):
    as_admin.post("/taal", data={"taal": "en", "next": "/", "csrf_token": token_of(as_admin)})
    html = as_admin.get("/beheer/instellingen").get_data(as_text=True)
    assert "Time zone" in html and "Home base" in html
    assert '<optgroup label="Common">' in html and '<optgroup label="Europe">' in html
    assert ">Lisbon (UTC" in html
