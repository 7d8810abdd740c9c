"""A task's customer and route: a loading and an unloading place of the customer, each copied
onto the task as an address; additive to the seed's main address, which the driver app keeps
navigating to (filled from the route when the task has none)."""

from __future__ import annotations

import re
import uuid

import pytest
from factories import (
    bearer,
    create_task,
    csrf_from,
    driver_token,
    in_carrier,
    login,
)

from portal.audit.service import SYSTEM
from portal.tasks.schemas import COMBINATION_FIELDS, TaskOut

# The seed's fields first; the route's and the vehicle combination's come after them.
SEED_FIELDS = [
    name
    for name in TaskOut.model_fields
    if not name.startswith(("klant", "laad", "los")) and name not in COMBINATION_FIELDS
]


def customer(app, carrier, naam="Maatschap Ter Horst", actief=True) -> dict:
    """A customer with a loading, an unloading and a two-way place; their ids by name."""
    from portal.customers import service

    def make():
        made = service.create_customer(carrier_id=carrier.id, data={"naam": naam}, actor=SYSTEM)
        places = {"klant": made.id}
        for place in (
            {
                "naam": "Erf Enter",
                "soort": "laden",
                "adres": "Hengelosestraat 12",
                "postcode": "7468 AB",
                "stad": "Enter",
                "locatie_lat": 52.2936,
                "locatie_lng": 6.5714,
            },
            {"naam": "Mestverwerking", "soort": "lossen", "adres": "Zutphenseweg 51",
             "stad": "Deventer"},
            {"naam": "Boerderij", "soort": "beide", "adres": "Veldweg 1", "stad": "Markelo"},
        ):  # fmt: skip
            added = service.add_place(
                carrier_id=carrier.id, customer_id=made.id, data=place, actor=SYSTEM
            )
            places[place["naam"]] = added.id
        if not actief:
            service.set_active(
                carrier_id=carrier.id, customer_id=made.id, actief=False, actor=SYSTEM
            )
        return places

    return in_carrier(app, carrier.id, make, lambda ids: {k: str(v) for k, v in ids.items()})


def url(driver) -> str:
    return f"/api/v1/users/{driver.user_token}/taken"


def task_body(ids: dict, **fields) -> dict:
    return {
        "type": "mest_laden",
        "naam": "Mest Ter Horst",
        "klant_id": ids["klant"],
        "laadlocatie_id": ids["Erf Enter"],
        "loslocatie_id": ids["Mestverwerking"],
        **fields,
    }


def test_an_integration_plans_from_loading_to_unloading_place(
    app, client, carrier, driver, api_key
):
    ids = customer(app, carrier)
    response = client.post(url(driver), json=task_body(ids), headers=bearer(api_key.key))

    assert response.status_code == 201, response.get_json()
    task = response.get_json()
    assert task["klant_id"] == ids["klant"]
    assert (task["laad_naam"], task["laad_adres"], task["laad_postcode"], task["laad_stad"]) == (
        "Erf Enter",
        "Hengelosestraat 12",
        "7468 AB",
        "Enter",
    )
    assert (task["laad_lat"], task["laad_lng"]) == (pytest.approx(52.2936), pytest.approx(6.5714))
    assert (task["los_naam"], task["los_adres"], task["los_stad"]) == (
        "Mestverwerking",
        "Zutphenseweg 51",
        "Deventer",
    )
    # The seed's main address: the loading place, as the task named none.
    assert (task["adres"], task["stad"], task["land"]) == ("Hengelosestraat 12", "Enter", "NL")

    # The driver's JSON keeps every seed field in its order; the route comes after.
    listed = client.get(
        f"/api/v1/users/{driver.user_token}/taken", headers=bearer(driver_token(client, driver))
    ).get_json()
    mine = next(item for item in listed if item["id"] == task["id"])
    assert list(mine)[: len(SEED_FIELDS)] == SEED_FIELDS
    assert mine["los_stad"] == "Deventer"


