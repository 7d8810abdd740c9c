"""The OpenAPI 3.1 document of /api/v1, and a schemathesis run of every operation against it.

The run goes in-process through the WSGI app, signed in with a real API key, and sends the
real driver's user_token most of the time. It tolerates no server error and no response the
document does not describe. The bad-input table keeps the cases earlier runs found (NUL
characters, calendar edges, 64-bit offsets, undocumented 400/413) as regression cases.
"""

from __future__ import annotations

import io
import logging
import re
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import jsonschema_rs
import pytest
import schemathesis
from factories import (
    PASSWORD,
    bearer,
    create_task,
    driver_token,
    in_carrier,
    png_bytes,
    publish_questionnaire,
)
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ensure_resource_availability,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    use_after_free,
)
from seed_fields import SEED_TASK_FIELDS
from tacho.samples import card_file, vu_file_1

import portal.api  # noqa: F401  (registers every operation)
from portal.api.core import OPERATIONS

DOCUMENT = "/api/v1/openapi.json"
TINY_PNG = png_bytes()
PREFIX = "/api/v1"
SEED_QUESTIONNAIRE_FIELDS = [
    "id",
    "transporteur_id",
    "activity_type",
    "questionnaire_id",
    "definition",
    "is_active",
    "created_at",
    "updated_at",
]
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
FUZZ_SETTINGS = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,  # the same cases on every run, so CI is reproducible
    database=None,
    phases=[Phase.explicit, Phase.generate, Phase.shrink],
)


def openapi_path(rule: str) -> str:
    """A Flask rule as an OpenAPI path: <name> and <converter:name> become {name}."""
    return re.sub(r"<(?:[^<>:]+:)?([^<>:]+)>", r"{\1}", rule)


OPERATION_LABELS = sorted({f"{op.method.upper()} {openapi_path(op.path)}" for op in OPERATIONS})
# schemathesis leaves out the operation that serves the document it was loaded from.
FUZZED_LABELS = [label for label in OPERATION_LABELS if label != "GET /openapi.json"]


def api_headers(key: str) -> dict[str, str]:
    # identity: the app gzips JSON of 1 KiB and more for clients that accept it (as the
    # requests default Accept-Encoding does), and schemathesis' WSGI transport hands the
    # compressed bytes to the checks undecoded.
    return {**bearer(key), "Accept-Encoding": "identity"}


@pytest.fixture
def document(client) -> dict:
    response = client.get(DOCUMENT)
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    return response.get_json()


def load_schema(app):
    """The document as schemathesis loads it from the WSGI app; it refuses invalid documents."""
    schema = schemathesis.openapi.from_wsgi(DOCUMENT, app, config=schemathesis.Config())
    schema.validate()
    return schema


# --- 1. the document -------------------------------------------------------------------


def test_document_is_openapi_3_1_json(document):
    assert document["openapi"] == "3.1.0"
    assert document["info"]["title"] and document["info"]["version"]
    assert document["servers"] == [{"url": PREFIX}]


