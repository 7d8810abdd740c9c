"""Failed sign-ins are limited per account and address, per account from anywhere and per
address, in the database: guessing stops, and an attacker who knows an email does not keep
its owner out (another address, or a browser that signed in before)."""

from __future__ import annotations

from factories import PASSWORD, create_user, csrf_from

from portal import create_app
from portal.extensions import db

ATTACKER, OWNER = "203.0.113.7", "198.51.100.9"


def sign_in(client, email: str, password: str, address: str):
    at = {"REMOTE_ADDR": address}
    token = csrf_from(client.get("/login", environ_base=at).get_data(as_text=True))
    return client.post(
        "/login",
        data={"email": email, "password": password, "csrf_token": token},
        environ_base=at,
    )


def sign_out(client) -> None:
    token = csrf_from(client.get("/taken").get_data(as_text=True))
    assert client.post("/logout", data={"csrf_token": token}).status_code == 303


def test_an_attacker_at_one_address_does_not_lock_the_owner_out(app, planner):
    attacker = app.test_client()
    for _ in range(5):
        assert sign_in(attacker, planner.email, "wrong-password", ATTACKER).status_code == 401
    stopped = sign_in(attacker, planner.email, PASSWORD, ATTACKER)
    assert stopped.status_code == 429
    assert "Te veel mislukte pogingen" in stopped.get_data(as_text=True)

    assert sign_in(app.test_client(), planner.email, PASSWORD, OWNER).status_code == 303


def test_guessing_from_many_addresses_stops_but_the_owners_browser_gets_in(app, planner):
    owner = app.test_client()
    assert sign_in(owner, planner.email, PASSWORD, OWNER).status_code == 303  # known from now
    assert owner.get_cookie("rijplan_apparaat") is not None
    sign_out(owner)

    for number in range(4):  # 4 addresses, 5 guesses each: 20 on the account
        attacker = app.test_client()
        for _ in range(5):
            guess = sign_in(attacker, planner.email, "wrong-password", f"203.0.113.{number}")
            assert guess.status_code == 401
    # Even the right password from a fresh address is held now ...
    assert sign_in(app.test_client(), planner.email, PASSWORD, "192.0.2.1").status_code == 429
    # ... but not from the browser that signed in before.
    assert sign_in(owner, planner.email, PASSWORD, OWNER).status_code == 303


def test_a_copied_device_cookie_gets_five_guesses_wherever_it_is_used(app, planner):
    owner = app.test_client()
    assert sign_in(owner, planner.email, PASSWORD, OWNER).status_code == 303
    cookie = owner.get_cookie("rijplan_apparaat").value
    thief = app.test_client()
    thief.set_cookie("rijplan_apparaat", cookie)
    for number in range(5):
        guess = sign_in(thief, planner.email, "wrong-password", f"203.0.113.{number}")
        assert guess.status_code == 401
    assert sign_in(thief, planner.email, PASSWORD, "203.0.113.99").status_code == 429


def test_a_device_cookie_is_for_its_own_account_only(app, carrier, planner):
    colleague = create_user(app, carrier, "planner")
    browser = app.test_client()
    assert sign_in(browser, planner.email, PASSWORD, OWNER).status_code == 303
    sign_out(browser)
    for _ in range(5):
        assert sign_in(browser, colleague.email, "wrong-password", OWNER).status_code == 401
    assert sign_in(browser, colleague.email, PASSWORD, OWNER).status_code == 429


def test_every_app_process_sees_the_same_count(app, planner):
    """Two processes of one deployment (two app instances on one database)."""
    other = create_app({**app.config, "TESTING": True})
    try:
        for _ in range(5):
            assert sign_in(app.test_client(), planner.email, "wrong", ATTACKER).status_code == 401
        assert sign_in(other.test_client(), planner.email, PASSWORD, ATTACKER).status_code == 429
    finally:
        with other.app_context():
            db.engine.dispose()


def test_a_driver_is_not_kept_out_of_the_app_by_guesses_from_elsewhere(client, driver):
    def grant(password: str, address: str):
        return client.post(
            "/api/v1/auth/token",
            json={"grant_type": "password", "username": driver.email, "password": password},
            environ_base={"REMOTE_ADDR": address},
        )

    for _ in range(5):
        assert grant("wrong-password", ATTACKER).status_code == 400
    refused = grant(PASSWORD, ATTACKER)
    assert refused.status_code == 429
    assert refused.mimetype == "application/problem+json"
    assert grant(PASSWORD, OWNER).status_code == 200


def test_a_forged_or_garbled_device_cookie_counts_for_nothing(app, planner):
    forgeries = ("garbage", "eyJlIjoiYWFhIiwiZCI6IngifQ.forged", "\x00" * 5)
    for number, forged in enumerate(forgeries):
        browser = app.test_client()
        browser.set_cookie("rijplan_apparaat", forged)
        address = f"203.0.113.{number}"
        for _ in range(5):
            assert sign_in(browser, planner.email, "wrong", address).status_code == 401
        # Held like any stranger at that address, and never a 500.
        assert sign_in(browser, planner.email, PASSWORD, address).status_code == 429
    fresh = app.test_client()
    fresh.set_cookie("rijplan_apparaat", "garbage")
    assert sign_in(fresh, planner.email, PASSWORD, OWNER).status_code == 303
    assert fresh.get_cookie("rijplan_apparaat").value != "garbage"  # a real one now
