"""GET /api/v1/taken/{id}/bewijs: the bundle's PDF for integrations."""

from __future__ import annotations

from factories import bearer, create_driver, create_task, driver_token

from .helpers import completed_task


def test_an_integration_gets_the_pdf(app, client, carrier, driver, api_key):
    task = completed_task(app, carrier, driver)
    response = client.get(f"/api/v1/taken/{task.id}/bewijs", headers=bearer(api_key.key))
    assert response.status_code == 200, response.get_json()
    assert response.mimetype == "application/pdf" and response.data.startswith(b"%PDF-")
    assert len(response.headers["X-Bundle-SHA256"]) == 64
    again = client.get(f"/api/v1/taken/{task.id}/bewijs", headers=bearer(api_key.key))
    assert again.data == response.data


def test_another_carriers_task_is_a_problem_404(app, client, other_carrier, api_key):
    theirs = completed_task(app, other_carrier, create_driver(app, other_carrier))
    response = client.get(f"/api/v1/taken/{theirs.id}/bewijs", headers=bearer(api_key.key))
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"


def test_a_task_not_completed_is_409_with_a_stable_code(app, client, carrier, driver, api_key):
    task = create_task(app, carrier, driver, status="gestart")
    response = client.get(f"/api/v1/taken/{task.id}/bewijs", headers=bearer(api_key.key))
    assert response.status_code == 409
    assert response.get_json()["code"] == "task_not_completed"


def test_a_key_without_tasks_read_is_refused(app, client, carrier, driver):
    from factories import Ref, in_carrier

    from portal.accounts.service import create_api_key as create

    key = in_carrier(
        app,
        carrier.id,
        lambda: create(carrier_id=carrier.id, naam="Uren", scopes="hours:read"),
        lambda pair: Ref(pair[0].id, carrier.id, key=pair[1]),
    )
    task = completed_task(app, carrier, driver)
    assert client.get(f"/api/v1/taken/{task.id}/bewijs", headers=bearer(key.key)).status_code == 403


def test_a_driver_gets_their_own_tasks_proof_only(app, client, carrier, driver):
    task = completed_task(app, carrier, driver)
    own = client.get(
        f"/api/v1/taken/{task.id}/bewijs", headers=bearer(driver_token(client, driver))
    )
    assert own.status_code == 200
    colleague = create_driver(app, carrier)
    other = client.get(
        f"/api/v1/taken/{task.id}/bewijs", headers=bearer(driver_token(client, colleague))
    )
    assert other.status_code in (403, 404)


def test_the_openapi_document_describes_a_pdf(app, client):
    doc = client.get("/api/v1/openapi.json").get_json()
    operation = doc["paths"]["/taken/{task_id}/bewijs"]["get"]
    assert operation["responses"]["200"]["content"] == {
        "application/pdf": {"schema": {"type": "string", "format": "binary"}}
    }
    assert "409" in operation["responses"] and "task_not_completed" in operation["description"]
