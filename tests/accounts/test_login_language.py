"""The language picked on the sign-in page holds after signing in, for a user who never chose
one; a user's own choice still wins."""

from __future__ import annotations

from factories import PASSWORD, create_user, csrf_from


def sign_in_in_english(client, user):
    page = client.get("/login").get_data(as_text=True)
    client.post("/taal", data={"taal": "en", "next": "/login", "csrf_token": csrf_from(page)})
    page = client.get("/login").get_data(as_text=True)
    assert "Sign in to Rijplan" in page
    client.post(
        "/login",
        data={"email": user.email, "password": PASSWORD, "csrf_token": csrf_from(page)},
    )
    return client.get("/taken").get_data(as_text=True)


def test_a_new_user_who_picks_english_at_sign_in_stays_in_english(app, client, carrier):
    user = create_user(app, carrier, "planner")
    tasks = sign_in_in_english(client, user)
    assert '<html lang="en">' in tasks and "Sign out" in tasks


def test_a_users_own_language_wins_over_the_sign_in_page(app, client, carrier):
    from factories import in_carrier

    from portal.accounts import service

    user = create_user(app, carrier, "planner")
    in_carrier(app, carrier.id, lambda: service.set_language(
        carrier_id=carrier.id, user_id=user.id, taal="nl"
    ))  # fmt: skip
    tasks = sign_in_in_english(client, user)
    assert '<html lang="nl">' in tasks and "Afmelden" in tasks