def test_given_address_fields_win_over_the_places(app, client, carrier, driver, api_key):
    ids = customer(app, carrier)
    body = task_body(ids, laad_adres="Hengelosestraat 14", adres="Kerkweg 2", stad="Enter")
    task = client.post(url(driver), json=body, headers=bearer(api_key.key)).get_json()

    assert task["laad_adres"] == "Hengelosestraat 14" and task["laad_naam"] == "Erf Enter"
    assert task["adres"] == "Kerkweg 2"  # a main address given stays


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"laadlocatie_id": "Mestverwerking"}, [("laadlocatie_id", "wrong_place_kind")]),
        ({"loslocatie_id": "Erf Enter"}, [("loslocatie_id", "wrong_place_kind")]),
        (
            {"klant_id": None},
            [("laadlocatie_id", "unknown_place"), ("loslocatie_id", "unknown_place")],
        ),
    ],
)
def test_a_place_must_be_the_customers_and_fit_its_end(
    app, client, carrier, driver, api_key, change, expected
):
    ids = customer(app, carrier)
    body = task_body(ids, **{k: ids.get(v, v) if v else v for k, v in change.items()})
    response = client.post(url(driver), json=body, headers=bearer(api_key.key))

    assert response.status_code == 422
    errors = response.get_json()["errors"]
    assert [(e["field"], e.get("code")) for e in errors] == expected
    for error in errors:
        if error["code"] == "wrong_place_kind":
            # The kind in English in the message, as its code in the parameters.
            assert error["message"] in (
                "this place is for loading only",
                "this place is for unloading only",
            )
            assert error["params"]["soort"] in ("laden", "lossen")


def test_a_place_of_another_customer_or_carrier_is_refused(
    app, client, carrier, other_carrier, driver, api_key
):
    ids = customer(app, carrier)
    others = customer(app, carrier, naam="De Heus")
    foreign = customer(app, other_carrier, naam="Elders")
    for body in (
        task_body(ids, laadlocatie_id=others["Erf Enter"]),
        task_body(ids, klant_id=foreign["klant"], laadlocatie_id=None, loslocatie_id=None),
        task_body(ids, laadlocatie_id=foreign["Erf Enter"]),
    ):
        response = client.post(url(driver), json=body, headers=bearer(api_key.key))
        assert response.status_code == 422, body
        assert response.get_json()["errors"][0]["field"] in ("klant_id", "laadlocatie_id")


def test_a_deactivated_customer_takes_no_new_work_but_keeps_its_tasks(
    app, client, carrier, driver, api_key
):
    ids = customer(app, carrier)
    made = client.post(url(driver), json=task_body(ids), headers=bearer(api_key.key)).get_json()
    from portal.customers import service

    in_carrier(
        app,
        carrier.id,
        lambda: service.set_active(
            carrier_id=carrier.id, customer_id=uuid.UUID(ids["klant"]), actief=False,
            actor=SYSTEM,
        ),
    )  # fmt: skip
    refused = client.post(url(driver), json=task_body(ids), headers=bearer(api_key.key))
    assert refused.status_code == 422
    assert refused.get_json()["errors"][0]["code"] == "unknown_customer"

    kept = client.patch(
        f"/api/v1/taken/{made['id']}",
        json={"klant_id": ids["klant"], "naam": "Mest Ter Horst (2)"},
        headers=bearer(api_key.key),
    )
    assert kept.status_code == 200, kept.get_json()


def test_a_customer_with_tasks_cannot_be_deleted_and_a_removed_place_leaves_the_address(
    app, client, carrier, driver, api_key
):
    ids = customer(app, carrier)
    made = client.post(url(driver), json=task_body(ids), headers=bearer(api_key.key)).get_json()
    headers = bearer(api_key.key)

    deleted = client.delete(f"/api/v1/klanten/{ids['klant']}", headers=headers)
    assert deleted.status_code == 409

    removed = client.delete(
        f"/api/v1/klanten/{ids['klant']}/locaties/{ids['Erf Enter']}", headers=headers
    )
    assert removed.status_code == 204
    task = client.get(f"/api/v1/taken/{made['id']}", headers=headers).get_json()
    assert task["laadlocatie_id"] is None
    assert (task["laad_naam"], task["laad_adres"]) == ("Erf Enter", "Hengelosestraat 12")
    assert task["loslocatie_id"] == ids["Mestverwerking"]


