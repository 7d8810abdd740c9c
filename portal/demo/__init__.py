"""Demo data: two carriers with users, drivers, vehicles, questionnaires and a week of tasks.

`seed()` (the `flask seed-demo` command) builds each carrier here and its history through
the modules beside this one: customers and their places, tasks and their answers,
positions, vehicle sessions, messages, hours and tachograph downloads, all through the
services as real use goes.
"""

from __future__ import annotations

import uuid
from datetime import date

import orjson
from sqlalchemy import select

from portal.accounts import service as accounts
from portal.accounts.models import Carrier
from portal.audit.service import SYSTEM
from portal.config import ROOT
from portal.demo.customers import seed_customers
from portal.demo.hours import seed_hours
from portal.demo.invoices import seed_invoices
from portal.demo.messages import seed_messages
from portal.demo.positions import seed_positions
from portal.demo.sessions import seed_vehicle_sessions
from portal.demo.tacho import seed_tacho
from portal.demo.tariffs import seed_tariffs
from portal.demo.tasks import seed_tasks
from portal.demo.vehicles import seed_vehicles
from portal.drivers import service as drivers
from portal.extensions import db
from portal.questionnaires import service as questionnaires
from portal.tenancy import carrier_scope

PASSWORD = "demo-wachtwoord"
EXAMPLES = ROOT / "examples" / "questionnaires"
CARRIERS = [
    {
        "id": uuid.UUID("6a1f0d2e-0000-4000-8000-000000000001"),
        "naam": "Van der Berg Agrotransport",
        "slug": "vdberg",
        "drivers": ["Jan de Vries", "Piet Bakker", "Henk Jansen"],
        "staff": ["Els Vos", "Kees Smit", "Anna de Boer"],
        # What its e-invoices name as the seller (the billing export's UBL files).
        "factuur": {
            "thuisbasis_straat": "Industrieweg 8",
            "thuisbasis_postcode": "7461 AB",
            "thuisbasis_plaats": "Rijssen",
            "thuisbasis_land": "NL",
            "btw_nummer": "NL001234567B01",
            "kvk_nummer": "06012345",
            "iban": "NL91ABNA0417164300",
            "factuur_email": "facturatie@vdberg.example",
        },
    },
    {
        "id": uuid.UUID("6a1f0d2e-0000-4000-8000-000000000002"),
        "naam": "Kuipers Veevervoer",
        "slug": "kuipers",
        "drivers": ["Sanne Kuipers", "Mo Haddou"],
        "staff": ["Ria Kuipers", "Tom Hendriks", "Joost Kuipers"],
    },
]


def seed() -> dict:
    """Create the demo carriers unless they exist; answers the sign-ins to try."""
    logins = {"password": PASSWORD, "portal": [], "drivers": []}
    for spec in CARRIERS:
        with carrier_scope(db.session, spec["id"]):
            exists = db.session.scalar(select(Carrier.id).where(Carrier.id == spec["id"]))
            if not exists:
                _seed_carrier(spec)
            logins["portal"] += [
                f"{role}@{spec['slug']}.example" for role in ("planner", "author", "admin")
            ]
            logins["drivers"] += [
                f"{name.split()[0].lower()}@{spec['slug']}.example" for name in spec["drivers"]
            ]
    return logins


def _seed_carrier(spec: dict) -> None:
    carrier_id = spec["id"]
    db.session.add(
        Carrier(
            id=carrier_id, naam=spec["naam"], tijdzone="Europe/Amsterdam", **spec.get("factuur", {})
        )
    )
    db.session.flush()
    staff = {}
    for role, naam in zip(("planner", "author", "admin"), spec["staff"], strict=True):
        staff[role] = accounts.create_user(
            carrier_id=carrier_id,
            email=f"{role}@{spec['slug']}.example",
            password=PASSWORD,
            rol=role,
            naam=naam,
        )
    driver_rows = [
        drivers.create_driver(
            carrier_id=carrier_id,
            naam=name,
            email=f"{name.split()[0].lower()}@{spec['slug']}.example",
            password=PASSWORD,
            telefoon=f"06-{31415926 + index * 1111111}",
        )
        for index, name in enumerate(spec["drivers"])
    ]
    seed_positions(carrier_id, driver_rows)
    _seed_licences(carrier_id, driver_rows)
    vehicles = seed_vehicles(carrier_id, spec["slug"])
    for path in sorted(EXAMPLES.glob("*.json")):
        questionnaires.publish(
            carrier_id=carrier_id, doc=orjson.loads(path.read_bytes()), activate=True
        )
    _seed_questionnaire_work(carrier_id, staff["author"])
    seed_customers(carrier_id, staff["planner"])
    seed_tariffs(carrier_id, staff["planner"])
    seed_tasks(carrier_id, driver_rows, vehicles, staff["planner"])
    seed_vehicle_sessions(carrier_id, driver_rows, vehicles, staff["planner"])
    seed_messages(carrier_id, driver_rows, staff["planner"])
    seed_hours(carrier_id, driver_rows, staff["planner"])
    seed_tacho(carrier_id, driver_rows, vehicles, staff["planner"])
    seed_invoices(carrier_id, driver_rows, staff["planner"])


# Licence categories of the demo drivers in turn, with an expiry here and there; the last
# driver has none recorded, so the planner's "no licence recorded" shows.
LICENCES = (
    {"B": None, "BE": None, "C": date(2031, 4, 1), "CE": date(2031, 4, 1), "T": None},
    {"B": None, "C": date(2029, 9, 15), "T": None},
    {"B": None, "T": None},
    {"B": None, "C": None, "CE": date(2027, 2, 1)},
)


def _seed_licences(carrier_id, driver_rows) -> None:
    for index, driver in enumerate(driver_rows[:-1]):
        drivers.set_licences(
            carrier_id=carrier_id,
            driver_id=driver.id,
            categorieen=LICENCES[index % len(LICENCES)],
            actor=SYSTEM,
        )


def _seed_questionnaire_work(carrier_id, author) -> None:
    """Mest laden gets a history (revision 2 asks the manure's temperature) and a draft the
    author is working on, so the builder's revisions, comparison and publish step show it."""
    from portal.questionnaires.editing import tidy

    doc = orjson.loads((EXAMPLES / "mest_laden.json").read_bytes())
    temperature = {
        "id": "temperatuur_mest", "type": "number", "label": "Temperatuur mest", "unit": "°C",
        "validation": {"min": -10, "max": 60},
    }  # fmt: skip
    doc["questions"].insert(4, temperature)
    questionnaires.publish(carrier_id=carrier_id, doc=doc, activate=True)
    draft = questionnaires.start_draft(
        carrier_id=carrier_id, questionnaire_id=doc["questionnaire_id"], user_id=author.id
    )
    trailer = {
        "id": "kenteken_aanhanger", "type": "text", "label": "Kenteken aanhanger",
        "validation": {"regex": "[A-Z0-9]{1,3}-[A-Z0-9]{2,3}-[A-Z0-9]{1,3}"},
    }  # fmt: skip
    doc["questions"].insert(1, trailer)
    doc["questions"][2]["label"] = "Gewicht vol (weegbrug)"
    questionnaires.save_draft(
        carrier_id=carrier_id,
        questionnaire_id=doc["questionnaire_id"],
        doc=tidy(doc),
        expected_versie=draft.versie,
        user_id=author.id,
    )
