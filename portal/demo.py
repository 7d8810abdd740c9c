"""Demo data: two carriers with users, drivers, vehicles, questionnaires and a week of tasks."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import orjson
from sqlalchemy import select

from portal.accounts import service as accounts
from portal.accounts.models import Carrier
from portal.audit.service import SYSTEM
from portal.billing import service as billing
from portal.config import ROOT
from portal.drivers import service as drivers
from portal.extensions import db
from portal.fleet import service as fleet
from portal.questionnaires import service as questionnaires
from portal.tasks import service as tasks
from portal.tasks.models import STATUSES
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
        "plates": ["BX-12-AB", "BX-34-CD", "VZH-56-E"],
    },
    {
        "id": uuid.UUID("6a1f0d2e-0000-4000-8000-000000000002"),
        "naam": "Kuipers Veevervoer",
        "slug": "kuipers",
        "drivers": ["Sanne Kuipers", "Mo Haddou"],
        "staff": ["Ria Kuipers", "Tom Hendriks", "Joost Kuipers"],
        "plates": ["12-BLK-3", "45-BLK-6"],
    },
]
TASK_KINDS = [
    (
        "mest_laden",
        "Mest laden",
        {
            "artikel": "Varkensdrijfmest",
            "eenheid": "ton",
            "hoeveelheid": 30.0,
            "agr_verplicht": True,
            "require_location": True,
        },
    ),
    (
        "voer_leveren",
        "Voer leveren",
        {
            "artikel": "Biggenkorrel",
            "eenheid": "ton",
            "hoeveelheid": 12.5,
            "require_signature": True,
        },
    ),
    (
        "vee_transport",
        "Vee vervoeren",
        {
            "artikel": "Vleesvarkens",
            "eenheid": "stuks",
            "hoeveelheid": 180.0,
            "required_desinfectie": True,
        },
    ),
    (
        "koel_transport",
        "Gekoeld transport",
        {
            "artikel": "Melkproducten",
            "eenheid": "pallets",
            "hoeveelheid": 18.0,
            "required_temperatuur": 4.0,
            "require_photos": True,
            "min_fotos": 1,
            "max_fotos": 4,
        },
    ),
]
PLACES = [
    ("Hoofdweg 12", "7711 AB", "Nieuwleusen"),
    ("Dorpsstraat 4", "5481 JK", "Schijndel"),
    ("Veldweg 88", "7468 RR", "Enter"),
    ("Kanaaldijk 3", "5735 SV", "Aarle-Rixtel"),
    ("Beukenlaan 21", "3781 LD", "Voorthuizen"),
    ("Molenweg 7", "8161 PB", "Epe"),
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
            logins["drivers"].append(
                f"{spec['drivers'][0].split()[0].lower()}@{spec['slug']}.example"
            )
    return logins


def _seed_carrier(spec: dict) -> None:
    carrier_id = spec["id"]
    db.session.add(Carrier(id=carrier_id, naam=spec["naam"], tijdzone="Europe/Amsterdam"))
    db.session.flush()
    for role, naam in zip(("planner", "author", "admin"), spec["staff"], strict=True):
        accounts.create_user(
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
        )
        for name in spec["drivers"]
    ]
    vehicles = [fleet.create_vehicle(carrier_id=carrier_id, kenteken=p) for p in spec["plates"]]
    for path in sorted(EXAMPLES.glob("*.json")):
        questionnaires.publish(
            carrier_id=carrier_id, doc=orjson.loads(path.read_bytes()), activate=True
        )
    _seed_tasks(carrier_id, driver_rows, vehicles)


def _seed_tasks(carrier_id, driver_rows, vehicles) -> None:
    zone = ZoneInfo("Europe/Amsterdam")
    today = datetime.now(zone).date()
    n = 0
    for day_offset in range(-3, 4):
        day = today + timedelta(days=day_offset)
        for d_index, driver in enumerate(driver_rows):
            for slot in range(2):
                kind, label, extra = TASK_KINDS[(n + d_index) % len(TASK_KINDS)]
                adres, postcode, stad = PLACES[n % len(PLACES)]
                planned = datetime.combine(day, time(7 + slot * 4, 30), tzinfo=zone).astimezone(UTC)
                data = {
                    "type": kind,
                    "naam": f"{label} {stad}",
                    "vehicle_id": vehicles[d_index % len(vehicles)].id,
                    "adres": adres,
                    "postcode": postcode,
                    "stad": stad,
                    "land": "NL",
                    "contactpersoon": "Fam. " + stad.split("-")[0],
                    "telefoon": "0570-123456",
                    "gepland_op": planned,
                    "vdm_nummer": f"{day:%y%m%d}{n:04d}" if kind == "mest_laden" else None,
                    **extra,
                }
                task = tasks.create_task(
                    carrier_id=carrier_id, chauffeur_id=driver.id, data=data, actor=SYSTEM
                )
                _advance(task, day_offset, n, planned)
                if task.status == "afgerond":
                    # Completed work waits on the billing page, as the driver app leaves it.
                    billing.record_line(
                        carrier_id=carrier_id,
                        task=task,
                        kilometers=float(12 + n * 7 % 60),
                        wachttijd_minuten=(n * 13) % 45,
                    )
                n += 1


def _advance(task, day_offset: int, n: int, planned: datetime) -> None:
    """Put demo tasks in every status: past days done, today under way, later planned."""
    if day_offset == -1 and n % 2 == 1:
        status = "gestart"  # yesterday's last job, still open: a planner should notice
    elif day_offset < 0:
        status = "geannuleerd" if n % 9 == 0 else "afgerond"
    elif day_offset == 0:
        status = STATUSES[n % 4]
        if planned > datetime.now(UTC) and status in ("gestart", "afgerond"):
            status = "ontvangen"  # nothing starts before its time
    else:
        status = "ontvangen" if n % 3 == 0 else "gepland"
    task.status = status
    if status in ("ontvangen", "gestart", "afgerond"):
        task.ontvangen_op = planned - timedelta(hours=12)
    if status in ("gestart", "afgerond"):
        task.gestart_op = planned
    if status == "afgerond":
        task.afgerond_op = planned + timedelta(hours=2)
