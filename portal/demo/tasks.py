"""Demo tasks: a week of them, each taken through its lifecycle as far as its day allows,
with the evidence and answers a driver sends and the work reported for billing."""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from portal.audit.service import Actor
from portal.billing import service as billing
from portal.customers import service as customers
from portal.demo import answers as demo_answers
from portal.extensions import db
from portal.tasks import lifecycle
from portal.tasks import service as tasks
from portal.tasks.models import STATUSES
from portal.types import replay

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
            "require_document_scan": True,
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


def seed_tasks(carrier_id, driver_rows, vehicles, planner) -> None:
    """A week of tasks, each taken through the services as far as its day allows: planned by
    the office, received, started and completed by the driver with the evidence its demands
    ask and the questionnaire submitted, then reported for billing. Past steps are replayed
    at the time they happened; nothing starts before its planned time."""
    zone = ZoneInfo("Europe/Amsterdam")
    now = datetime.now(UTC)
    today = now.astimezone(zone).date()
    office = Actor("user", planner.id, planner.naam)
    routes = _routes(carrier_id)
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
                data = _with_route(data, routes.get(kind))
                target = _target_status(day_offset, n, planned, now)
                with _at(planned - timedelta(days=2, hours=n % 5), now):
                    task = tasks.create_task(
                        carrier_id=carrier_id, driver_id=driver.id, data=data, actor=office
                    )
                work(carrier_id, task, driver, office, target, n, planned, now)
                n += 1


def _routes(carrier_id) -> dict[str, dict]:
    """Who the demo's manure and feed are for and where they load and unload: manure from
    Ter Horst's silo to the digester, feed from the mill to the farm on the task."""
    names = {name: klant_id for klant_id, name in customers.names(carrier_id=carrier_id).items()}
    places = customers.places_by_customer(carrier_id=carrier_id, customer_ids=set(names.values()))
    place = {p.naam: p for found in places.values() for p in found}
    routes = {}
    if {"Mestsilo Zuidkamp", "Vergister Hengelo"} <= place.keys():
        routes["mest_laden"] = {
            "klant_id": place["Mestsilo Zuidkamp"].klant_id,
            "laadlocatie_id": place["Mestsilo Zuidkamp"].id,
            "loslocatie_id": place["Vergister Hengelo"].id,
        }
    if "Mengvoederfabriek" in place:
        routes["voer_leveren"] = {
            "klant_id": place["Mengvoederfabriek"].klant_id,
            "laadlocatie_id": place["Mengvoederfabriek"].id,
        }
    return routes


def _with_route(data: dict, route: dict | None) -> dict:
    """The task with its customer and route: feed unloads at the task's farm address;
    manure loads at the silo, which is then where the driver goes."""
    if route is None:
        return data
    data = {**data, **route}
    if "loslocatie_id" not in route:
        data.update(
            los_adres=data["adres"], los_postcode=data["postcode"], los_stad=data["stad"],
            los_land="NL",
        )  # fmt: skip
    else:
        data.update(adres=None, postcode=None, stad=None, naam="Mest laden Zuidkamp")
    return data


def _target_status(day_offset: int, n: int, planned: datetime, now: datetime) -> str:
    """Demo tasks in every status: past days done, today under way, later planned. A step
    whose time has not come yet is not taken (nothing starts or ends before its time)."""
    if day_offset == -1 and n % 2 == 1:
        return "gestart"  # yesterday's last job, still open: a planner should notice
    if day_offset < 0:
        return "geannuleerd" if n % 9 == 0 else "afgerond"
    if day_offset > 0:
        return "ontvangen" if n % 3 == 0 else "gepland"
    status = STATUSES[n % 4]
    if status == "afgerond" and planned + WORK_TIME > now:
        status = "gestart"
    if status == "gestart" and planned > now:
        status = "ontvangen"
    return status


# How long a demo task takes from its start to its completion.
WORK_TIME = timedelta(hours=2)


