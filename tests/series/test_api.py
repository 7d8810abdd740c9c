"""Templates and series in the API: CRUD with the tasks scopes, counts in the answers,
problem+json with stable codes, another carrier's ids 404."""

from __future__ import annotations

import pytest
from factories import bearer, create_task

from series.support import MONDAY


@pytest.fixture(autouse=True)
def fixed_today(monkeypatch):
    from portal.series import service

    monkeypatch.setattr(service, "today", lambda carrier_id: MONDAY)


def base(carrier) -> str:
    return f"/api/v1/transporteurs/{carrier.id}"


def writes() -> dict:
    import uuid

    return {"Idempotency-Key": str(uuid.uuid4())}


def test_a_task_becomes_a_template_and_a_series_plans_christmas_on_monday(
    app, client, carrier, api_key
):
    task = create_task(app, carrier, None, naam="Mest Jansen", laad_stad="Enter", duur_min=90)
    auth = {**bearer(api_key.key)}
    made = client.post(
        f"{base(carrier)}/sjablonen",
        json={"taak_id": str(task.id), "capaciteiten": ["mesttank"]},
        headers={**auth, **writes()},
    )
    assert made.status_code == 201, made.get_json()
    template = made.get_json()
    assert template["velden"]["laad_stad"] == "Enter" and template["capaciteiten"] == ["mesttank"]
    series = client.post(
        f"{base(carrier)}/reeksen",
        json={"sjabloon_id": template["id"], "naam": "Mest ma/vr", "weekdagen": [0, 4],
              "startdatum": "2026-12-14", "tijd": "07:30", "feestdagen": "volgende_werkdag"},
        headers={**auth, **writes()},
    )  # fmt: skip
    assert series.status_code == 201, series.get_json()
    assert series.get_json()["ingepland"] == 8
    shown = client.get(f"{base(carrier)}/reeksen/{series.get_json()['id']}", headers=auth)
    moved = {
        o["datum"]: o["gepland_datum"] for o in shown.get_json()["voorkomens"] if o["feestdag"]
    }
    assert moved == {"2026-12-25": "2026-12-28", "2027-01-01": "2027-01-04"}
    assert shown.get_json()["te_verwijderen"] == 8
    changed = client.patch(
        f"{base(carrier)}/reeksen/{series.get_json()['id']}",
        json={"tijd": "08:00"},
        headers={**auth, **writes()},
    )
    assert changed.status_code == 200 and changed.get_json()["gewijzigd"] == 8
    ended = client.delete(
        f"{base(carrier)}/reeksen/{series.get_json()['id']}", headers={**auth, **writes()}
    )
    assert ended.status_code == 200 and ended.get_json()["verwijderd"] == 8
    assert ended.get_json()["beeindigd_op"] is not None


def test_a_rule_that_yields_nothing_is_422_with_its_code(app, client, carrier, api_key):
    auth = bearer(api_key.key)
    template = client.post(
        f"{base(carrier)}/sjablonen",
        json={"naam": "Vee", "type": "vee_transport"},
        headers={**auth, **writes()},
    ).get_json()
    refused = client.post(
        f"{base(carrier)}/reeksen",
        json={"sjabloon_id": template["id"], "naam": "Kerst", "weekdagen": [4],
              "startdatum": "2026-12-25", "einddatum": "2026-12-25", "tijd": "07:00"},
        headers={**auth, **writes()},
    )  # fmt: skip
    assert refused.status_code == 422
    assert refused.headers["Content-Type"] == "application/problem+json"
    assert [(e["field"], e["code"]) for e in refused.get_json()["errors"]] == [
        ("einddatum", "reeks_leeg")
    ]
    in_use = client.post(
        f"{base(carrier)}/reeksen",
        json={"sjabloon_id": template["id"], "naam": "Vee vr", "weekdagen": [4],
              "startdatum": "2026-12-14", "tijd": "07:00"},
        headers={**auth, **writes()},
    )  # fmt: skip
    assert in_use.status_code == 201
    kept = client.delete(
        f"{base(carrier)}/sjablonen/{template['id']}", headers={**auth, **writes()}
    )
    assert kept.status_code == 409 and kept.get_json()["code"] == "sjabloon_in_gebruik"


def _key(app, carrier, scopes: str) -> str:
    from factories import in_carrier

    from portal.accounts.service import create_api_key

    return in_carrier(
        app,
        carrier.id,
        lambda: create_api_key(carrier_id=carrier.id, naam="Lezer", scopes=scopes),
        lambda pair: pair[1],
    )


def test_a_read_key_reads_but_does_not_write_and_another_carrier_is_404(
    app, client, carrier, other_carrier, api_key
):
    auth = bearer(api_key.key)
    made = client.post(
        f"{base(carrier)}/sjablonen",
        json={"naam": "Mest", "type": "mest_laden"},
        headers={**auth, **writes()},
    ).get_json()
    reader = bearer(_key(app, carrier, "tasks:read"))
    assert len(client.get(f"{base(carrier)}/sjablonen", headers=reader).get_json()) == 1
    refused = client.post(
        f"{base(carrier)}/sjablonen",
        json={"naam": "Mest 2", "type": "mest_laden"},
        headers={**reader, **writes()},
    )
    assert refused.status_code == 403
    other = bearer(_key(app, other_carrier, "tasks:read tasks:write"))
    assert client.get(f"{base(carrier)}/sjablonen/{made['id']}", headers=other).status_code == 404
    assert (
        client.get(f"{base(other_carrier)}/sjablonen/{made['id']}", headers=other).status_code
        == 404
    )


def test_a_template_field_a_run_does_not_keep_is_422_at_the_field(client, carrier, api_key):
    refused = client.post(
        f"{base(carrier)}/sjablonen",
        json={"naam": "Mest", "type": "mest_laden",
              "velden": {"gepland_op": "2026-12-14T07:00:00Z", "hoeveelheid": -3}},
        headers={**bearer(api_key.key), **writes()},
    )  # fmt: skip
    assert refused.status_code == 422
    assert {(e["field"], e["code"]) for e in refused.get_json()["errors"]} == {
        ("velden.gepland_op", "sjabloon_veld"),
        ("velden.hoeveelheid", "sjabloon_veld"),
    }
