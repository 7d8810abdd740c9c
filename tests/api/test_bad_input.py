"""Bad input anywhere in the API is a clear 4xx problem+json, never a 500."""

from __future__ import annotations

import pytest
from factories import bearer


def assert_problem(response, status):
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["status"] == status and body["title"]


def test_an_unknown_api_path_is_404_problem_json(client, api_key):
    response = client.get("/api/v1/bestaat-niet", headers=bearer(api_key.key))
    assert_problem(response, 404)
    # The same stable type as a missing task's 404.
    assert response.get_json()["type"] == "https://rijplan.nl/problems/not-found"


@pytest.mark.parametrize(
    "method, path",
    [
        ("DELETE", "/api/v1/activity_questionnaires"),
        ("PUT", "/api/v1/users/abc/taken"),
        ("GET", "/api/v1/auth/token"),
        ("PATCH", "/api/v1/auth/revoke"),
    ],
)
def test_a_wrong_method_is_405_with_the_allowed_ones(client, api_key, method, path):
    response = client.open(path, method=method, headers=bearer(api_key.key))
    assert_problem(response, 405)
    assert response.headers["Allow"]


@pytest.mark.parametrize("user_token", ["x" * 300, "%00", "..", "a b", "💥"])
def test_odd_user_tokens_are_404(client, api_key, user_token):
    response = client.get(f"/api/v1/users/{user_token}/taken", headers=bearer(api_key.key))
    assert response.status_code == 404


def test_invalid_json_on_the_token_endpoint_is_400(client):
    response = client.post("/api/v1/auth/token", data=b"{", content_type="application/json")
    assert_problem(response, 400)


def test_a_body_of_the_wrong_type_on_the_token_endpoint_is_415(client):
    response = client.post("/api/v1/auth/token", data=b"x", content_type="text/plain")
    assert_problem(response, 415)


def test_an_oversized_token_request_is_413(client):
    response = client.post(
        "/api/v1/auth/token",
        data=b"{" + b" " * (2 * 1024 * 1024) + b"}",
        content_type="application/json",
    )
    assert_problem(response, 413)
    assert response.get_json()["type"] == "https://rijplan.nl/problems/too-large"


@pytest.mark.parametrize(
    "header",
    [
        "Bearer",
        "bearer    ",
        "Token abc",
        "Bearer a.b",
        "Bearer " + "x" * 10000,
        "Bearer rpk_",
        "Bearer eyJhbGciOiJIUzI1NiJ9.e30.",
        "Bearer \u00e9\u00e9",
    ],
)
def test_garbled_authorization_headers_are_401(client, driver, header):
    response = client.get(
        f"/api/v1/users/{driver.user_token}/taken", headers={"Authorization": header}
    )
    assert_problem(response, 401)


def test_query_strings_with_repeated_or_odd_values_are_handled(client, driver, api_key):
    url = f"/api/v1/users/{driver.user_token}/taken"
    assert client.get(f"{url}?limit=1&limit=2", headers=bearer(api_key.key)).status_code == 200
    assert_problem(client.get(f"{url}?limit=%00", headers=bearer(api_key.key)), 400)
    assert_problem(client.get(f"{url}?van=2026-02-30", headers=bearer(api_key.key)), 422)


def test_nul_characters_are_refused_everywhere(client, driver, api_key):
    # PostgreSQL text cannot hold NUL: it must be a 400, never a database error.
    assert_problem(
        client.get(
            "/api/v1/activity_questionnaires?activity_type=a%00b", headers=bearer(api_key.key)
        ),
        400,
    )
    assert_problem(
        client.post(
            f"/api/v1/users/{driver.user_token}/taken",
            json={"type": "mest_laden", "naam": "a\u0000b"},
            headers=bearer(api_key.key),
        ),
        400,
    )
    assert_problem(
        client.post(
            "/api/v1/auth/token",
            json={"grant_type": "password", "username": "a\u0000@b.nl", "password": "x"},
        ),
        400,
    )
    assert_problem(
        client.post(
            "/api/v1/auth/token",
            data={"grant_type": "password", "username": "a\x00@b.nl", "password": "x"},
        ),
        400,
    )
    assert client.post("/login", data={"email": "a\x00@b.nl", "password": "x"}).status_code == 400
