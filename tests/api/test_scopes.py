"""API-key scopes: every operation names the scope it needs, and a key reaches exactly what
its scopes name.

The sweep calls every operation of the registry (the one the OpenAPI document is built from)
with one key per scope in SCOPES, on real ids: the key whose scope the operation declares
(or the `:write` scope of the same domain, which includes `:read`) gets past the check, every
other key gets 403 `insufficient-scope` naming the scope. A new route under /api/v1 that
declares no scope fails here by construction. One app per backend serves the whole module.
"""

from __future__ import annotations

import io
import json
import re
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import BACKENDS, backend_config
from factories import (
    Ref,
    bearer,
    create_carrier,
    create_driver,
    create_task,
    driver_token,
    in_carrier,
    publish_questionnaire,
    upload_file,
)
from tacho.samples import card_file

import portal.api  # noqa: F401  (registers every operation)
from portal import create_app
from portal.accounts.models import DEFAULT_SCOPES, SCOPES
from portal.api.core import OPERATION_BY_ENDPOINT, OPERATIONS, operation
from portal.extensions import db

PREFIX = "/api/v1"
README = Path(__file__).resolve().parents[2] / "README.md"
SCOPED = [op for op in OPERATIONS if not op.public]


def openapi_path(rule: str) -> str:
    """A Flask rule as an OpenAPI path: <name> and <converter:name> become {name}."""
    return re.sub(r"<(?:[^<>:]+:)?([^<>:]+)>", r"{\1}", rule)


def label(op) -> str:
    return f"{op.method.upper()} {openapi_path(op.path)}"


def reaches(scope: str, needed: str | None) -> bool:
    """The rule the sweep holds the app to: the declared scope, or the `:write` of its domain."""
    return needed is not None and needed in (scope, scope.replace(":write", ":read"))


# --- one app per backend, with a real object behind every id ------------------------------


@pytest.fixture(scope="module", params=BACKENDS)
def world(request, tmp_path_factory):
    """A carrier with a driver, tasks (planned, started with answers, spare), a file, a
    vehicle with a session, a message, a work day, a tachograph file, one API key per scope
    and the driver's access token."""
    app = create_app(backend_config(request.param, request, tmp_path_factory.mktemp("scopes")))
    client = app.test_client()
    carrier = create_carrier(app, "Van der Berg Agrotransport")
    driver = create_driver(app, carrier)
    spare_driver = create_driver(app, carrier, naam="Piet Reserve")
    revision = publish_questionnaire(app, carrier)
    task = create_task(app, carrier, driver)
    started = create_task(app, carrier, driver, naam="Gestart", status="gestart")
    spare_task = create_task(app, carrier, driver, naam="Weg ermee")
    completed = create_task(
        app,
        carrier,
        driver,
        naam="Afgerond",
        status="afgerond",
        afgerond_op=datetime(2026, 11, 20, 14, 30, tzinfo=UTC),
    )
    keys = {scope: key_with(app, carrier, scope) for scope in SCOPES}
    full = key_with(app, carrier, None)
    tacho = client.post(
        f"{PREFIX}/transporteurs/{carrier.id}/tacho_files",
        data={"file": (io.BytesIO(card_file()), "kaart.ddd")},
        content_type="multipart/form-data",
        headers=bearer(full),
    )
    assert tacho.status_code == 201, tacho.get_data(as_text=True)
    made = in_carrier(app, carrier.id, lambda: make_rows(carrier, driver, started, revision))
    params = {
        "user_token": driver.user_token,
        "week": "2026-W47",  # not an id: any valid ISO week
        "correctie_id": "00000000-0000-4000-8000-000000000001",  # none: 404 to a driver
        "transporteur_id": str(carrier.id),
        "task_id": str(task.id),
        "file_id": upload_file(client, full),
        "tacho_file_id": tacho.get_json()["id"],
        "factuur_id": str(issued_invoice(app, carrier, driver)),
        "code": "kraan",  # a default capability: every carrier has it
        "activity_type": "mest_laden",
        **{name: str(value) for name, value in made.items()},
    }
    yield {
        "app": app,
        "client": client,
        "carrier": carrier,
        "driver": driver,
        "keys": keys,
        "full": full,
        "driver_token": driver_token(client, driver),
        "params": params,
        # What a call may destroy gets objects of its own, so the others keep theirs.
        "overrides": {
            "DELETE /taken/{task_id}": {"task_id": str(spare_task.id)},
            "GET /taken/{task_id}/bewijs": {"task_id": str(completed.id)},
            "DELETE /users/{user_token}/taken": {"user_token": spare_driver.user_token},
            "DELETE /webhooks/{endpoint_id}": {"endpoint_id": params["spare_endpoint_id"]},
            "DELETE /klanten/{klant_id}": {"klant_id": params["spare_klant_id"]},
            "DELETE /klanten/{klant_id}/locaties/{locatie_id}": {
                "locatie_id": params["spare_locatie_id"]
            },
            "DELETE /tarieven/{tarief_id}": {"tarief_id": params["spare_tarief_id"]},
            "DELETE /transporteurs/{transporteur_id}/sjablonen/{sjabloon_id}": {
                "sjabloon_id": params["spare_sjabloon_id"]
            },
        },
    }
    with app.app_context():
        db.engine.dispose()


