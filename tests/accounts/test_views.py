"""Portal sign-in, sign-out, roles and the language switch."""

from __future__ import annotations

from conftest import PASSWORD, create_user, csrf_from, login


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
