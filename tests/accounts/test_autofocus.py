"""The sign-in page puts the focus in exactly one field: the one with an error, else the one to
fill in next."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from factories import PASSWORD, csrf_from, login


class Autofocus(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        names = dict(attrs)
        if "autofocus" in names:
            self.ids.append(names.get("id") or tag)


def focused(html: str) -> list[str]:
    parser = Autofocus()
    parser.feed(html)
    return parser.ids


def sign_in(client, email: str, password: str):
    token = csrf_from(client.get("/login").get_data(as_text=True))
    return client.post("/login", data={"email": email, "password": password, "csrf_token": token})


def test_the_empty_login_page_focuses_the_email_only(client):
    assert focused(client.get("/login").get_data(as_text=True)) == ["email"]


@pytest.mark.parametrize(
    ("email", "password", "field"),
    [
        ("", "", "email"),  # both missing: the first
        ("", "secret-enough", "email"),
        ("someone@example.nl", "", "password"),
        ("someone@example.nl", "wrong-password", "password"),
    ],
)
def test_a_refused_sign_in_focuses_one_field(client, email, password, field):
    response = sign_in(client, email, password)
    assert response.status_code in (401, 422, 200)
    assert focused(response.get_data(as_text=True)) == [field]


def test_a_wrong_password_focuses_the_password_only(client, planner):
    response = login(client, planner, password="wrong-" + PASSWORD)
    assert focused(response.get_data(as_text=True)) == ["password"]