def issued_invoice(app, carrier: Ref, driver: Ref) -> uuid.UUID:
    from api.test_openapi import issued_invoice as make

    return make(app, carrier, driver)


def key_with(app, carrier: Ref, scopes: str | None) -> str:
    """A new API key of the carrier with scopes (None: the default, every scope)."""
    from portal.accounts.service import create_api_key

    return in_carrier(
        app,
        carrier.id,
        lambda: create_api_key(carrier_id=carrier.id, naam=scopes or "Alles", scopes=scopes)[1],
    )


def make_rows(carrier: Ref, driver: Ref, started: Ref, revision: Ref) -> dict:
    """The rows the other ids name, through the services."""
    from datetime import UTC, datetime, timedelta

    from portal.audit.service import SYSTEM
    from portal.fleet import service as fleet
    from portal.fleet import sessions
    from portal.hours import service as hours
    from portal.hours.days import activities
    from portal.messages import service as messages
    from portal.questionnaires import answering

    answer_session = answering.save(
        carrier_id=carrier.id,
        driver_id=driver.id,
        revision_id=revision.id,
        answers={"gewicht": 1200},
        submit=True,
        task=answering.TaskRef(started.id, revision.id),
    ).session
    vehicle = fleet.create_vehicle(carrier_id=carrier.id, kenteken="BX-12-LP")
    session = sessions.start_session(carrier_id=carrier.id, driver_id=driver.id, actor=SYSTEM)
    from datetime import date

    from portal.fleet import couplings

    trailer = fleet.create_vehicle(carrier_id=carrier.id, kenteken="WX-12-BC", soort="aanhangwagen")
    coupling = couplings.couple(
        carrier_id=carrier.id,
        motor_id=vehicle.id,
        towed_id=trailer.id,
        day=date(2026, 11, 30),
        actor=SYSTEM,
    )
    (message,) = messages.send_message(
        carrier_id=carrier.id,
        driver_ids=[driver.id],
        titel="Omleiding",
        tekst="Rij via de N279.",
        actor=SYSTEM,
    )
    start = datetime(2026, 11, 9, 5, 0, tzinfo=UTC)
    day = hours.start_work_day(
        carrier_id=carrier.id,
        driver_id=driver.id,
        actor=SYSTEM,
        gestart_op=start,
        beeindigd_op=start + timedelta(hours=8),
    )
    activity = activities.add_activity(
        carrier_id=carrier.id,
        work_day_id=day.id,
        actor=SYSTEM,
        data={"soort": "rijden", "begin": start, "einde": start + timedelta(hours=1)},
    )
    from sqlalchemy import select

    from portal.webhooks import resending
    from portal.webhooks import service as webhooks
    from portal.webhooks.models import WebhookDelivery

    def endpoint(url: str):
        data = webhooks.EndpointIn(url=url, gebeurtenissen=["taak.afgerond"])
        return webhooks.create_endpoint(carrier_id=carrier.id, data=data, actor=SYSTEM)[0]

    hook, spare_hook = (
        endpoint("https://tms.example.com/in"),
        endpoint("https://oud.example.com/in"),
    )
    resending.send_test(carrier_id=carrier.id, endpoint_id=hook.id, actor=SYSTEM)
    db.session.commit()  # the test event's delivery is written with the commit
    delivery = db.session.scalar(
        select(WebhookDelivery).where(WebhookDelivery.transporteur_id == carrier.id)
    )
    delivery.status = "failed"  # so it may be sent again
    from portal.customers import service as customers

    customer, spare_customer = (
        customers.create_customer(carrier_id=carrier.id, data={"naam": naam}, actor=SYSTEM)
        for naam in ("Maatschap Ter Horst", "Oud-klant")
    )
    place, spare_place = (
        customers.add_place(
            carrier_id=carrier.id, customer_id=customer.id, data={"naam": naam}, actor=SYSTEM
        )
        for naam in ("Erf Enter", "Oude schuur")
    )
    from datetime import date
    from decimal import Decimal

    from portal.billing import tariffs

    tariff, spare_tariff = (
        tariffs.create_tariff(
            carrier_id=carrier.id,
            data=tariffs.TariffIn(
                activity_type="mest_laden", geldig_vanaf=day, grondslag="vracht", prijs=Decimal(85)
            ),
            actor=SYSTEM,
        )
        for day in (date(2026, 1, 1), date(2025, 1, 1))
    )
    from datetime import time

    from portal.series import service as series

    template, spare_template = (
        series.create_template(
            carrier_id=carrier.id, data={"naam": naam, "type": "mest_laden"}, actor=SYSTEM
        )
        for naam in ("Mest Ter Horst", "Oud sjabloon")
    )
    run = series.create_series(
        carrier_id=carrier.id,
        data={"sjabloon_id": template.id, "naam": "Mest ma", "weekdagen": (0,),
              "startdatum": date(2026, 12, 14), "tijd": time(7, 30)},
        actor=SYSTEM,
    )  # fmt: skip
    from portal.planner import service as planner

    week = datetime(2026, 12, 7, tzinfo=UTC)
    proposal = planner.start_proposal(
        carrier_id=carrier.id, van=week, tot=week + timedelta(days=7), actor=SYSTEM
    )
    return {
        "voorstel_id": proposal.id,
        "sjabloon_id": template.id,
        "spare_sjabloon_id": spare_template.id,
        "reeks_id": run.id,
        "tarief_id": tariff.id,
        "spare_tarief_id": spare_tariff.id,
        "klant_id": customer.id,
        "spare_klant_id": spare_customer.id,
        "locatie_id": place.id,
        "spare_locatie_id": spare_place.id,
        "endpoint_id": hook.id,
        "spare_endpoint_id": spare_hook.id,
        "delivery_id": delivery.id,
        "answer_session_id": answer_session.id,
        "vehicle_id": vehicle.id,
        "session_id": session.id,
        "koppeling_id": coupling.id,
        "notification_id": message.id,
        "werkdag_id": day.id,
        "activiteit_id": activity.id,
    }


