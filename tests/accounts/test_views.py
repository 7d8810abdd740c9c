"""Portal sign-in, sign-out, roles and the language switch."""

from __future__ import annotations

import pytest
from factories import PASSWORD, create_user, csrf_from, login


def test_the_login_page_is_dutch_by_default_and_english_on_request(client):
    assert "Aanmelden bij Rijplan" in client.get("/login").get_data(as_text=True)
    english = client.get("/login", headers={"Accept-Language": "en-GB,en;q=0.9"})
    assert "Sign in to Rijplan" in english.get_data(as_text=True)


def test_a_planner_signs_in_and_lands_on_the_tasks_page(client, planner):
    response = login(client, planner)
    assert response.status_code == 303
    assert response.headers["Location"] == "/taken"
    page = client.get("/taken")
    assert page.status_code == 200
    assert "Taken" in page.get_data(as_text=True)


def test_signing_in_returns_to_the_page_asked_for_but_never_off_site(client, planner):
    first = client.get("/taken?status=gepland")
    assert first.status_code == 302 and "/login" in first.headers["Location"]
    token = csrf_from(client.get("/login?next=/taken%3Fstatus%3Dgepland").get_data(as_text=True))
    response = client.post(
        "/login",
        data={
            "email": planner.email,
            "password": PASSWORD,
            "csrf_token": token,
            "next": "/taken?status=gepland",
        },
    )
    assert response.headers["Location"] == "/taken?status=gepland"
    client.post("/logout", data={"csrf_token": csrf_from(client.get("/taken").get_data(True))})
    token = csrf_from(client.get("/login").get_data(as_text=True))
    evil = client.post(
        "/login",
        data={
            "email": planner.email,
            "password": PASSWORD,
            "csrf_token": token,
            "next": "//evil.example/x",
        },
    )
    assert evil.headers["Location"] == "/taken"


def test_a_wrong_password_says_so_at_the_field_and_keeps_the_email(client, planner):
    response = login(client, planner, password="wrong-password")
    html = response.get_data(as_text=True)
    assert response.status_code == 401
    assert "E-mailadres of wachtwoord klopt niet." in html
    assert 'id="password-error"' in html
    assert f'value="{planner.email}"' in html


def test_an_unknown_email_gets_the_same_message(client):
    token = csrf_from(client.get("/login").get_data(as_text=True))
    response = client.post(
        "/login", data={"email": "nobody@example.nl", "password": "whatever12", "csrf_token": token}
    )
    assert response.status_code == 401
    assert "E-mailadres of wachtwoord klopt niet." in response.get_data(as_text=True)


def test_sign_in_is_throttled_after_repeated_failures(client, planner):
    for _ in range(5):
        login(client, planner, password="wrong-password")
    response = login(client, planner)
    assert response.status_code == 429
    assert "Te veel mislukte pogingen" in response.get_data(as_text=True)


def test_a_login_without_csrf_token_is_refused(client, planner):
    response = client.post("/login", data={"email": planner.email, "password": PASSWORD})
    assert response.status_code == 400
    assert client.get("/taken").status_code == 302


def test_an_empty_form_shows_errors_at_the_fields(client):
    token = csrf_from(client.get("/login").get_data(as_text=True))
    response = client.post("/login", data={"email": "", "password": "", "csrf_token": token})
    assert response.status_code == 422
    assert 'id="email-error"' in response.get_data(as_text=True)


def test_logout_ends_the_session_even_for_a_copied_cookie(app, client, planner):
    login(client, planner)
    cookie = client.get_cookie("session")
    token = csrf_from(client.get("/taken").get_data(as_text=True))
    response = client.post("/logout", data={"csrf_token": token})
    assert response.status_code == 303
    assert client.get("/taken").status_code == 302

    thief = app.test_client()
    thief.set_cookie("session", cookie.value)
    assert thief.get("/taken").status_code == 302


def test_an_author_may_not_open_the_task_list(app, client, carrier):
    author = create_user(app, carrier, "author")
    login(client, author)
    assert client.get("/taken").status_code == 403


def test_an_admin_may_open_everything(app, client, carrier):
    admin = create_user(app, carrier, "admin")
    login(client, admin)
    assert client.get("/taken").status_code == 200


def test_the_language_switch_is_remembered(client, planner):
    login(client, planner)
    token = csrf_from(client.get("/taken").get_data(as_text=True))
    response = client.post("/taal", data={"taal": "en", "next": "/taken", "csrf_token": token})
    assert response.status_code == 303
    html = client.get("/taken").get_data(as_text=True)
    assert "Tasks" in html and "Sign out" in html
    assert '<html lang="en">' in html