def test_every_api_route_is_documented_with_its_methods(app, document):
    routed = {
        (openapi_path(rule.rule.removeprefix(PREFIX)), method.lower())
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith(PREFIX + "/")
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    documented = {(path, method) for path, item in document["paths"].items() for method in item}
    assert routed, "no routes under /api/v1"
    assert routed - documented == set(), "routed but not documented"
    assert documented - routed == set(), "documented but not routed"


def _ref(schema: dict) -> str:
    return schema["$ref"].removeprefix("#/components/schemas/")


def test_driver_tasks_answer_an_array_of_the_seed_task(document):
    operation = document["paths"]["/users/{user_token}/taken"]["get"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["type"] == "array"
    assert _ref(schema["items"]) == "Task"
    assert [p["name"] for p in operation["parameters"] if p["in"] == "path"] == ["user_token"]
    task = document["components"]["schemas"]["Task"]
    missing = [name for name in SEED_TASK_FIELDS if name not in task["properties"]]
    assert missing == []
    assert "chauffeur_id" in task["properties"]
    vragenpad = task["properties"]["vragenpad"]
    assert {"$ref": "#/components/schemas/QuestionnaireDefinition"} in vragenpad["anyOf"]
    assert {"type": "null"} in vragenpad["anyOf"]
    assert task["properties"]["transporteur_id"]["format"] == "uuid"


def test_activity_questionnaires_answer_an_array_of_activity_questionnaire(document):
    operation = document["paths"]["/activity_questionnaires"]["get"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["type"] == "array"
    assert _ref(schema["items"]) == "ActivityQuestionnaire"
    questionnaire = document["components"]["schemas"]["ActivityQuestionnaire"]
    assert [n for n in SEED_QUESTIONNAIRE_FIELDS if n not in questionnaire["properties"]] == []
    assert _ref(questionnaire["properties"]["definition"]) == "QuestionnaireDefinition"


def test_schemathesis_loads_and_validates_the_document(app):
    schema = load_schema(app)
    labels = sorted(result.ok().label for result in schema.get_all_operations())
    assert labels == FUZZED_LABELS


def test_schemathesis_refuses_an_invalid_document(document):
    broken = {**document, "paths": {"/x": {"get": {"responses": {"200": {}}}}}}
    with pytest.raises(jsonschema_rs.ValidationError, match="description"):
        schemathesis.openapi.from_dict(broken, config=schemathesis.Config()).validate()


# --- 2. bad input: a documented client error, never a 500 -------------------------------


def bad(
    case_id: str,
    method: str,
    path: str,
    *,
    query: dict | None = None,
    json: object = None,
    data: bytes | None = None,
    content_type: str | None = None,
):
    request = {
        "method": method,
        "path": path,
        "query": query,
        "json": json,
        "data": data,
        "content_type": content_type,
    }
    return pytest.param(request, id=case_id)


TAKEN = "/users/{user_token}/taken"
BAD_INPUT = [
    # NUL: PostgreSQL text cannot hold it, so it must be refused before SQL.
    bad(
        "nul-in-task-body",
        "POST",
        TAKEN,
        json={"type": "mest_laden", "naam": "Mest\x00laden"},
    ),
    bad(
        "nul-in-username",
        "POST",
        "/auth/token",
        json={"grant_type": "password", "username": "jan\x00@example.nl", "password": "x"},
    ),
    bad(
        "nul-in-form-username",
        "POST",
        "/auth/token",
        data=b"grant_type=password&username=jan%00%40example.nl&password=x",
        content_type="application/x-www-form-urlencoded",
    ),
    bad(
        "nul-in-revoke-body",
        "POST",
        "/auth/revoke",
        json={"token": "a\x00b"},
    ),
    bad(
        "nul-in-questionnaire-query",
        "GET",
        "/activity_questionnaires",
        query={"activity_type": "mest\x00laden"},
    ),
    bad("nul-in-task-query", "GET", TAKEN, query={"status": "gepland\x00"}),
    bad("nul-in-path", "GET", "/users/jan%00/taken"),
    # A body that is not JSON, or JSON that orjson refuses (a lone surrogate escape).
    bad(
        "broken-json-revoke",
        "POST",
        "/auth/revoke",
        data=b"{not json",
        content_type="application/json",
    ),
    bad(
        "broken-json-task",
        "POST",
        TAKEN,
        data=b"{not json",
        content_type="application/json",
    ),
    bad(
        "lone-surrogate-revoke",
        "POST",
        "/auth/revoke",
        data=b'{"token": "\\ud800"}',
        content_type="application/json",
    ),
    bad(
        "oversized-token-body",
        "POST",
        "/auth/token",
        data=b'{"grant_type": "password", "username": "' + b"a" * 1024 * 1024 + b'"}',
        content_type="application/json",
    ),
    # Dates and timestamps at the edges of the calendar.
    bad("tot-9999-12-31", "GET", TAKEN, query={"tot": "9999-12-31"}),
    bad("van-0001-01-01", "GET", TAKEN, query={"van": "0001-01-01"}),
    bad(
        "van-year-1-plus-1h",
        "GET",
        TAKEN,
        query={"van": "0001-01-01T00:00:00+01:00"},
    ),
    bad(
        "tot-year-9999-minus-1h",
        "GET",
        TAKEN,
        query={"tot": "9999-12-31T23:59:59-01:00"},
    ),
    bad(
        "gepland-op-year-1-plus-1h",
        "POST",
        TAKEN,
        json={"type": "mest_laden", "naam": "Vroeg", "gepland_op": "0001-01-01T00:00:00+01:00"},
    ),
    bad(
        "gepland-op-year-9999-minus-1h",
        "POST",
        TAKEN,
        json={"type": "mest_laden", "naam": "Laat", "gepland_op": "9999-12-31T23:59:59-01:00"},
    ),
    # Integers beyond what the database holds.
    bad(
        "questionnaire-offset-2-63",
        "GET",
        "/activity_questionnaires",
        query={"offset": str(2**63)},
    ),
    bad(
        "questionnaire-offset-10-30",
        "GET",
        "/activity_questionnaires",
        query={"offset": "1" + "0" * 30},
    ),
    bad("task-offset-2-63", "GET", TAKEN, query={"offset": str(2**63)}),
]


@pytest.mark.parametrize("bad_request", BAD_INPUT)
def test_bad_input_answers_a_documented_client_error(
    client, driver, api_key, document, bad_request
):
    method, path = bad_request["method"], bad_request["path"]
    template = TAKEN if path.startswith("/users/") else path
    documented = {int(code) for code in document["paths"][template][method.lower()]["responses"]}
    response = client.open(
        PREFIX + path.replace("{user_token}", driver.user_token),
        method=method,
        query_string=bad_request["query"],
        json=bad_request["json"],
        data=bad_request["data"],
        content_type=bad_request["content_type"],
        headers=api_headers(api_key.key),
    )
    assert 400 <= response.status_code < 500, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    assert response.status_code in documented, (response.status_code, sorted(documented))


def test_an_escaped_backslash_before_u0000_is_no_nul(client, driver, api_key):
    response = client.post(
        f"{PREFIX}/users/{driver.user_token}/taken",
        data=b'{"type": "mest_laden", "naam": "C:\\\\u0000 map"}',
        content_type="application/json",
        headers=api_headers(api_key.key),
    )
    assert response.status_code == 201, response.get_data(as_text=True)
    assert response.get_json()["naam"] == "C:\\u0000 map"


# --- 3. schemathesis over the whole document --------------------------------------------


COMPLETED_AT = datetime(2026, 11, 20, 14, 30, tzinfo=UTC)


@pytest.fixture
def world(app, client, carrier, driver, api_key) -> dict:
    """A carrier with a driver (with a password), an API key, a published questionnaire,
    tasks that pin it (one planned, one started, one to delete) and an uploaded photo, so
    every operation can be called with real ids."""
    revision = publish_questionnaire(app, carrier)
    task = create_task(app, carrier, driver, hoeveelheid=28.5, eenheid="ton")
    started = create_task(app, carrier, driver, naam="Gestart", status="gestart")
    session_id = submit_answers(app, carrier, driver, started, revision)
    spare = create_task(app, carrier, driver, naam="Weg ermee")
    completed = create_task(
        app, carrier, driver, naam="Afgerond", status="afgerond", afgerond_op=COMPLETED_AT
    )
    upload = client.post(  # the driver's photo: the driver and the office read it
        f"{PREFIX}/bestanden",
        data={"soort": "photo", "file": (io.BytesIO(TINY_PNG), "foto.png")},
        content_type="multipart/form-data",
        headers=bearer(driver_token(client, driver)),
    )
    assert upload.status_code == 201, upload.get_data(as_text=True)
    scan = client.post(  # the office's scan of a paper delivery note
        f"{PREFIX}/bestanden",
        data={"soort": "document_scan", "file": (io.BytesIO(b"%PDF-1.4\n%%EOF\n"), "bon.pdf")},
        content_type="multipart/form-data",
        headers=bearer(api_key.key),
    )
    assert scan.status_code == 201, scan.get_data(as_text=True)
    vehicle_id, vehicle_session_id, vehicle_qr = vehicle_and_session(app, carrier, driver)
    coupling = coupled_pair(app, carrier)
    coupling["driver_token"] = driver_token(client, coupling.pop("driver"))
    notification_id = queued_message(app, carrier, driver)
    work_day_id, activity_id = work_day_with_activity(app, carrier, driver)
    tacho = client.post(
        f"{PREFIX}/transporteurs/{carrier.id}/tacho_files",
        data={"file": (io.BytesIO(card_file()), "kaart.ddd")},
        content_type="multipart/form-data",
        headers=bearer(api_key.key),
    )
    assert tacho.status_code == 201, tacho.get_data(as_text=True)
    endpoint_id, delivery_id = webhook_with_a_failed_delivery(app, carrier)
    klant_id, locatie_id = customer_with_a_place(app, carrier)
    sjabloon_id, spare_template_id, reeks_id = template_and_series(app, carrier)
    voorstel_id = solved_proposal(app, carrier)
    tarief_id = default_tariff(app, carrier)
    factuur_id = issued_invoice(app, carrier, driver)
    return {
        "driver": driver,
        "key": api_key.key,
        "driver_token": driver_token(client, driver),
        "params": {
            "user_token": driver.user_token,
            "file_id": upload.get_json()["id"],
            "task_id": str(task.id),
            "transporteur_id": str(carrier.id),
            "answer_session_id": str(session_id),
            "vehicle_id": str(vehicle_id),
            "session_id": str(vehicle_session_id),
            "notification_id": str(notification_id),
            "tacho_file_id": tacho.get_json()["id"],
            "werkdag_id": str(work_day_id),
            "activiteit_id": str(activity_id),
            "endpoint_id": str(endpoint_id),
            "delivery_id": str(delivery_id),
            "klant_id": str(klant_id),
            "locatie_id": str(locatie_id),
            "tarief_id": str(tarief_id),
            "factuur_id": str(factuur_id),
            "week": "2026-W47",  # not an id: any valid ISO week
            "correctie_id": str(correction_of(app, carrier, driver, activity_id)),
            "sjabloon_id": str(sjabloon_id),
            "reeks_id": str(reeks_id),
            "koppeling_id": str(coupling["id"]),
            "voorstel_id": str(voorstel_id),
            "code": "kraan",  # a default capability: every carrier has it
            "activity_type": "mest_laden",
        },
        "coupling": coupling,
        "spare_template_id": str(spare_template_id),
        "vehicle_qr": vehicle_qr,
        "task_id": str(task.id),
        "revision_id": str(revision.id),
        "started_task_id": str(started.id),
        "spare_task_id": str(spare.id),
        "completed_task_id": str(completed.id),
        "scan_id": scan.get_json()["id"],
    }


def issued_invoice(app, carrier, driver):
    """An invoice issued by an export: the carrier's details, a customer, a task done."""
    from billing.test_issued_invoices import (
        completed,
        documents_of,
        export,
        make_customer,
        make_tariff,
        set_seller,
    )

    set_seller(app, carrier)
    klant_id = make_customer(app, carrier, naam="Ter Horst Facturen", debiteurnummer="90001")
    make_tariff(app, carrier, klant_id=klant_id)
    completed(app, carrier, driver, klant_id, "Mest gefactureerd", 12)
    [invoice] = documents_of(app, carrier, export(app, carrier, klant_id))
    return invoice["id"]


def solved_proposal(app, carrier):
    """A planning proposal of the week of 7 December 2026, solved as the worker does."""
    from datetime import timedelta

    from portal.audit.service import SYSTEM
    from portal.planner import service as planner

    def make():
        van = datetime(2026, 12, 7, tzinfo=UTC)
        found = planner.start_proposal(
            carrier_id=carrier.id, van=van, tot=van + timedelta(days=7), actor=SYSTEM, seconden=1
        )
        planner.claim_next(carrier_id=carrier.id, now=found.created_at)
        return planner.solve_proposal(carrier_id=carrier.id, proposal_id=found.id).id

    return in_carrier(app, carrier.id, make)


def template_and_series(app, carrier):
    """A task template with a weekly series made from it, and a spare template (deletable)."""
    from datetime import date, time

    from portal.audit.service import SYSTEM
    from portal.series import service

    def make():
        template = service.create_template(
            carrier_id=carrier.id, data={"naam": "Mest Jansen", "type": "mest_laden"}, actor=SYSTEM
        )
        spare = service.create_template(
            carrier_id=carrier.id, data={"naam": "Reserve", "type": "voer_leveren"}, actor=SYSTEM
        )
        series = service.create_series(
            carrier_id=carrier.id,
            data={"sjabloon_id": template.id, "naam": "Mest ma/vr", "weekdagen": (0, 4),
                  "startdatum": date(2026, 12, 14), "tijd": time(7, 30)},
            actor=SYSTEM,
        )  # fmt: skip
        return template.id, spare.id, series.id

    return in_carrier(app, carrier.id, make)


def customer_with_a_place(app, carrier):
    """A customer with one loading place."""
    from portal.audit.service import SYSTEM
    from portal.customers import service

    def make():
        customer = service.create_customer(
            carrier_id=carrier.id, data={"naam": "Maatschap Ter Horst"}, actor=SYSTEM
        )
        place = service.add_place(
            carrier_id=carrier.id,
            customer_id=customer.id,
            data={"naam": "Erf Enter", "soort": "laden"},
            actor=SYSTEM,
        )
        return customer.id, place.id

    return in_carrier(app, carrier.id, make)


def default_tariff(app, carrier):
    """The carrier's default tariff for mest_laden, per ton from 1 January 2026."""
    from datetime import date
    from decimal import Decimal

    from portal.audit.service import SYSTEM
    from portal.billing import tariffs

    data = tariffs.TariffIn(
        activity_type="mest_laden",
        geldig_vanaf=date(2026, 1, 1),
        grondslag="eenheid",
        eenheid="ton",
        prijs=Decimal("4.35"),
    )
    return in_carrier(
        app,
        carrier.id,
        lambda: tariffs.create_tariff(carrier_id=carrier.id, data=data, actor=SYSTEM).id,
    )


def webhook_with_a_failed_delivery(app, carrier):
    """A webhook endpoint (a public address nobody posts to: no worker runs here) and a
    test event's delivery to it, marked failed so it can be sent again."""
    from sqlalchemy import update

    from portal.audit.service import SYSTEM
    from portal.extensions import db
    from portal.webhooks import resending, service
    from portal.webhooks.models import WebhookDelivery

    def make():
        data = service.EndpointIn(
            url="https://tms.example.com/in", gebeurtenissen=["taak.afgerond"]
        )
        endpoint, _secret = service.create_endpoint(carrier_id=carrier.id, data=data, actor=SYSTEM)
        resending.send_test(carrier_id=carrier.id, endpoint_id=endpoint.id, actor=SYSTEM)
        return endpoint.id

    endpoint_id = in_carrier(app, carrier.id, make)

    def fail():
        db.session.execute(
            update(WebhookDelivery)
            .where(WebhookDelivery.transporteur_id == carrier.id)
            .values(status="failed", volgende_poging_op=None)
        )
        return db.session.scalar(
            db.select(WebhookDelivery.id).where(WebhookDelivery.transporteur_id == carrier.id)
        )

    return endpoint_id, in_carrier(app, carrier.id, fail)


def vehicle_and_session(app, carrier, driver):
    """A vehicle, its QR sticker's payload, and a pending session of the driver to scan it."""
    from portal.audit.service import SYSTEM
    from portal.fleet import service, sessions

    def make():
        vehicle = service.create_vehicle(carrier_id=carrier.id, kenteken="BX-12-LP")
        session = sessions.start_session(carrier_id=carrier.id, driver_id=driver.id, actor=SYSTEM)
        return vehicle.id, session.id, service.sticker_payload(vehicle)

    return in_carrier(app, carrier.id, make)


def coupled_pair(app, carrier) -> dict:
    """A farm tractor with a tanker coupled for a day, a spare trailer and its sticker, and
    a second driver driving the tractor (who couples the spare by scanning it)."""
    from datetime import date

    from factories import create_driver

    from portal.audit.service import SYSTEM
    from portal.extensions import db
    from portal.fleet import couplings, service
    from portal.fleet.models import VehicleSession
    from portal.types import utcnow

    farmer = create_driver(app, carrier, naam="Piet Trekker", email="piet@example.com")

    def make():
        tractor = service.create_vehicle(
            carrier_id=carrier.id, kenteken="VZH-56-E", soort="landbouwtrekker"
        )
        tanker = service.create_vehicle(
            carrier_id=carrier.id, kenteken="WX-12-BC", soort="aanhangwagen"
        )
        spare = service.create_vehicle(
            carrier_id=carrier.id, kenteken="WX-13-BC", soort="aanhangwagen"
        )
        made = couplings.couple(
            carrier_id=carrier.id,
            motor_id=tractor.id,
            towed_id=tanker.id,
            day=date(2026, 11, 30),
            actor=SYSTEM,
        )
        session = VehicleSession(
            transporteur_id=carrier.id,
            chauffeur_id=farmer.id,
            vehicle_id=tractor.id,
            status="active",
            verloopt_op=utcnow(),
            gestart_op=utcnow(),
        )
        db.session.add(session)
        db.session.flush()
        return {
            "id": made.id,
            "tractor": str(tractor.id),
            "spare": str(spare.id),
            "spare_qr": service.sticker_payload(spare),
            "session_id": str(session.id),
            "driver": farmer,
        }

    return in_carrier(app, carrier.id, make)


def work_day_with_activity(app, carrier, driver):
    """A work day of the driver that has ended (9 Nov 2026, 06:00 to 14:00 in Amsterdam)
    with an hour of driving."""
    from datetime import UTC, datetime, timedelta

    from portal.audit.service import SYSTEM
    from portal.hours import service
    from portal.hours.days import activities

    start = datetime(2026, 11, 9, 5, 0, tzinfo=UTC)

    def make():
        day = service.start_work_day(
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
        return day.id, activity.id

    return in_carrier(app, carrier.id, make)


def queued_message(app, carrier, driver):
    """A message to the driver, waiting in the outbox."""
    from portal.audit.service import SYSTEM
    from portal.messages import service

    return in_carrier(
        app,
        carrier.id,
        lambda: (
            service.send_message(
                carrier_id=carrier.id,
                driver_ids=[driver.id],
                titel="Omleiding",
                tekst="Rij via de N279.",
                actor=SYSTEM,
            )[0].id
        ),
    )


def push_subscription() -> dict:
    """A browser's PushSubscription with a real P-256 key, on a public push service."""
    import os

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    from portal.messages.push import b64url

    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    return {
        "endpoint": "https://push.example.net/openapi",
        "expirationTime": None,
        "keys": {"p256dh": b64url(point), "auth": b64url(os.urandom(16))},
    }


def submit_answers(app, carrier, driver, task, revision):
    """The started task's questionnaire answered and submitted, so it may be completed."""
    from portal.questionnaires import answering

    return in_carrier(
        app,
        carrier.id,
        lambda: (
            answering.save(
                carrier_id=carrier.id,
                driver_id=driver.id,
                revision_id=revision.id,
                answers={"gewicht": 1200},
                submit=True,
                task=answering.TaskRef(task.id, revision.id),
            ).session.id
        ),
    )


@contextmanager
def server_errors() -> Iterator[list[BaseException]]:
    """The exceptions the app logs as unhandled (it turns them into a 500 problem)."""
    errors: list[BaseException] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.exc_info and record.exc_info[1] is not None:
                errors.append(record.exc_info[1])

    handler = Collect(logging.ERROR)
    logger = logging.getLogger("portal.web")
    logger.addHandler(handler)
    try:
        yield errors
    finally:
        logger.removeHandler(handler)


# Operations only the driver app calls: fuzzed with the driver's token (a key gets 403).
DRIVER_ONLY = {
    "POST /questionnaire_answers",
    "POST /users/{user_token}/weken/{week}/correcties/{correctie_id}/reactie",
    "POST /vehicle_sessions",
    "POST /vehicle_sessions/{session_id}/validate",
    "POST /vehicle_sessions/{session_id}/koppelen",
}


def correction_of(app, carrier, driver, activity_id) -> uuid.UUID:
    """A planner's correction of the driver's activity in week 2026-W47, unanswered."""
    from portal.hours.pay_models import HoursCorrection

    state = {"soort": "rijden", "begin": "2026-11-16T07:00:00.000Z", "einde": None}
    return in_carrier(
        app,
        carrier.id,
        lambda: _add(
            HoursCorrection(
                transporteur_id=carrier.id,
                chauffeur_id=driver.id,
                jaar=2026,
                week=47,
                activiteit_id=activity_id,
                oud=state,
                nieuw={**state, "begin": "2026-11-16T06:30:00.000Z"},
                reden="Vertrek volgens de tachograaf",
                door="Els Vos",
            )
        ),
    )


def _add(row):
    from portal.extensions import db

    db.session.add(row)
    db.session.flush()
    return row.id


def explicit_cases(operation, world: dict) -> list:
    """Requests that must succeed, so every 2xx schema is checked against a real answer."""
    driver, headers = world["driver"], api_headers(world["key"])
    bodies = {
        "POST /auth/token": [
            {"grant_type": "password", "username": driver.email, "password": PASSWORD}
        ],
        "POST /auth/revoke": [{"token": "unknown-refresh-token"}],
        "POST /users/{user_token}/taken": [
            {
                "type": "mest_laden",
                "naam": "Mest laden Enter",
                "gepland_op": "2026-11-21T08:30:00.000Z",
                "locatie_lat": 52.3,
                "locatie_lng": 6.6,
            },
            {"type": "voer_leveren", "naam": "Voer zonder vragenlijst"},
        ],
        "PATCH /taken/{task_id}": [{"naam": "Nieuwe naam"}],
        "PATCH /taken/{task_id}/status": [{"status": "ontvangen"}],
        "PUT /users/{user_token}/locatie": [
            {"lat": 52.2215, "lng": 6.8937, "recorded_at": "2026-01-02T08:30:00.000Z"},
            {"punten": [{"lat": 52.3, "lng": 6.9, "recorded_at": "2026-01-02T08:31:00.000Z"}]},
        ],
        "POST /taken/{task_id}/afronding": [{"kilometers": 12, "wachttijd_minuten": 5}],
        "POST /taken/{task_id}/papieren-afronding": [
            {"reden": "Telefoon van de chauffeur leeg", "scan": world["scan_id"]}
        ],
        "POST /users/{user_token}/notificaties": [{"titel": "Omleiding", "tekst": "Via de N279."}],
        "POST /users/{user_token}/push_abonnementen": [push_subscription()],
        "PATCH /voertuigen/{vehicle_id}": [
            {"omschrijving": "DAF XF", "kooiaap": True},
            {"kenmerken": {"mesttank": {"volume_m3": 18}}, "max_snelheid_kmh": 40},
        ],
        "POST /voertuigkenmerken": [{"naam": "Balenklem"}],
        "PATCH /voertuigkenmerken/{code}": [{"naam": "Kraan met grijper"}, {"actief": True}],
        "PUT /activiteit_kenmerken/{activity_type}": [{"kenmerken": ["mesttank", "kipper"]}],
        "POST /users/{user_token}/werkdagen": [
            {
                "gestart_op": "2026-11-10T05:00:00.000Z",
                "beeindigd_op": "2026-11-10T13:30:00.000Z",
                "opmerking": "Mest rijden Enter",
            },
            {},  # starts a day now
        ],
        "PATCH /werkdagen/{werkdag_id}": [{"opmerking": "Veel file bij Deventer"}],
        "POST /werkdagen/{werkdag_id}/activiteiten": [
            {"soort": "laden", "begin": "2026-11-09T06:00:00.000Z", "einde": "2026-11-09T06:45:00Z"}
        ],
        "PATCH /activiteiten/{activiteit_id}": [{"opmerking": "Bij de weegbrug"}],
        "POST /webhooks": [
            {"url": "https://erp.example.com/rijplan", "gebeurtenissen": ["taak.aangemaakt"]}
        ],
        "PATCH /webhooks/{endpoint_id}": [{"omschrijving": "TMS"}, {"actief": False}],
        "POST /webhooks/{endpoint_id}/opnieuw": [
            {"van": "2026-01-01T00:00:00.000Z", "tot": "2027-01-01T00:00:00.000Z"}
        ],
        "POST /klanten": [
            {"naam": "Mengvoederfabriek De Heus", "btw_nummer": "NL123456789B01"},
            {"naam": "Agrar GmbH", "btw_nummer": "DE123456789", "debiteurnummer": "20417"},
        ],
        "PATCH /klanten/{klant_id}": [{"factuur_email": "facturen@terhorst.nl"}, {"actief": False}],
        "POST /klanten/{klant_id}/locaties": [
            {"naam": "Mestsilo", "soort": "lossen", "locatie_lat": 52.29, "locatie_lng": 6.57}
        ],
        "PATCH /klanten/{klant_id}/locaties/{locatie_id}": [{"openingstijden": "ma-vr 6-17"}],
        "POST /tarieven": [
            {
                "activity_type": "mest_laden",
                "geldig_vanaf": "2026-07-01",
                "grondslag": "eenheid",
                "eenheid": "kg",
                "prijs": "0.0450",
                "minimum": "75.50",
            },
            {
                "klant_id": world["params"]["klant_id"],
                "activity_type": "vee_transport",
                "geldig_vanaf": "2026-01-01",
                "grondslag": "uur",
                "prijs": "62.50",
                "wachttijd_vrij_minuten": 30,
                "wachttijd_per_uur": "45.00",
                "weekend_toeslag_procent": "25",
                "btw_procent": "9",
            },
        ],
        "PATCH /tarieven/{tarief_id}": [{"prijs": "4.6"}, {"minimum": "50", "eenheid": "m3"}],
        "POST /facturen/{factuur_id}/creditnota": [{"reden": "Korting op de eerste rit"}],
        "POST /facturatie/exporten": [
            {"van": "2026-11-01", "tot": "2026-11-30", "dry_run": True},
        ],
        "POST /users/{user_token}/weken/{week}/correcties/{correctie_id}/reactie": [
            {"reactie": "akkoord"},
            {"reactie": "opmerking", "tekst": "Ik was eerder begonnen"},
        ],
        "POST /transporteurs/{transporteur_id}/sjablonen": [
            {"naam": "Vee Ter Horst", "type": "vee_transport", "capaciteiten": ["vee"]},
            {"taak_id": world["task_id"], "naam": "Van een taak"},
        ],
        "PATCH /transporteurs/{transporteur_id}/sjablonen/{sjabloon_id}": [{"duur_min": 90}],
        "POST /transporteurs/{transporteur_id}/reeksen": [
            {
                "sjabloon_id": world["params"]["sjabloon_id"],
                "naam": "Mest om de week",
                "weekdagen": [0, 4],
                "om_weken": 2,
                "startdatum": "2026-12-14",
                "tijd": "07:30",
                "feestdagen": "volgende_werkdag",
            }
        ],
        "PATCH /transporteurs/{transporteur_id}/reeksen/{reeks_id}": [{"tijd": "08:00"}],
        "POST /transporteurs/{transporteur_id}/planning/voorstel": [
            {"van": "2026-12-07", "tot": "2026-12-13", "seconden": 1}
        ],
        "POST /transporteurs/{transporteur_id}/planning/voorstel/{voorstel_id}/accepteren": [
            {},
            {"taken": []},
        ],
        "POST /vehicle_sessions": [{}, {"vehicle_id": world["params"]["vehicle_id"]}],
        "POST /vehicle_sessions/{session_id}/validate": [{"qr": world["vehicle_qr"]}],
        "POST /vehicle_sessions/{session_id}/koppelen": [{"qr": world["coupling"]["spare_qr"]}],
        "POST /transporteurs/{transporteur_id}/koppelingen": [
            {
                "trekkend_id": world["coupling"]["tractor"],
                "getrokken_id": world["coupling"]["spare"],
                "datum": "2026-12-01",
            }
        ],
        "POST /questionnaire_answers": [
            {"taak_id": world["task_id"], "answers": {"gewicht": 10}},
            {"activity_questionnaire_id": world["revision_id"], "answers": {}, "indienen": False},
        ],
    }
    names = re.findall(r"{(\w+)}", operation.path)
    params = {name: world["params"][name] for name in names} or None
    if operation.label in (
        "POST /taken/{task_id}/afronding",
        "POST /taken/{task_id}/papieren-afronding",
    ):
        params = {"task_id": world["started_task_id"]}
    if operation.label == "DELETE /taken/{task_id}":
        params = {"task_id": world["spare_task_id"]}
    if operation.label == "DELETE /transporteurs/{transporteur_id}/sjablonen/{sjabloon_id}":
        params = {**params, "sjabloon_id": world["spare_template_id"]}
    if operation.label == "GET /taken/{task_id}/bewijs":  # a proof exists once completed
        params = {"task_id": world["completed_task_id"]}
    if operation.label == "POST /bestanden":
        return [
            operation.Case(
                headers=h,
                body={"soort": soort, "file": TINY_PNG},
                media_type="multipart/form-data",
            )
            for h, soort in ((headers, "photo"), (api_headers(world["driver_token"]), "signature"))
        ]
    if operation.label == "POST /transporteurs/{transporteur_id}/tacho_files":
        # A new file (201) and the world's file again (200): both documented answers.
        return [
            operation.Case(
                path_parameters=params,
                headers=headers,
                body={"file": data, "user_token": driver.user_token},
                media_type="multipart/form-data",
            )
            for data in (vu_file_1(), card_file())
        ]
    if operation.label in DRIVER_ONLY:
        headers = api_headers(world["driver_token"])
    if operation.label == "POST /vehicle_sessions/{session_id}/koppelen":
        params = {"session_id": world["coupling"]["session_id"]}
        headers = api_headers(world["coupling"]["driver_token"])
    if operation.label in bodies:
        return [
            operation.Case(
                path_parameters=params, headers=headers, body=body, media_type="application/json"
            )
            for body in bodies[operation.label]
        ]
    if (
        operation.method.upper() == "DELETE"
        or {"transporteur_id", "tacho_file_id"} & set(names)
        or operation.path.startswith(("/webhooks", "/klanten", "/tarieven", "/factur"))
    ):
        return [operation.Case(path_parameters=params, headers=headers)]  # integrations only
    if operation.label == "POST /vehicle_sessions/{session_id}/end":
        return [operation.Case(path_parameters=params, headers=headers)]  # ends it: once
    # The driver app reads with the driver's own access token; integrations with the key.
    return [
        operation.Case(path_parameters=params, headers=headers),
        operation.Case(path_parameters=params, headers=api_headers(world["driver_token"])),
    ]


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
@pytest.mark.parametrize("label", FUZZED_LABELS)
def test_operation_conforms_to_the_document(app, world, label, mode):
    schema = load_schema(app)
    operation = schema.find_operation_by_label(label)
    assert operation is not None, label
    headers = api_headers(world["driver_token" if label in DRIVER_ONLY else "key"])
    statuses: Counter[int] = Counter()

    def check(case) -> None:
        with server_errors() as errors:
            response = case.call()
        statuses[response.status_code] += 1
        assert not errors, errors  # an unhandled exception in the app
        case.validate_response(response, checks=CHECKS)

    if mode is GenerationMode.POSITIVE:
        for case in explicit_cases(operation, world):
            response = case.call()
            statuses[response.status_code] += 1
            assert 200 <= response.status_code < 300, (label, response.status_code, response.text)
            case.validate_response(response, checks=CHECKS)

    cases = operation.as_strategy(generation_mode=mode, headers=headers)
    names = re.findall(r"{(\w+)}", operation.path)
    if names:
        real = {name: world["params"][name] for name in names}

        def mostly_real(pair):
            # Four in five cases use the real ids, so they get past 404; the rest keep the
            # generated ones.
            case, n = pair
            if n < 4:
                case.path_parameters = {**(case.path_parameters or {}), **real}
            return case

        cases = st.tuples(cases, st.sampled_from(range(5))).map(mostly_real)
    if label == "POST /bestanden" and mode is GenerationMode.POSITIVE:

        def mostly_a_real_image(pair):
            # Generated bytes are never an image: four in five cases carry a PNG's magic
            # number ahead of them, so they get past the type check.
            case, n = pair
            if n < 4 and isinstance(case.body, dict) and "file" in case.body:
                generated = case.body["file"]
                generated = getattr(generated, "data", generated)  # schemathesis' Binary
                if isinstance(generated, str):
                    generated = generated.encode()
                case.body = {**case.body, "file": TINY_PNG + generated}
            return case

        cases = st.tuples(cases, st.sampled_from(range(5))).map(mostly_a_real_image)

    if mode is GenerationMode.NEGATIVE and not (
        len(operation.query) or len(operation.path_parameters) or len(operation.body)
    ):
        return  # nothing to make invalid but the bearer token (GET /webpush); auth tests cover it
    FUZZ_SETTINGS(given(cases)(check))()

    if mode is GenerationMode.POSITIVE and label != "POST /auth/token":
        # Random credentials never sign in; every other operation must get past 401 and 404.
        assert any(200 <= s < 300 for s in statuses), statuses


def test_an_unchanged_poll_answers_the_documented_304(app, world):
    operation = load_schema(app).find_operation_by_label("GET /users/{user_token}/taken")
    params = {"user_token": world["driver"].user_token}
    first = operation.Case(path_parameters=params, headers=api_headers(world["key"])).call()
    assert first.status_code == 200
    (etag,) = first.headers["etag"]
    poll = operation.Case(
        path_parameters=params, headers={**api_headers(world["key"]), "If-None-Match": etag}
    )
    response = poll.call()
    assert response.status_code == 304
    poll.validate_response(response, checks=CHECKS)


# --- stateful: along the links ----------------------------------------------------------
# Stateful fuzzing: schemathesis walks the OpenAPI links of /api/v1 from answer to answer
# (a task created, read, changed with the ETag it was given, moved, completed, deleted; a
# vehicle session started, validated, ended; a work day started, an activity added and
# corrected...), as a driver and as an API key. No server error, no answer the document does
# not describe, and nothing used after it was deleted or missing right after it was made.
#
# Only the values the links do not give are filled in: the world's real ids, so that a walk
# that starts with a read does not end at a 404 (random ids are the stateless run's work).

STATEFUL_CHECKS = [*CHECKS, use_after_free, ensure_resource_availability]
WALKS = settings(
    max_examples=60,
    stateful_step_count=10,
    deadline=None,
    derandomize=True,  # the same walks on every run
    database=None,
    suppress_health_check=list(HealthCheck),
)


@pytest.mark.parametrize("caller", ["driver", "key"])
def test_walks_along_the_links_answer_as_documented(app, world, caller, backend):
    # Along the document's own links only (schemathesis would also guess links from names).
    config = schemathesis.Config.from_dict(
        {"phases": {"stateful": {"inference": {"algorithms": []}}}}
    )
    schema = schemathesis.openapi.from_wsgi(DOCUMENT, app, config=config)
    real = world["params"]
    headers = api_headers(world["driver_token" if caller == "driver" else "key"])
    walked: Counter[str] = Counter()  # "source -> target": steps along a link
    statuses: Counter[int] = Counter()
    labels: dict[str, str] = {}  # case id: its operation
    reached: set[str] = set()  # operations answered 2xx with values an earlier answer gave
    failures: list[str] = []

    class Walk(schema.as_state_machine()):
        def step(self, input):
            case = input.case
            given = {name for _, name in input.applied_parameters}
            if case.path_parameters:
                case.path_parameters = {
                    name: value if name in given or name not in real else real[name]
                    for name, value in case.path_parameters.items()
                }
            case.headers = {**(case.headers or {}), **headers}
            labels[case.id] = case.operation.label
            with server_errors() as errors:
                output = super().step(input)
            if errors:  # an unhandled exception in the app
                failures.append(f"{case.operation.label}: {errors!r}")
            assert not errors, errors
            statuses[output.response.status_code] += 1
            if input.transition is not None and input.applied_parameters:
                walked[f"{labels.get(input.transition.parent_id)} -> {case.operation.label}"] += 1
                if output.response.status_code < 300:
                    reached.add(case.operation.label)
            return output

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            try:
                case.validate_response(response, checks=STATEFUL_CHECKS, recorder=self.recorder)
            except Exception as failure:
                failures.append(f"{case.operation.label}: {failure}")
                raise

    try:
        Walk.run(settings=WALKS)
    except Flaky:
        # The walks change the API's state (a task deleted, a session ended), so Hypothesis
        # cannot always replay a walk the same way and stops exploring. What the walks saw
        # until then is what counts; a failure seen before is reported below.
        print("\n(the walks stopped early: replaying one met a state that had moved on)")
    assert not failures, failures

    steps = sum(statuses.values())
    print(
        f"\nstateful walk ({backend}, {caller}): {steps} requests, {sum(walked.values())} "
        f"along {len(walked)} links, {len(reached)} operations answered with an earlier "
        f"answer's values; statuses {dict(sorted(statuses.items()))}; server errors 0, "
        "answers outside the document 0"
    )
    for link, count in sorted(walked.items()):
        print(f"  {link}: {count}")
    # The walks did go from answer to answer: into a task, and beyond the tasks.
    assert any("/taken/{task_id}" in label for label in reached), reached
    assert len(reached) >= 3, reached


def test_a_created_task_links_to_its_whole_life(document):
    created = document["paths"]["/users/{user_token}/taken"]["post"]["responses"]["201"]
    links = created["links"]
    assert set(links) == {
        "get_task",
        "task_details",
        "update_task",
        "change_status",
        "complete_for_billing",
        "delete_task",
    }
    assert links["update_task"]["parameters"] == {
        "task_id": "$response.body#/id",
        "header.If-Match": "$response.header.ETag",
    }
    operation_ids = {
        op["operationId"] for item in document["paths"].values() for op in item.values()
    }
    targets = {
        link["operationId"]
        for item in document["paths"].values()
        for op in item.values()
        for answer in op["responses"].values()
        for link in answer.get("links", {}).values()
    }
    assert targets <= operation_ids