def call(world: dict, op, token: str):
    """The operation on real ids as the bearer of token; a write with an empty JSON body."""
    params = {**world["params"], **world["overrides"].get(label(op), {})}
    path = re.sub(r"<(?:[^<>:]+:)?([^<>:]+)>", lambda m: params[m.group(1)], op.path)
    body = {} if op.method in ("post", "put", "patch") else None
    return world["client"].open(
        PREFIX + path, method=op.method.upper(), json=body, headers=bearer(token)
    )


def refused_for_scope(response) -> bool:
    return (
        response.status_code == 403
        and response.mimetype == "application/problem+json"
        and response.get_json()["type"].endswith("/insufficient-scope")
    )


# --- the sweep ----------------------------------------------------------------------------


@pytest.mark.parametrize("op", SCOPED, ids=label)
def test_a_key_reaches_an_operation_exactly_when_it_holds_the_scope_declared(world, op):
    wrong = []
    for scope in SCOPES:
        response = call(world, op, world["keys"][scope])
        status = response.status_code
        if reaches(scope, op.scope):
            # Past the check: the handler answers (a 404/409/422 of its own is fine), and a
            # read on real ids answers them.
            if refused_for_scope(response) or status in (401, 500):
                wrong.append((scope, status, response.get_data(as_text=True)[:200]))
            elif op.method == "get" and status != 200:
                wrong.append((scope, status, "a read of real ids should answer 200"))
            continue
        if op.scope is None:
            # Not for API keys at all (the driver app only): the handler refuses, not the scope.
            if refused_for_scope(response) or status != 403:
                wrong.append((scope, status, response.get_data(as_text=True)[:200]))
            continue
        problem = response.get_json() if response.is_json else None
        if not (
            refused_for_scope(response)
            and problem["required_scope"] == op.scope
            and op.scope in problem["detail"]
            and f'scope="{op.scope}"' in response.headers.get("WWW-Authenticate", "")
        ):
            wrong.append((scope, status, response.get_data(as_text=True)[:200]))
    assert wrong == [], f"{label(op)} needs {op.scope!r}"


