"""Demo data: two carriers with users, drivers, vehicles, questionnaires and a week of tasks."""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import orjson
from sqlalchemy import select

from portal import demo_answers
from portal.accounts import service as accounts
from portal.accounts.models import Carrier
from portal.audit.service import Actor
from portal.billing import service as billing
from portal.config import ROOT
from portal.drivers import locations
from portal.drivers import service as drivers
from portal.extensions import db
from portal.fleet import service as fleet
from portal.messages import service as messages
from portal.messages.failures import failure
from portal.questionnaires import service as questionnaires
from portal.tasks import lifecycle
from portal.tasks import service as tasks
from portal.tasks.models import STATUSES
from portal.tenancy import carrier_scope
from portal.types import replay

PASSWORD = "demo-wachtwoord"
EXAMPLES = ROOT / "examples" / "questionnaires"
CARRIERS = [
    {
        "id": uuid.UUID("6a1f0d2e-0000-4000-8000-000000000001"),
        "naam": "Van der Berg Agrotransport",
        "slug": "vdberg",
        "drivers": ["Jan de Vries", "Piet Bakker", "Henk Jansen"],
        "staff": ["Els Vos", "Kees Smit", "Anna de Boer"],
        "plates": ["BX-12-AB", "BX-34-CD", "VZH-56-E", "OT-48-KX"],
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
# The demo vehicles' details, by plate (the first ones of a carrier drive its tasks).
VEHICLES = {
    "BX-12-AB": {"soort": "trekker", "omschrijving": "DAF XF 480 FT"},
    "BX-34-CD": {
        "soort": "vrachtwagen",
        "omschrijving": "Scania R450 voerwagen",
        "capaciteit": 24.0,
        "capaciteit_eenheid": "ton",
        "kooiaap": True,
        "opmerkingen": "Kooiaap Palfinger Crayler; APK vervalt in maart.",
    },
    "VZH-56-E": {"soort": "trekker", "omschrijving": "Volvo FH 500"},
    "OT-48-KX": {
        "soort": "oplegger",
        "omschrijving": "Kaweco mesttank met AGR-GPS",
        "capaciteit": 30.0,
        "capaciteit_eenheid": "m3",
    },
    "12-BLK-3": {
        "soort": "vrachtwagen",
        "omschrijving": "Veewagen, drie dekken",
        "capaciteit": 180.0,
        "capaciteit_eenheid": "stuks",
    },
    "45-BLK-6": {"soort": "trekker", "omschrijving": "MAN TGX 18.510"},
}
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
    _seed_positions(carrier_id, driver_rows)
    vehicles = [
        fleet.create_vehicle(carrier_id=carrier_id, kenteken=p, **VEHICLES.get(p, {}))
        for p in spec["plates"]
    ]
    for path in sorted(EXAMPLES.glob("*.json")):
        questionnaires.publish(
            carrier_id=carrier_id, doc=orjson.loads(path.read_bytes()), activate=True
        )
    _seed_questionnaire_work(carrier_id, staff["author"])
    _seed_tasks(carrier_id, driver_rows, vehicles, staff["planner"])
    _seed_vehicle_sessions(carrier_id, driver_rows, vehicles, staff["planner"])
    _seed_messages(carrier_id, driver_rows, staff["planner"])
    _seed_hours(carrier_id, driver_rows, staff["planner"])
    _seed_tacho(carrier_id, driver_rows, vehicles, staff["planner"])


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


def _seed_tasks(carrier_id, driver_rows, vehicles, planner) -> None:
    """A week of tasks, each taken through the services as far as its day allows: planned by
    the office, received, started and completed by the driver with the evidence its demands
    ask and the questionnaire submitted, then reported for billing. Past steps are replayed
    at the time they happened; nothing starts before its planned time."""
    zone = ZoneInfo("Europe/Amsterdam")
    now = datetime.now(UTC)
    today = now.astimezone(zone).date()
    office = Actor("user", planner.id, planner.naam)
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
                target = _target_status(day_offset, n, planned, now)
                with _at(planned - timedelta(days=2, hours=n % 5), now):
                    task = tasks.create_task(
                        carrier_id=carrier_id, chauffeur_id=driver.id, data=data, actor=office
                    )
                _work(carrier_id, task, driver, office, target, n, planned, now)
                n += 1


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


def _work(carrier_id, task, driver, office, target: str, n: int, planned, now) -> None:
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


# Routes the demo drivers drove: (from, to) as (lat, lng), between farms of PLACES.
ROUTES = [
    ((52.5790, 6.2840), (52.2935, 6.5790)),  # Nieuwleusen -> Enter
    ((52.3480, 5.9830), (52.1650, 5.5300)),  # Epe -> Voorthuizen
    ((51.6230, 5.4330), (51.5100, 5.6400)),  # Schijndel -> Aarle-Rixtel
]


def _seed_positions(carrier_id, driver_rows) -> None:
    """Today's route of all drivers but the last (no phone yet), one of them gone quiet
    two hours ago; and yesterday's route of the first."""
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    for index, driver in enumerate(driver_rows[:-1]):
        start, end = ROUTES[index % len(ROUTES)]
        until = now - (timedelta(minutes=3) if index == 0 else timedelta(hours=2))
        for day_back in (1, 0) if index == 0 else (0,):
            last = until - timedelta(days=day_back)
            for step in range(91):  # three hours, a point every two minutes, as sent
                f = step / 90
                wobble = ((step * 7919) % 13 - 6) / 20000
                point = locations.Point(
                    lat=start[0] + (end[0] - start[0]) * f + wobble,
                    lng=start[1] + (end[1] - start[1]) * f - wobble,
                    recorded_at=last - timedelta(minutes=2 * (90 - step)),
                    accuracy=float(5 + step % 9),
                    speed=0.0 if step in (0, 45, 90) else 14.0 + step % 8,
                    heading=float((135 + step * 3) % 360),
                )
                locations.record_locations(
                    carrier_id=carrier_id,
                    driver_id=driver.id,
                    points=[point],
                    now=point.recorded_at + timedelta(seconds=2),
                )


# Messages the planner sent: (days back, time, title, text, recipients by index, outcomes).
MESSAGES = [
    (
        2,
        time(16, 10),
        "Omleiding Kanaaldijk",
        "De Kanaaldijk is tot vrijdag afgesloten voor vrachtverkeer. Rij via de N279 en "
        "meld je bij de weegbrug aan de achterkant.",
        (0, 1, 2),
        ("read", "read", "failed"),
    ),
    (
        1,
        time(7, 45),
        "Laadadres gewijzigd",
        "Mest laden bij fam. Jansen: gebruik de oprit aan de achterkant, de voorkant is "
        "afgezet voor de loonwerker.",
        (0,),
        ("sent",),
    ),
    (
        0,
        time(6, 30),
        "Weegbon fotograferen",
        "Vergeet vandaag niet de weegbon te fotograferen bij het lossen; zonder foto kunnen "
        "we de rit niet factureren.",
        (0, 1),
        ("read", "queued"),
    ),
]


def _seed_messages(carrier_id, driver_rows, planner) -> None:
    """A few sent messages in every status, and a registered phone for all drivers but the
    last. The phones' push service is on the reserved .invalid domain: a worker started on
    the demo data retries them and never reaches the network."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    from portal.audit.service import Actor
    from portal.messages import outbox
    from portal.messages.push import b64url

    for index, driver in enumerate(driver_rows[:-1]):
        point = (
            ec.generate_private_key(ec.SECP256R1())
            .public_key()
            .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        )
        messages.subscribe(
            carrier_id=carrier_id,
            chauffeur_id=driver.id,
            endpoint=f"https://push.invalid/demo/{carrier_id.hex[-4:]}-{index}",
            p256dh=b64url(point),
            auth=b64url(bytes(range(16))),
        )
    zone = ZoneInfo("Europe/Amsterdam")
    today = datetime.now(zone).date()
    actor = Actor("user", planner.id, planner.naam)
    for days_back, at, titel, tekst, who, outcomes in MESSAGES:
        sent_at = datetime.combine(today - timedelta(days=days_back), at, tzinfo=zone)
        sent_at = min(sent_at.astimezone(UTC), datetime.now(UTC) - timedelta(minutes=20))
        recipients = [driver_rows[i] for i in who if i < len(driver_rows)]
        rows = messages.send_message(
            carrier_id=carrier_id,
            chauffeur_ids=[d.id for d in recipients],
            titel=titel,
            tekst=tekst,
            actor=actor,
            user_id=planner.id,
            now=sent_at,
        )
        for n, (row, outcome) in enumerate(zip(rows, outcomes, strict=False)):
            row.pogingen = 1
            row.volgende_poging_op = None
            if outcome in ("sent", "read"):
                row.status = "sent"
                row.verzonden_op = sent_at + timedelta(seconds=4)
            if outcome == "read":
                row.status = "read"
                row.gelezen_op = sent_at + timedelta(minutes=3 + 11 * n)
            if outcome == "failed":
                row.status = "failed"
                row.fout = outbox.NO_SUBSCRIPTION
            if outcome == "queued":
                row.fout = failure("service_unavailable", http=503)
                row.volgende_poging_op = sent_at + timedelta(seconds=30)


def _seed_vehicle_sessions(carrier_id, driver_rows, vehicles, planner) -> None:
    """Who drove what: each driver a day in a vehicle on the last three days, and today the
    first drivers on the road (scanned in), the last one's session ended by the office."""
    from portal.audit.service import Actor
    from portal.fleet import sessions

    zone = ZoneInfo("Europe/Amsterdam")
    today = datetime.now(zone).date()
    now = datetime.now(UTC)
    cabs = [v for v in vehicles if v.soort != "oplegger"]
    office = Actor("user", planner.id, planner.naam)

    def drive(driver, vehicle, start, end, by=None):
        me = Actor("driver", driver.id, driver.naam)
        session = sessions.start_session(carrier_id=carrier_id, chauffeur_id=driver.id, actor=me)
        sessions.validate_session(
            carrier_id=carrier_id,
            session_id=session.id,
            payload=fleet.sticker_payload(vehicle),
            chauffeur_id=driver.id,
        )
        if end is not None:
            sessions.end_session(
                carrier_id=carrier_id,
                session_id=session.id,
                actor=by or me,
                chauffeur_id=None if by else driver.id,
            )
            session.beeindigd_op = end
        session.created_at = start - timedelta(minutes=1)
        session.verloopt_op = session.created_at + sessions.PENDING_TTL
        session.gestart_op = start

    for days_back in (3, 2, 1):
        day = today - timedelta(days=days_back)
        for index, driver in enumerate(driver_rows):
            vehicle = cabs[(index + days_back) % len(cabs)]
            start = datetime.combine(day, time(6, 15 + index * 10), tzinfo=zone).astimezone(UTC)
            drive(driver, vehicle, start, start + timedelta(hours=9, minutes=20 + index * 15))
    for index, driver in enumerate(driver_rows):
        vehicle = cabs[index % len(cabs)]
        start = now - timedelta(hours=2, minutes=40 - index * 25)
        if index == len(driver_rows) - 1 and index > 0:
            drive(driver, vehicle, start, now - timedelta(minutes=35), by=office)
        else:
            drive(driver, vehicle, start, None)


# A driver's day as recorded in the app: start time, then (activity, minutes) back to back.
DAY_PLANS = [
    ("06:00", [("overig_werk", 15), ("rijden", 70), ("laden", 40), ("rijden", 55), ("lossen", 35),
               ("pauze", 50), ("rijden", 45), ("wachten", 25), ("laden", 35), ("rijden", 80),
               ("lossen", 30), ("rijden", 40), ("overig_werk", 15)]),
    ("05:30", [("rijden", 50), ("laden", 45), ("rijden", 95), ("wachten", 40), ("lossen", 30),
               ("pauze", 50), ("rijden", 60), ("laden", 30), ("rijden", 65), ("lossen", 25),
               ("rijden", 35), ("overig_werk", 20)]),
    # Livestock goes at night: from the evening into the next morning.
    ("20:00", [("overig_werk", 20), ("rijden", 60), ("laden", 55), ("rijden", 110),
               ("beschikbaarheid", 30), ("lossen", 45), ("pauze", 50), ("rijden", 95),
               ("overig_werk", 30)]),
]  # fmt: skip


def _seed_hours(carrier_id, driver_rows, planner) -> None:
    """Work days of last week and this week up to yesterday: day shifts, one night shift;
    last week approved for the first driver, approved and reopened for the second."""
    from portal.audit.service import Actor
    from portal.hours import activities, weeks
    from portal.hours import service as hours
    from portal.hours.totals import IsoWeek

    zone = ZoneInfo("Europe/Amsterdam")
    now = datetime.now(UTC)
    today = datetime.now(zone).date()
    this_week = IsoWeek.of(today)
    for index, driver in enumerate(driver_rows):
        actor = Actor("driver", driver.id, driver.naam)
        for day in [*this_week.shifted(-1).days(), *this_week.days()]:
            night = index == 2 and day.weekday() in (1, 3)
            resting = index == 2 and day.weekday() in (2, 4)  # after a night shift
            if resting or (day.weekday() >= (6 if index == 1 else 5) and not night):
                continue  # and weekends off (the second driver works Saturdays)
            clock, plan = DAY_PLANS[2] if night else DAY_PLANS[index % 2]
            hour, minute = (int(part) for part in clock.split(":"))
            start = datetime.combine(day, time(hour, minute), tzinfo=zone).astimezone(UTC)
            k = day.toordinal()  # varies the day a little, and every week differently
            start += timedelta(minutes=(k * 7 + index * 11) % 20)
            lengths = [timedelta(minutes=m + (k + n) % 9 - 4) for n, (_, m) in enumerate(plan)]
            end = start + sum(lengths, timedelta())
            if end > now - timedelta(hours=1):
                continue
            work_day = hours.start_work_day(
                carrier_id=carrier_id, chauffeur_id=driver.id, actor=actor,
                gestart_op=start, beeindigd_op=end, now=now,
            )  # fmt: skip
            begin = start
            for (soort, _), length in zip(plan, lengths, strict=True):
                activities.add_activity(
                    carrier_id=carrier_id, work_day_id=work_day.id, actor=actor, now=now,
                    data={"soort": soort, "begin": begin, "einde": begin + length},
                )  # fmt: skip
                begin += length
    office = Actor("user", planner.id, planner.naam)
    last_week = this_week.shifted(-1)
    approved_at = datetime.combine(this_week.monday, time(9, 10), tzinfo=zone).astimezone(UTC)
    for index, driver in enumerate(driver_rows[:2]):
        weeks.approve_week(
            carrier_id=carrier_id, chauffeur_id=driver.id, week=last_week, actor=office,
            now=min(approved_at, now),
        )  # fmt: skip
        if index == 1:
            weeks.reopen_week(
                carrier_id=carrier_id, chauffeur_id=driver.id, week=last_week, actor=office,
                reden="Pauze op woensdag ontbrak; Piet vult die aan.",
                now=min(approved_at + timedelta(hours=2, minutes=25), now),
            )  # fmt: skip


# The card's activity for the app's kinds of work (portal.tacho.rules maps them alike).
CARD_ACTIVITY = {
    "rijden": "rijden",
    "laden": "werk",
    "lossen": "werk",
    "wachten": "werk",
    "overig_werk": "werk",
    "beschikbaarheid": "beschikbaar",
    "pauze": "rust",
}
# Where a demo card says something else than the app: the planner's reconciliation finds it.
CARD_EXTRA_DRIVING = timedelta(minutes=40)


def _card_timeline(index: int, app_days, first: date, until: datetime) -> list[tuple]:
    """A driver's card from `first` up to the download: the app's work days as the card
    records them, before the app's weeks the same shifts, weekends off; between shifts the
    card is out and the driver enters rest by hand. Deliberate differences: the first driver
    drove 40 minutes on after the app's last activity of one day; the second once drove 5 h 10
    without a break; the third left the card out one night without entering anything
    (unknown time) and moved the truck on a rest day without a work day in the app."""
    manual_rest = {"kaart_in": False, "handmatig": True}
    timeline: list[tuple] = [(datetime.combine(first, time(0), tzinfo=UTC), "rust", manual_rest)]
    recorded = {day.gestart_op.date(): (day, acts) for day, acts in app_days}
    earliest_app = min(recorded, default=until.date())
    clock, plan = DAY_PLANS[index % 2]
    hour, minute = (int(part) for part in clock.split(":"))
    day = first
    extra_done = gap_done = moved_done = False
    while day < until.date():
        if day in recorded:
            work_day, acts = recorded[day]
            for act in acts:
                timeline.append((act.begin, CARD_ACTIVITY[act.soort]))
            end = work_day.beeindigd_op
            if index == 0 and not extra_done and day.weekday() == 2:
                timeline.append((end, "rijden"))
                end += CARD_EXTRA_DRIVING
                extra_done = True
            if index == 2 and not gap_done:
                timeline.append((end, "onbekend", {"kaart_in": False}))
                gap_done = True
            else:
                timeline.append((end, "rust", manual_rest))
        elif index == 2 and not moved_done and earliest_app < day and day.weekday() == 2:
            # A rest day after a night shift: the card shows the truck moved, the app no
            # work day.
            begin = datetime.combine(day, time(13, 0), tzinfo=UTC)
            timeline += [
                (begin, "werk"),
                (begin + timedelta(minutes=10), "rijden"),
                (begin + timedelta(minutes=100), "werk"),
                (begin + timedelta(minutes=115), "rust", manual_rest),
            ]
            moved_done = True
        elif day < earliest_app and day.weekday() < 5:
            begin = datetime.combine(day, time(hour - 1, minute), tzinfo=UTC)
            steps = list(plan)
            if index == 1 and day.weekday() == 3 and (earliest_app - day).days < 9:
                # Five hours ten of driving before the first break.
                steps = [("rijden", 310), ("pauze", 45), ("rijden", 120), ("overig_werk", 20)]
            for soort, length in steps:
                timeline.append((begin, CARD_ACTIVITY[soort]))
                begin += timedelta(minutes=length)
            timeline.append((begin, "rust", manual_rest))
        day += timedelta(days=1)
    return [entry for entry in timeline if entry[0] < until]


def _card_vehicles(card_days: dict, trucks: list[str], index: int, until: datetime) -> list:
    """The truck a demo driver drove on each day the card shows driving: its first and last
    change of the day, and a plausible odometer (a card's EF_Vehicles_Used)."""
    from portal.tacho.ddd import VehicleUse
    from portal.tacho.segments import midnight

    if not trucks:
        return []
    plate = trucks[index % len(trucks)].replace("-", "")
    odometer = 412_000 + 37_000 * index
    used = []
    for day in sorted(card_days):
        changes = card_days[day]
        if not any(c.activiteit == "rijden" for c in changes):
            continue
        # From the first work of the day to the rest after the last.
        busy = [n for n, c in enumerate(changes) if c.activiteit in ("rijden", "werk")]
        after = busy[-1] + 1
        begin = midnight(day) + timedelta(minutes=changes[busy[0]].minuut)
        end_minute = changes[after].minuut if after < len(changes) else 24 * 60
        end = min(midnight(day) + timedelta(minutes=end_minute), until)
        km = 180 + 35 * ((day.toordinal() + index) % 5)
        used.append(VehicleUse(begin, end, odometer, odometer + km, plate, "NL"))
        odometer += km
    return used


def _seed_tacho(carrier_id, driver_rows, vehicles, planner) -> None:
    """Tachograph downloads as a planner uploads them: each driver's card of the last four
    weeks, downloaded this morning (the first driver's also of the four weeks before, found
    again by its card number), and the vehicle units of the tractors (linked by the
    registration in the file). The cards hold the app's work days as a card records them,
    with a few differences and infringements for the checks to find."""
    import io

    from portal.audit.service import Actor
    from portal.hours import service as hours
    from portal.tacho import samples
    from portal.tacho import service as tacho
    from portal.tacho.ddd.build import card_file, changes_from_timeline

    actor = Actor("user", planner.id, planner.naam)
    now = datetime.now(UTC)
    today = now.date()
    # This morning's download; before 07:00 UTC, last night's.
    downloaded = datetime.combine(today, time(6, 30), tzinfo=UTC)
    if downloaded > now - timedelta(minutes=10):
        downloaded = datetime.combine(today - timedelta(days=1), time(21, 30), tzinfo=UTC)
    app = hours.work_days_of_drivers(
        carrier_id=carrier_id,
        chauffeur_ids={d.id for d in driver_rows},
        van=downloaded - timedelta(days=60),
        tot=downloaded,
    )
    trucks = [v.kenteken for v in vehicles if v.soort == "trekker"]
    uploads = []
    for index, driver in enumerate(driver_rows):
        first, *rest = driver.naam.split()
        number = f"NB{carrier_id.int % 10**6:06d}{index:06d}00"
        start = downloaded.date() - timedelta(days=56 if index == 0 else 28)
        timeline = _card_timeline(index, app[driver.id], start, downloaded)
        days = changes_from_timeline(timeline)
        periods = [(downloaded, days)]
        if index == 0:
            # An older download: the first four of those eight weeks, made back then.
            older = datetime.combine(start + timedelta(days=28), time(7, 15), tzinfo=UTC)
            older_days = changes_from_timeline([e for e in timeline if e[0] < older])
            periods = [
                (older, older_days),
                (
                    downloaded,
                    {d: c for d, c in days.items() if d >= older.date() - timedelta(days=27)},
                ),
            ]
        for moment, card_days in periods:
            data = card_file(
                kaartnummer=number,
                achternaam=" ".join(rest).upper(),
                voornamen=first.upper(),
                dagen=card_days,
                download_time=moment,
                vehicles=_card_vehicles(card_days, trucks, index, moment),
            )
            name = f"C_{moment:%Y%m%d_%H%M}_{first[0]}_{rest[-1]}_{number}.DDD"
            # The first driver's newer download is linked through the older one's card.
            linked = None if index == 0 and moment == downloaded else driver.id
            uploads.append((moment, data, name, linked))
    for n, vehicle in enumerate(v for v in vehicles if v.soort == "trekker"):
        start = today - timedelta(days=31 + 14 * n)
        data = samples.vu_download(
            vin=f"XLRTEH4300G{carrier_id.int % 10**5:05d}{n}",
            kenteken=vehicle.kenteken,
            first_day=start,
            days=30,
            generation=2 if n == 0 else 1,
        )
        plate = vehicle.kenteken.replace("-", "")
        moment = datetime.combine(start + timedelta(days=30), time(8, 40), tzinfo=UTC)
        uploads.append((moment, data, f"M_{plate}_{start:%Y%m%d}.DDD", None))
    # Oldest first, as they came in: the older card download links the later one's driver.
    for moment, data, name, linked in sorted(uploads, key=lambda u: (u[0], u[2])):
        result = tacho.upload(
            carrier_id=carrier_id,
            stream=io.BytesIO(data),
            filename=name,
            actor=actor,
            chauffeur_id=linked,
        )
        result.file.geupload_op = moment + timedelta(minutes=25)
