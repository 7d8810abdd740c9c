"""Driver sign-in: POST /api/v1/auth/token and /auth/revoke, and bearer checks."""

from __future__ import annotations

import warnings
from datetime import UTC, datetime, timedelta

import jwt
import pytest
from factories import PASSWORD, bearer, create_carrier, create_driver, in_carrier

from portal.extensions import db

TOKEN_URL = "/api/v1/auth/token"


def tasks_url(driver) -> str:
    return f"/api/v1/users/{driver.user_token}/taken"


def password_grant(client, username, password=PASSWORD):
    return client.post(
        TOKEN_URL, json={"grant_type": "password", "username": username, "password": password}
    )


def activation_code(app, driver) -> str:
    from portal.drivers.pairing import create_activation_code

    return in_carrier(
        app,
        driver.carrier_id,
        lambda: create_activation_code(carrier_id=driver.carrier_id, user_token=driver.user_token),
    )[0]


def test_password_grant_answers_tokens_and_the_user_token(client, driver):
    response = password_grant(client, driver.email)
    assert response.status_code == 200
    body = response.get_json()
    assert set(body) == {"access_token", "token_type", "expires_in", "refresh_token", "user_token"}
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 900
    assert body["user_token"] == driver.user_token
    assert response.headers["Cache-Control"] == "no-store"
    assert client.get(tasks_url(driver), headers=bearer(body["access_token"])).status_code == 200


def test_the_access_token_is_a_pinned_short_lived_jwt(app, client, driver):
    body = password_grant(client, driver.email).get_json()
    header = jwt.get_unverified_header(body["access_token"])
    claims = jwt.decode(body["access_token"], options={"verify_signature": False})
    assert header["alg"] == "HS256"
    assert claims["exp"] - claims["iat"] == 900
    assert claims["tid"] == str(driver.carrier_id)


def test_oauth_form_encoding_is_accepted(client, driver):
    response = client.post(
        TOKEN_URL, data={"grant_type": "password", "username": driver.email, "password": PASSWORD}
    )
    assert response.status_code == 200


def test_email_is_matched_without_case_or_spaces(client, driver):
    assert password_grant(client, f"  {driver.email.upper()} ").status_code == 200


def test_wrong_password_and_unknown_email_get_the_same_answer(client, driver):
    wrong = password_grant(client, driver.email, "not-the-password")
    unknown = password_grant(client, "nobody@example.nl", "not-the-password")
    assert wrong.status_code == unknown.status_code == 400
    assert wrong.mimetype == "application/problem+json"
    assert wrong.get_json()["detail"] == unknown.get_json()["detail"]
    assert wrong.get_json()["title"] == "Invalid grant"


def test_repeated_failures_are_throttled_even_with_the_right_password(client, driver):
    for _ in range(5):
        assert password_grant(client, driver.email, "wrong-password!").status_code == 400
    response = password_grant(client, driver.email)
    assert response.status_code == 429
    assert int(response.headers["Retry-After"]) > 0
    assert "Try again" in response.get_json()["detail"]


def test_same_email_at_two_carriers_signs_in_where_the_password_fits(app, client, driver):
    other = create_carrier(app, "Ander")
    twin = create_driver(app, other, "Tweeling", email=driver.email, password="another-password")
    body = password_grant(client, driver.email, "another-password").get_json()
    assert body["user_token"] == twin.user_token


def test_a_deactivated_driver_cannot_sign_in_and_its_tokens_stop_working(app, client, driver):
    from portal.drivers.service import get_driver

    token = password_grant(client, driver.email).get_json()["access_token"]

    def deactivate():
        get_driver(carrier_id=driver.carrier_id, driver_id=driver.id).actief = False

    in_carrier(app, driver.carrier_id, deactivate)
    assert password_grant(client, driver.email).status_code == 400
    assert client.get(tasks_url(driver), headers=bearer(token)).status_code == 401