@pytest.mark.parametrize("op", SCOPED, ids=label)
def test_a_drivers_token_is_never_refused_for_a_scope(world, op):
    response = call(world, op, world["driver_token"])
    assert response.status_code not in (401, 500), response.get_data(as_text=True)
    assert not refused_for_scope(response), response.get_json()


def test_every_api_route_declares_its_scope_or_why_it_needs_none(world):
    routes = [
        rule for rule in world["app"].url_map.iter_rules() if rule.rule.startswith(PREFIX + "/")
    ]
    assert routes, "no routes under /api/v1"
    undeclared = []
    for rule in routes:
        op = OPERATION_BY_ENDPOINT.get(rule.endpoint)
        if op is None or not (op.scope in SCOPES or op.public or op.unscoped):
            undeclared.append(rule.rule)
    assert undeclared == [], "register these with operation(..., scope=...)"


def test_every_scope_is_needed_by_some_operation():
    declared = {op.scope for op in OPERATIONS}
    assert [scope for scope in SCOPES if scope not in declared] == []


def test_an_operation_without_a_scope_can_not_be_registered():
    with pytest.raises(TypeError, match="scope"):
        operation("/nieuw", "GET", summary="Nieuw", tag="x")
    with pytest.raises(TypeError, match="unscoped"):
        operation("/nieuw", "GET", scope=None, summary="Nieuw", tag="x")
    with pytest.raises(ValueError, match="unknown scope 'alles'"):
        operation("/nieuw", "GET", scope="alles", summary="Nieuw", tag="x")
    assert "/nieuw" not in {op.path for op in OPERATIONS}


# --- what the drills found ------------------------------------------------------------------


