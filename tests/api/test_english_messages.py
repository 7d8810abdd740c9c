"""The API's English messages name the product's Dutch codes in English ("planned"), and the
problem carries the code itself as a parameter, so a client can word it or match on it."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from factories import bearer, create_task, driver_token

from portal.english_names import ACTIVITY_KIND, PLACE_KIND, TASK_STATUS

DUTCH = re.compile(
    r"\b(" + "|".join(sorted({*TASK_STATUS, *ACTIVITY_KIND, *PLACE_KIND}, key=len)[::-1]) + r")\b"
)


def dutch_words(text: str) -> list[str]:
    return DUTCH.findall(text)


def test_an_illegal_move_says_planned_and_completed_and_carries_the_codes(
    app, client, carrier, driver
):
    task = create_task(app, carrier, driver)
    response = client.patch(
        f"/api/v1/taken/{task.id}/status",
        json={"status": "afgerond"},
        headers=bearer(driver_token(client, driver)),
    )
    assert response.status_code == 409
    problem = response.get_json()
    assert problem["detail"] == "A task that is planned cannot move to completed."
    assert (problem["current"], problem["to"]) == ("gepland", "afgerond")
    assert problem["allowed"] == ["ontvangen", "gestart", "geannuleerd"]


def test_an_edit_of_a_completed_task_says_completed(app, client, carrier, driver, api_key):
    task = create_task(app, carrier, driver, status="afgerond", afgerond_op=datetime.now(UTC))
    response = client.patch(
        f"/api/v1/taken/{task.id}", json={"naam": "Anders"}, headers=bearer(api_key.key)
    )
    assert response.status_code == 409
    problem = response.get_json()
    assert problem["detail"] == "A task that is completed cannot be edited."
    assert problem["current"] == "afgerond"


def test_the_proof_of_a_planned_task_says_planned(app, client, carrier, driver, api_key):
    task = create_task(app, carrier, driver)
    response = client.get(f"/api/v1/taken/{task.id}/bewijs", headers=bearer(api_key.key))
    assert response.status_code == 409
    problem = response.get_json()
    assert problem["code"] == "task_not_completed"
    assert problem["detail"].startswith("The task is planned:")
    assert not dutch_words(problem["detail"])
    assert problem["current"] == "gepland"