def test_activation_code_pairs_a_phone_once(app, client, driver):
    code = activation_code(app, driver)
    first = client.post(TOKEN_URL, json={"grant_type": "activation_code", "code": code})
    assert first.status_code == 200
    assert first.get_json()["user_token"] == driver.user_token
    again = client.post(TOKEN_URL, json={"grant_type": "activation_code", "code": code})
    assert again.status_code == 400


def test_activation_code_may_be_typed_with_dashes_and_lower_case(app, client, driver):
    code = activation_code(app, driver)
    typed = f"{code[:5].lower()}-{code[5:]}"
    response = client.post(TOKEN_URL, json={"grant_type": "activation_code", "code": typed})
    assert response.status_code == 200


def test_a_new_activation_code_lapses_the_previous_one(app, client, driver):
    old = activation_code(app, driver)
    activation_code(app, driver)
    response = client.post(TOKEN_URL, json={"grant_type": "activation_code", "code": old})
    assert response.status_code == 400


def test_an_expired_activation_code_is_refused(app, client, driver):
    from sqlalchemy import update

    from portal.drivers.models import ActivationCode

    code = activation_code(app, driver)
    in_carrier(
        app,
        driver.carrier_id,
        lambda: db.session.execute(
            update(ActivationCode).values(verloopt_op=datetime.now(UTC) - timedelta(seconds=1))
        ),
    )
    response = client.post(TOKEN_URL, json={"grant_type": "activation_code", "code": code})
    assert response.status_code == 400
    assert "expired" in response.get_json()["detail"]


def test_refresh_rotates_the_token(client, driver):
    first = password_grant(client, driver.email).get_json()
    second = client.post(
        TOKEN_URL, json={"grant_type": "refresh_token", "refresh_token": first["refresh_token"]}
    )
    assert second.status_code == 200
    body = second.get_json()
    assert body["refresh_token"] != first["refresh_token"]
    assert client.get(tasks_url(driver), headers=bearer(body["access_token"])).status_code == 200


def test_a_refresh_retried_within_the_grace_window_still_works(client, driver):
    first = password_grant(client, driver.email).get_json()
    grant = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"]}
    assert client.post(TOKEN_URL, json=grant).status_code == 200
    # The answer was lost on a bad network; the phone retries with the same token.
    assert client.post(TOKEN_URL, json=grant).status_code == 200


def test_a_refresh_token_reused_after_the_grace_window_revokes_the_sign_in(app, client, driver):
    app.config["REFRESH_TOKEN_GRACE"] = timedelta(seconds=-1)
    first = password_grant(client, driver.email).get_json()
    grant = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"]}
    second = client.post(TOKEN_URL, json=grant).get_json()
    reuse = client.post(TOKEN_URL, json=grant)
    assert reuse.status_code == 400
    assert "already used" in reuse.get_json()["detail"]
    # The thief's reuse also ends the legitimate successor.
    successor = client.post(
        TOKEN_URL, json={"grant_type": "refresh_token", "refresh_token": second["refresh_token"]}
    )
    assert successor.status_code == 400


def test_revoke_ends_the_refresh_token(client, driver):
    first = password_grant(client, driver.email).get_json()
    response = client.post("/api/v1/auth/revoke", json={"token": first["refresh_token"]})
    assert response.status_code == 200
    refused = client.post(
        TOKEN_URL, json={"grant_type": "refresh_token", "refresh_token": first["refresh_token"]}
    )
    assert refused.status_code == 400


def test_revoking_an_unknown_token_is_not_an_error(client):
    assert client.post("/api/v1/auth/revoke", json={"token": "rrt_unknown"}).status_code == 200


def test_sign_out_everywhere_refuses_outstanding_tokens(app, client, driver):
    from portal.drivers.tokens import sign_out_everywhere

    body = password_grant(client, driver.email).get_json()
    in_carrier(
        app,
        driver.carrier_id,
        lambda: sign_out_everywhere(carrier_id=driver.carrier_id, driver_id=driver.id),
    )
    assert client.get(tasks_url(driver), headers=bearer(body["access_token"])).status_code == 401
    refresh = client.post(
        TOKEN_URL, json={"grant_type": "refresh_token", "refresh_token": body["refresh_token"]}
    )
    assert refresh.status_code == 400