@contextmanager
def _at(moment: datetime, now: datetime):
    """Run a step at moment when that has passed (its history says so), else now. The step is
    flushed within: column defaults (the audit entry's time) are taken at the flush."""
    if moment < now:
        with replay(moment):
            yield
            db.session.flush()
    else:
        yield


def work(carrier_id, task, driver, office, target: str, n: int, planned, now) -> None:
    """Move the task to target as its driver (or the office) would, step by step."""
    me = Actor("driver", driver.id, driver.naam)

    def move(to: str, at: datetime, actor=me, evidence=None) -> None:
        with _at(at, now):
            lifecycle.move_task(
                carrier_id=carrier_id,
                task_id=task.id,
                to=to,
                actor=actor,
                office=actor is office,
                evidence=evidence,
            )

    if target == "geannuleerd":
        move("geannuleerd", planned - timedelta(hours=6), actor=office)
        return
    if target == "gepland":
        return
    move("ontvangen", planned - timedelta(hours=12, minutes=n % 50))
    if target == "ontvangen":
        return
    move("gestart", planned)
    full, half = demo_answers.answers_for(task.type, n)
    if target == "gestart":
        if half and task.activity_questionnaire_id:
            with _at(planned + timedelta(minutes=25), now):
                demo_answers.answer(
                    carrier_id=carrier_id, task=task, answers=half, submit=False, actor=me,
                    at=min(planned + timedelta(minutes=25), now),
                )  # fmt: skip
        return
    done = planned + WORK_TIME
    with _at(done - timedelta(minutes=10), now):
        evidence, signature, scan = _evidence(carrier_id, task, n, me)
        full, _half = demo_answers.answers_for(task.type, n, signature=signature, scan=scan)
        if full and task.activity_questionnaire_id:
            demo_answers.answer(
                carrier_id=carrier_id, task=task, answers=full, submit=True, actor=me,
                at=done - timedelta(minutes=10),
            )  # fmt: skip
        if full.get("temp_lossen") is not None:
            evidence.temperatuur = full["temp_lossen"]
        if full.get("agr_locatie"):
            evidence.locatie_lat = full["agr_locatie"]["lat"]
            evidence.locatie_lng = full["agr_locatie"]["lng"]
    move("afgerond", done, evidence=evidence)
    with _at(done + timedelta(minutes=1), now):
        # What the driver app reports with the completion (POST /taken/{id}/afronding).
        billing.record_line(
            carrier_id=carrier_id,
            task=task,
            kilometers=float(12 + n * 7 % 60),
            wachttijd_minuten=(n * 13) % 45,
        )


def _evidence(
    carrier_id, task, n: int, me
) -> tuple[lifecycle.Evidence, uuid.UUID | None, uuid.UUID | None]:
    """What the driver's phone sends along with the completion, uploaded through the files
    service as the app does: (evidence, signature for the answers, scan for the answers).
    A signature asked in the questionnaire is given there only: it counts as the task's."""
    evidence = lifecycle.Evidence()
    signature = scan = None
    if task.require_photos:
        least = task.min_fotos if task.min_fotos is not None else 1
        count = min(least + n % 2, task.max_fotos or least + 1)
        evidence.fotos = [
            demo_answers.photo_file(carrier_id, n=n * 10 + i, actor=me) for i in range(count)
        ]
    if task.require_signature:
        signature = demo_answers.signature_file(carrier_id, n=n, actor=me)
        if task.activity_questionnaire_id is None:
            evidence.handtekeningen = [signature]
    if task.require_document_scan or task.required_desinfectie:
        scan = demo_answers.scan_file(carrier_id, n=n, actor=me)
        evidence.scans = [scan]
    if task.required_desinfectie:
        evidence.desinfectie_bevestigd = True
    if task.required_temperatuur is not None:
        evidence.temperatuur = task.required_temperatuur - 0.5
    if task.require_location or task.agr_verplicht:
        lat, lng = demo_answers.YARDS[n % len(demo_answers.YARDS)]
        evidence.locatie_lat, evidence.locatie_lng = lat, lng
    return evidence, signature, scan