def test_the_form_offers_the_customers_places_and_fills_in_a_chosen_one(
    app, client, carrier, driver, planner
):
    ids = customer(app, carrier)
    customer(app, carrier, naam="Gestopt BV", actief=False)
    login(client, planner)
    page = client.get("/taken/nieuw").get_data(as_text=True)
    assert "Klant en route" in page and "Maatschap Ter Horst" in page
    assert "Gestopt BV" not in page  # deactivated: no new work
    token = csrf_from(page)

    # The planner picks the customer: its loading places are offered, the others not.
    picked = client.post(
        "/taken/formulier/route",
        data={"csrf_token": token, "klant_id": ids["klant"], "vorige_klant_id": ""},
        headers={"HX-Request": "true"},
    )
    assert picked.status_code == 200
    html = picked.get_data(as_text=True)
    loading = html[
        html.index('id="laadlocatie_id"') : html.index(
            "</select>", html.index('id="laadlocatie_id"')
        )
    ]
    assert "Erf Enter" in loading and "Boerderij" in loading and "Mestverwerking" not in loading

    # Then a place: its address fills the loading fields.
    chosen = client.post(
        "/taken/formulier/route",
        data={
            "csrf_token": token,
            "klant_id": ids["klant"],
            "vorige_klant_id": ids["klant"],
            "laadlocatie_id": ids["Erf Enter"],
            "vorige_laadlocatie_id": "",
        },
        headers={"HX-Request": "true"},
    ).get_data(as_text=True)
    assert re.search(r'id="laad_adres"[^>]*value="Hengelosestraat 12"', chosen) or re.search(
        r'value="Hengelosestraat 12"[^>]*id="laad_adres"', chosen
    )
    assert re.search(r'id="laad_stad"[^>]*value="Enter"', chosen) or re.search(
        r'value="Enter"[^>]*id="laad_stad"', chosen
    )


def test_the_board_card_names_the_customer_and_the_route(app, client, carrier, driver, planner):
    from datetime import UTC, datetime

    ids = customer(app, carrier)
    create_task(
        app,
        carrier,
        driver,
        naam="Mest Ter Horst",
        klant_id=uuid.UUID(ids["klant"]),
        laadlocatie_id=uuid.UUID(ids["Erf Enter"]),
        loslocatie_id=uuid.UUID(ids["Mestverwerking"]),
        gepland_op=datetime(2031, 3, 14, 7, 30, tzinfo=UTC),
    )
    login(client, planner)
    html = client.get("/taken?datum=2031-03-14").get_data(as_text=True)
    card = html[html.index("Mest Ter Horst") :]
    assert "Maatschap Ter Horst" in card[:2000]
    assert "Erf Enter → Mestverwerking" in card[:2000]


def test_the_task_page_shows_the_customer_and_both_ends_and_the_history_names_them(
    app, client, carrier, driver, planner, api_key
):
    ids = customer(app, carrier)
    made = client.post(url(driver), json=task_body(ids), headers=bearer(api_key.key)).get_json()
    changed = client.patch(
        f"/api/v1/taken/{made['id']}",
        json={"loslocatie_id": ids["Boerderij"], "los_adres": None, "los_stad": None},
        headers=bearer(api_key.key),
    )
    assert changed.status_code == 200, changed.get_json()
    login(client, planner)
    page = re.sub(r"\s+", " ", client.get(f"/taken/{made['id']}").get_data(as_text=True))
    route = page[page.index('id="g-route"') :]
    assert "Maatschap Ter Horst" in route[:3000]
    assert "Erf Enter" in route[:3000] and "Hengelosestraat 12" in route[:3000]
    assert "Boerderij" in route[:3000] and "Veldweg 1" in route[:3000]
    # The history says the unloading place changed in words, not ids.
    assert "Mestverwerking" in page and ids["Boerderij"] not in page