def test_the_language_choice_follows_the_user_to_a_new_session(app, client, planner):
    login(client, planner)
    token = csrf_from(client.get("/taken").get_data(as_text=True))
    client.post("/taal", data={"taal": "en", "next": "/taken", "csrf_token": token})
    other_browser = app.test_client()
    login(other_browser, planner)
    assert "Sign out" in other_browser.get("/taken").get_data(as_text=True)


def test_an_unsupported_language_is_ignored(client):
    token = csrf_from(client.get("/login").get_data(as_text=True))
    client.post("/taal", data={"taal": "fr", "next": "/login", "csrf_token": token})
    assert "Aanmelden bij Rijplan" in client.get("/login").get_data(as_text=True)


def test_pages_send_security_headers(client):
    response = client.get("/login")
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "HX-Request" in response.headers["Vary"]
    assert "camera=()" in response.headers["Permissions-Policy"]


def test_api_answers_are_kept_out_of_caches(client, driver):
    from factories import bearer, driver_token

    token = driver_token(client, driver)
    profile = client.get(f"/api/v1/users/{driver.user_token}", headers=bearer(token))
    refused = client.get("/api/v1/voertuigen")
    # The lists a phone asks again with its ETag may be kept by it, and asked again.
    poll = client.get(f"/api/v1/users/{driver.user_token}/taken", headers=bearer(token))
    messages = client.get(f"/api/v1/users/{driver.user_token}/notificaties", headers=bearer(token))
    assert profile.status_code == messages.status_code == 200 and refused.status_code == 401
    assert messages.headers["Cache-Control"] == refused.headers["Cache-Control"] == "no-store"
    assert poll.headers["Cache-Control"] == "private, no-cache"


def test_the_session_cookie_is_http_only_and_same_site(client, planner):
    response = login(client, planner)
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_a_signed_out_htmx_request_sends_the_whole_page_to_sign_in(client):
    plain = client.get("/taken?status=gepland")
    polled = client.get("/taken?status=gepland", headers={"HX-Request": "true"})

    assert plain.status_code == 302 and "/login?next=" in plain.headers["Location"]
    # htmx follows HX-Redirect with a full navigation instead of swapping the sign-in form
    # into the part of the page it was refreshing.
    assert polled.status_code == 401 and polled.get_data() == b""
    assert polled.headers["HX-Redirect"].startswith("/login?next=")
    assert "status%3Dgepland" in polled.headers["HX-Redirect"]


def _sign_in(client, email: str, password: str, client_address: str):
    """A sign-in through the TLS proxy at 10.0.0.1, for the client at client_address."""
    proxy = {"REMOTE_ADDR": "10.0.0.1"}
    forwarded = {
        "X-Forwarded-For": client_address,
        "X-Forwarded-Proto": "https",
        "Referer": "https://localhost/login",  # CSRF on https checks where the form came from
    }
    page = client.get("/login", environ_base=proxy, headers=forwarded)
    token = csrf_from(page.get_data(as_text=True))
    return client.post(
        "/login",
        data={"email": email, "password": password, "csrf_token": token},
        environ_base=proxy,
        headers=forwarded,
    )


@pytest.mark.parametrize("hops", [1, 0])
def test_the_address_limit_counts_clients_behind_a_trusted_proxy(backend, request, tmp_path, hops):
    """30 failed sign-ins from one client with made-up emails: behind a trusted proxy
    (RIJPLAN_TRUSTED_PROXIES=1) only that client is stopped; with no proxy trusted, the
    forwarded address is a client's claim and changes nothing (an attacker cannot escape
    the limit by inventing addresses)."""
    from conftest import backend_config
    from factories import create_carrier, create_user

    from portal import create_app
    from portal.extensions import db

    app = create_app({**backend_config(backend, request, tmp_path), "TRUSTED_PROXIES": hops})
    try:
        planner = create_user(app, create_carrier(app))
        attacker = app.test_client()
        for number in range(30):
            email = f"gok{number}@example.nl"
            refused = _sign_in(attacker, email, "wrong-password", "203.0.113.7")
            assert refused.status_code == 401
        again = _sign_in(attacker, "gok@example.nl", "wrong-password", "203.0.113.7")
        assert again.status_code == 429

        colleague = _sign_in(app.test_client(), planner.email, PASSWORD, "198.51.100.9")
        assert colleague.status_code == (303 if hops else 429)
    finally:
        with app.app_context():
            db.engine.dispose()


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/taken",
        "//evil.example/taken",
        "/\\evil.example/taken",
        "/\\/evil.example",
        "/\t/evil.example",
        "/\n/evil.example",
        "javascript:alert(1)",
    ],
)
def test_sign_in_never_sends_the_browser_to_another_site(client, planner, target):
    token = csrf_from(client.get("/login").get_data(as_text=True))
    response = client.post(
        "/login",
        data={"email": planner.email, "password": PASSWORD, "csrf_token": token, "next": target},
    )
    assert response.status_code == 303
    assert response.headers["Location"] == "/taken"