@pytest.mark.parametrize(
    "body, field",
    [
        ({}, "grant_type"),
        ({"grant_type": "client_credentials"}, "grant_type"),
        ({"grant_type": "password", "username": "a@b.nl"}, "password"),
        ({"grant_type": "activation_code"}, "code"),
        ({"grant_type": "password", "username": "a@b.nl", "password": "x", "extra": 1}, "extra"),
    ],
)
def test_malformed_grants_are_422_naming_the_field(client, body, field):
    response = client.post(TOKEN_URL, json=body)
    assert response.status_code == 422
    assert field in [e["field"] for e in response.get_json()["errors"]]


def _forged(app, driver, algorithm: str = "HS256", **changes) -> str:
    now = datetime.now(UTC)
    claims = {
        "iss": "rijplan",
        "sub": str(driver.id),
        "tid": str(driver.carrier_id),
        "ver": 1,
        "iat": int(now.timestamp()),
        "exp": int((now + timedelta(minutes=5)).timestamp()),
        "typ": "access",
    }
    key = changes.pop("key", app.config["SECRET_KEY"])
    claims.update(changes)
    claims = {k: v for k, v in claims.items() if v is not None}
    if algorithm == "none":
        return jwt.encode(claims, None, algorithm="none")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a test key may be short for HS512: it is a forgery
        return jwt.encode(claims, key, algorithm=algorithm)


@pytest.mark.parametrize(
    "case",
    [
        "expired",
        "wrong key",
        "no exp",
        "alg none",
        "alg none with every claim",
        "another algorithm, the right key",
        "not valid before a future moment",
        "garbled",
        "refresh as access",
        "wrong scheme",
        "empty",
    ],
)
def test_bad_bearer_tokens_are_401_problem_json(app, client, driver, case):
    past = int((datetime.now(UTC) - timedelta(minutes=1)).timestamp())
    headers = {
        "expired": bearer(_forged(app, driver, exp=past)),
        "wrong key": bearer(_forged(app, driver, key="another-secret-key-of-32-bytes!!")),
        "no exp": bearer(_forged(app, driver, exp=None)),
        "alg none": bearer(
            jwt.encode(
                {"sub": str(driver.id), "tid": str(driver.carrier_id)}, None, algorithm="none"
            )
        ),
        "alg none with every claim": bearer(_forged(app, driver, algorithm="none")),
        "another algorithm, the right key": bearer(_forged(app, driver, algorithm="HS512")),
        "not valid before a future moment": bearer(
            _forged(app, driver, nbf=int((datetime.now(UTC) + timedelta(hours=1)).timestamp()))
        ),
        "garbled": bearer("eyJhbGciOi.garbage.x"),
        "refresh as access": bearer("rrt_" + "x" * 40),
        "wrong scheme": {"Authorization": f"Basic {driver.user_token}"},
        "empty": {"Authorization": "Bearer "},
    }[case]
    response = client.get(tasks_url(driver), headers=headers)
    assert response.status_code == 401
    assert response.mimetype == "application/problem+json"


def test_a_token_for_a_driver_of_another_carrier_sees_nothing_here(app, client, driver):
    other = create_carrier(app, "Ander")
    stranger = create_driver(app, other, "Vreemde")
    token = password_grant(client, stranger.email).get_json()["access_token"]
    assert client.get(tasks_url(driver), headers=bearer(token)).status_code == 404


def test_an_unknown_or_revoked_api_key_is_401(app, client, driver, api_key):
    from sqlalchemy import update

    from portal.accounts.models import ApiKey

    assert client.get(tasks_url(driver), headers=bearer("rpk_unknown")).status_code == 401
    in_carrier(
        app,
        driver.carrier_id,
        lambda: db.session.execute(update(ApiKey).values(ingetrokken_op=datetime.now(UTC))),
    )
    assert client.get(tasks_url(driver), headers=bearer(api_key.key)).status_code == 401
