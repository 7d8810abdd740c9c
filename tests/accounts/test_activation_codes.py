"""Activation codes are unique per carrier only (Citus): two carriers' codes never pair the
wrong phone, whether the code is drawn again or refused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from factories import create_carrier, create_driver, in_carrier
from sqlalchemy import select

from portal.accounts.service import sha256
from portal.drivers import pairing as tokens
from portal.drivers.models import ActivationCode
from portal.extensions import db

TOKEN_URL = "/api/v1/auth/token"
HELD = "HELDHELD22"
FREE = "FREEFREE33"


def issue(app, driver) -> str:
    return in_carrier(
        app,
        driver.carrier_id,
        lambda: tokens.create_activation_code(
            carrier_id=driver.carrier_id, user_token=driver.user_token
        ),
    )[0]


def pair(client, code):
    return client.post(TOKEN_URL, json={"grant_type": "activation_code", "code": code})


def draws(monkeypatch, *codes):
    found = iter(codes)
    monkeypatch.setattr(tokens, "_new_code", lambda: next(found))


def used(app, carrier_id) -> list:
    query = select(ActivationCode.gebruikt_op).where(ActivationCode.transporteur_id == carrier_id)
    return in_carrier(app, carrier_id, lambda: db.session.scalars(query).all())


@pytest.fixture
def other_driver(app, other_carrier):
    return create_driver(app, other_carrier, "Piet Ander")


def test_a_code_another_carrier_holds_is_drawn_again(
    app, client, driver, other_driver, monkeypatch
):
    draws(monkeypatch, HELD, HELD, FREE)
    assert issue(app, driver) == HELD
    assert issue(app, other_driver) == FREE
    assert pair(client, FREE).get_json()["user_token"] == other_driver.user_token
    assert pair(client, HELD).get_json()["user_token"] == driver.user_token


def test_a_used_or_lapsed_code_of_another_carrier_is_not_drawn_again(
    app, client, driver, other_driver, monkeypatch
):
    draws(monkeypatch, HELD, HELD, FREE)
    assert issue(app, driver) == HELD
    assert pair(client, HELD).status_code == 200
    assert issue(app, other_driver) == FREE


def test_a_code_two_carriers_hold_pairs_neither_phone(app, client, driver, other_driver):
    """Two carriers issuing the same code at the same instant (between one's check and its
    commit): the database lets both in, and the code is refused, not guessed."""
    code = issue(app, driver)

    def same_code():
        db.session.add(
            ActivationCode(
                transporteur_id=other_driver.carrier_id,
                chauffeur_id=other_driver.id,
                code_hash=sha256(code),
                verloopt_op=datetime.now(UTC) + timedelta(minutes=10),
            )
        )

    in_carrier(app, other_driver.carrier_id, same_code)
    response = pair(client, code)
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    assert "access_token" not in response.get_json()
    assert response.get_json()["detail"] == (
        "This activation code can not be used; ask the office for a new one."
    )
    assert used(app, driver.carrier_id) == [None]
    assert used(app, other_driver.carrier_id) == [None]
    # The office's new code pairs the phone.
    assert pair(client, issue(app, other_driver)).get_json()["user_token"] == (
        other_driver.user_token
    )


def test_a_code_is_not_issued_when_every_draw_is_held(app, driver, monkeypatch):
    draws(monkeypatch, HELD)
    issue(app, driver)
    third = create_driver(app, create_carrier(app, "Derde"), "Derde Chauffeur")
    draws(monkeypatch, *[HELD] * tokens.CODE_ATTEMPTS)
    with pytest.raises(RuntimeError, match="every one taken"):
        issue(app, third)