def test_an_hours_key_can_not_cancel_complete_or_list_tasks(world):
    client, carrier, driver = world["client"], world["carrier"], world["driver"]
    task = create_task(world["app"], carrier, driver, naam="Niet van jou", status="gestart")
    hours = bearer(world["keys"]["hours:read"])

    cancel = client.patch(
        f"{PREFIX}/taken/{task.id}/status", json={"status": "geannuleerd"}, headers=hours
    )
    complete = client.post(f"{PREFIX}/taken/{task.id}/afronding", json={}, headers=hours)
    listed = client.get(f"{PREFIX}/taken", headers=hours)

    for response in (cancel, complete, listed):
        assert response.status_code == 403
        assert response.get_json()["type"].endswith("/insufficient-scope")
    assert cancel.get_json()["required_scope"] == "tasks:write"
    assert complete.get_json()["required_scope"] == "tasks:write"
    assert listed.get_json()["required_scope"] == "tasks:read"
    details = client.get(f"{PREFIX}/taken/{task.id}/details", headers=bearer(world["full"]))
    assert details.get_json()["taak"]["status"] == "gestart"
    from portal.billing.models import BillingLine

    lines = in_carrier(
        world["app"],
        carrier.id,
        lambda: db.session.query(BillingLine).filter_by(taak_id=task.id).count(),
    )
    assert lines == 0


def test_a_driver_still_moves_its_own_task(world):
    task = create_task(world["app"], world["carrier"], world["driver"], naam="Eigen taak")
    response = world["client"].patch(
        f"{PREFIX}/taken/{task.id}/status",
        json={"status": "ontvangen"},
        headers=bearer(world["driver_token"]),
    )
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["status"] == "ontvangen"


def test_a_key_made_with_the_default_has_every_scope(world):
    assert DEFAULT_SCOPES.split() == list(SCOPES)
    full = bearer(world["full"])
    user_token = world["driver"].user_token
    for path in (f"/users/{user_token}", "/activity_questionnaires", "/taken"):
        assert world["client"].get(PREFIX + path, headers=full).status_code == 200, path


def test_create_api_key_on_the_command_line_takes_scopes(world):
    runner = world["app"].test_cli_runner()
    result = runner.invoke(
        args=[
            "create-api-key",
            "--transporteur",
            str(world["carrier"].id),
            "--naam",
            "Planbord",
            "--scopes",
            "drivers:read questionnaires:read",
        ]
    )
    assert result.exit_code == 0, result.output
    key = json.loads(result.stdout.strip().splitlines()[-1])
    assert key["scopes"] == "questionnaires:read drivers:read"  # in the model's order
    client, headers = world["client"], bearer(key["key"])
    user_token = world["driver"].user_token
    assert client.get(f"{PREFIX}/users/{user_token}", headers=headers).status_code == 200
    assert client.get(f"{PREFIX}/activity_questionnaires", headers=headers).status_code == 200
    tasks = client.get(f"{PREFIX}/users/{user_token}/taken", headers=headers)
    assert tasks.status_code == 403
    assert tasks.get_json()["required_scope"] == "tasks:read"


# --- the documents ----------------------------------------------------------------------------


def test_the_openapi_document_names_each_operations_scope(world):
    document = world["client"].get(f"{PREFIX}/openapi.json").get_json()
    bearer_scheme = document["components"]["securitySchemes"]["bearer"]
    assert list(bearer_scheme["x-scopes"]) == list(SCOPES)
    for op in OPERATIONS:
        doc = document["paths"][openapi_path(op.path)][op.method]
        if op.public:
            assert doc["security"] == [], label(op)
            continue
        assert doc["x-required-scope"] == op.scope, label(op)
        assert "403" in doc["responses"], label(op)
        if op.scope is None:
            assert doc["security"] == [{"bearer": []}] and doc["x-unscoped"], label(op)
            continue
        granting = [scope for scope in SCOPES if reaches(scope, op.scope)]
        assert doc["security"] == [{"bearer": [scope]} for scope in granting], label(op)
        assert f"`{op.scope}`" in doc["description"], label(op)
        assert "insufficient-scope" in doc["responses"]["403"]["description"], label(op)


def test_the_readme_names_every_scope():
    readme = README.read_text(encoding="utf-8")
    assert "create-api-key" in readme and "--scopes" in readme
    assert [scope for scope in SCOPES if f"`{scope}`" not in readme] == []
    assert "insufficient-scope" in readme
